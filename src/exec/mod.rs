//! Executors: run the function under test on batches of argument lists and return one outcome
//! per call. One protocol for every language (see `protocol`): a long-lived worker process
//! speaking JSON lines, with a per-call time limit, a memory limit and restart after a crash or
//! timeout.

pub mod probe;
pub mod worker;

pub use probe::{Fitness, Probe, ProbeEvaluate};

use crate::value::{Args, Outcome};

/// Anything that can run a function on a batch of argument lists.
pub trait Evaluate {
    /// Runs every argument list of `batch`, in order, and returns one outcome per list.
    fn evaluate(&mut self, batch: &[Args]) -> Result<Vec<Outcome>, ExecError>;
}

/// Why an executor could not produce outcomes at all (a single call failing is an outcome).
#[derive(Debug, thiserror::Error)]
pub enum ExecError {
    /// The worker process could not be started.
    #[error("failed to start the worker `{command}`: {source}")]
    Spawn {
        /// The command line.
        command: String,
        /// The OS error.
        source: std::io::Error,
    },
    /// The worker broke the protocol (an unreadable line, a wrong handshake).
    #[error("the worker broke the protocol: {0}")]
    Protocol(String),
    /// The worker keeps dying at start-up.
    #[error("the worker died {restarts} times in a row; last: {detail}")]
    Unstable {
        /// Restarts attempted.
        restarts: u32,
        /// What the last death looked like.
        detail: String,
    },
    /// Reading or writing the worker's pipes failed.
    #[error("worker I/O failed: {0}")]
    Io(#[from] std::io::Error),
}

/// An in-process executor over a Rust closure, for tests and benchmarks of the search itself.
pub struct FnEvaluator<F: FnMut(&Args) -> Outcome>(pub F);

impl<F: FnMut(&Args) -> Outcome> Evaluate for FnEvaluator<F> {
    fn evaluate(&mut self, batch: &[Args]) -> Result<Vec<Outcome>, ExecError> {
        Ok(batch.iter().map(&mut self.0).collect())
    }
}
