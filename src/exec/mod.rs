//! Executors: run the function under test on batches of argument lists and return one outcome
//! per call. One protocol for every language (see `worker`): a long-lived worker process
//! speaking JSON lines, with a per-call time limit, a memory limit and restart after a crash or
//! timeout.

mod evaluate;
pub mod probe;
pub mod shared;
pub mod worker;

pub use evaluate::{Evaluate, ExecError, FnEvaluator};
pub use probe::{Fitness, Probe, ProbeEvaluate};
