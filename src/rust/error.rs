//! What can go wrong on the Rust side of a run, and which exit code it deserves.

use crate::exec::ExecError;
use crate::pipeline::{ExitCode, FrontError};
use crate::rust::harness::HarnessError;
use crate::rust::workspace::WorkspaceError;

/// Errors of `cargo abex`'s front end.
#[derive(Debug, thiserror::Error)]
pub enum RustError {
    /// The workspace could not be loaded.
    #[error(transparent)]
    Workspace(#[from] WorkspaceError),
    /// A build failed.
    #[error(transparent)]
    Harness(#[from] HarnessError),
    /// The tests fail without any mutant.
    #[error("the tests of `{package}` fail before any mutation (test `{test}`):\n{output}\nhint: fix the failing test first; abex needs a passing baseline")]
    BaselineFails {
        /// The package.
        package: String,
        /// The failing test.
        test: String,
        /// The end of its output.
        output: String,
    },
    /// The tests hang without any mutant.
    #[error("the tests of `{package}` did not finish within {secs} s before any mutation")]
    BaselineHangs {
        /// The package.
        package: String,
        /// The limit.
        secs: u64,
    },
    /// A worker failed.
    #[error(transparent)]
    Exec(#[from] ExecError),
}

impl FrontError for RustError {
    fn exit_code(&self) -> ExitCode {
        match self {
            RustError::Workspace(_)
            | RustError::Harness(HarnessError::CrateDoesNotBuild { .. })
            | RustError::BaselineFails { .. }
            | RustError::BaselineHangs { .. } => ExitCode::Usage,
            _ => ExitCode::Infrastructure,
        }
    }
}
