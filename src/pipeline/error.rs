//! The errors that end a run, and the process exit codes they map to, in one place.

use std::path::PathBuf;

use crate::exec::ExecError;
use crate::targets::diff::DiffError;

/// The documented exit codes of `cargo abex` (and what `pytest --abex` reports).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExitCode {
    /// The run finished.
    Finished = 0,
    /// It finished with findings and `--fail-on finding` was given.
    Findings = 1,
    /// A usage or configuration error the user can fix: not a project, unknown `--function`,
    /// missing base ref, a crate that does not build, tests that fail before any mutation.
    Usage = 2,
    /// Anything else: a worker that keeps dying, a disk that is full.
    Infrastructure = 3,
    /// Interrupted by SIGINT (Ctrl-C); the report holds what was finished.
    Sigint = 130,
    /// Interrupted by SIGTERM; the report holds what was finished.
    Sigterm = 143,
    /// Interrupted by SIGHUP; the report holds what was finished.
    Sighup = 129,
}

impl ExitCode {
    /// The process exit status.
    pub fn code(self) -> u8 {
        self as u8
    }
}

/// A front end's own error (loading the project, building, running its tests), with the exit
/// code it deserves.
pub trait FrontError: std::error::Error + Send + Sync + 'static {
    /// [`ExitCode::Usage`] when the user can fix it, [`ExitCode::Infrastructure`] otherwise.
    fn exit_code(&self) -> ExitCode;
}

/// Errors that end a run.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The diff could not be computed.
    #[error(transparent)]
    Diff(#[from] DiffError),
    /// A setting is invalid.
    #[error("{0}")]
    Config(String),
    /// A `--function` does not name a function.
    #[error("{0}")]
    UnknownFunction(String),
    /// The front end failed (loading, building, testing).
    #[error("{0}")]
    Front(Box<dyn FrontError>),
    /// A worker failed beyond recovery.
    #[error("failed to run `{target}`: {source}{hint}")]
    Exec {
        /// The target.
        target: String,
        /// Why.
        source: ExecError,
        /// A `\nhint: …` line, or nothing.
        hint: String,
    },
    /// The model settings are broken.
    #[error(transparent)]
    Llm(#[from] crate::llm::engine::EngineError),
    /// The run was interrupted (SIGINT, SIGTERM): what a step gave afterwards is no result.
    /// [`super::run`] never returns it: it ends with the report of what was finished.
    #[error("interrupted")]
    Interrupted,
    /// The output folder could not be prepared (one that is not abex's is refused).
    #[error(transparent)]
    OutFolder(#[from] crate::out::OutError),
    /// Writing the output failed.
    #[error("failed to write `{path}`: {source}")]
    Output {
        /// Where.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
}

impl RunError {
    /// A front end's error.
    pub fn front(e: impl FrontError) -> RunError {
        RunError::Front(Box::new(e))
    }

    /// The exit code this error maps to.
    pub fn exit_code(&self) -> ExitCode {
        match self {
            RunError::Diff(_)
            | RunError::Config(_)
            | RunError::UnknownFunction(_)
            | RunError::Llm(_) => ExitCode::Usage,
            RunError::Front(e) => e.exit_code(),
            RunError::OutFolder(crate::out::OutError::Io { .. }) => ExitCode::Infrastructure,
            RunError::OutFolder(_) => ExitCode::Usage,
            RunError::Exec { .. } | RunError::Output { .. } => ExitCode::Infrastructure,
            RunError::Interrupted => match crate::interrupt::requested() {
                Some(i) if i.signal == crate::interrupt::SIGTERM => ExitCode::Sigterm,
                Some(i) if i.signal == crate::interrupt::SIGHUP => ExitCode::Sighup,
                _ => ExitCode::Sigint,
            },
        }
    }
}

/// What a step gave, or `None` when it failed because the run's deadline passed and the
/// watchdog killed what it ran (see `crate::interrupt::Watchdog`): no failure, but nothing to
/// keep; the step's work then reads `not_tested` or is dropped.
pub(crate) fn unless_cut<T>(step: Result<T, RunError>) -> Result<Option<T>, RunError> {
    match step {
        Ok(t) => Ok(Some(t)),
        Err(_) if crate::interrupt::expired() => Ok(None),
        Err(e) => Err(e),
    }
}
