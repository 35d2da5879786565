//! Evaluators over worker processes: a share of a worker ([`SharedWorker`]: several evaluators,
//! one per target of a harness, the original of every witness search, use one worker process,
//! one after the other), or a worker of its own that another thread may use ([`OwnedWorker`]).

use std::cell::RefCell;
use std::rc::Rc;

use super::probe::{Answers, ProbeEvaluate};
use super::worker::Worker;
use super::{Evaluate, ExecError};
use crate::value::{Args, Outcome};

/// Target `id` of a shared worker.
pub struct SharedWorker {
    /// The worker.
    pub worker: Rc<RefCell<Worker>>,
    /// The target's id in the worker.
    pub id: usize,
}

impl SharedWorker {
    /// Target `id` of a worker of its own.
    pub fn own(worker: Worker, id: usize) -> SharedWorker {
        SharedWorker { worker: Rc::new(RefCell::new(worker)), id }
    }
}

impl Evaluate for SharedWorker {
    fn evaluate(&mut self, batch: &[Args]) -> Result<Vec<Outcome>, ExecError> {
        self.worker.borrow_mut().run(self.id, batch)
    }
}

/// A worker in probe mode answers with probes; any other worker gives `None` for each call.
impl ProbeEvaluate for SharedWorker {
    fn evaluate_probed(&mut self, batch: &[Args]) -> Result<Answers, ExecError> {
        self.worker.borrow_mut().run_probed(self.id, batch)
    }
}

/// Target `id` of a worker owned by this evaluator alone, which may move to another thread (a
/// witness search on several threads, see `pipeline::survivors`).
pub struct OwnedWorker {
    /// The worker.
    pub worker: Worker,
    /// The target's id in the worker.
    pub id: usize,
}

impl Evaluate for OwnedWorker {
    fn evaluate(&mut self, batch: &[Args]) -> Result<Vec<Outcome>, ExecError> {
        self.worker.run(self.id, batch)
    }
}

/// A worker in probe mode answers with probes; any other worker gives `None` for each call.
impl ProbeEvaluate for OwnedWorker {
    fn evaluate_probed(&mut self, batch: &[Args]) -> Result<Answers, ExecError> {
        self.worker.run_probed(self.id, batch)
    }
}
