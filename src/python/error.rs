//! What can go wrong on the Python side of a run, and which exit code it deserves.

use std::path::PathBuf;

use super::runner::RunnerError;
use crate::pipeline::{ExitCode, FrontError};

/// Errors of `pytest --abex`'s front end.
#[derive(Debug, thiserror::Error)]
pub enum PythonError {
    /// The project could not be read or copied.
    #[error(transparent)]
    Scratch(#[from] crate::scratch::ScratchError),
    /// The test runner failed.
    #[error(transparent)]
    Runner(#[from] RunnerError),
    /// The tests fail without any mutant.
    #[error("the tests that reach `{function}` fail before any mutation ({failed})\nhint: fix the failing tests first; abex needs a passing baseline")]
    BaselineFails {
        /// The function.
        function: String,
        /// What failed.
        failed: String,
    },
    /// A spec, a patch or a suggested-test file could not be written.
    #[error("failed to write `{path}`: {source}")]
    Io {
        /// Where.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
}

impl FrontError for PythonError {
    fn exit_code(&self) -> ExitCode {
        match self {
            PythonError::BaselineFails { .. } => ExitCode::Usage,
            _ => ExitCode::Infrastructure,
        }
    }
}
