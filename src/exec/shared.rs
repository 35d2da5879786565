//! Evaluators over worker processes: a share of a worker ([`SharedWorker`]: several evaluators,
//! one per target of a harness, the original of every witness search, use one worker process,
//! one after the other), a worker of its own that another thread may use ([`OwnedWorker`]), or
//! a target that every worker of a pool serves, on whichever is free ([`PooledWorker`]).

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::{Arc, Mutex};

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

/// Workers started from the same targets, any of which can serve any of them (see
/// [`PooledWorker`]).
pub type Pool = Arc<Vec<Mutex<Worker>>>;

/// Target `id` of every worker of a pool: a call goes to the first free worker from `home` on,
/// or waits for `home`. Threads that search witnesses side by side (see `pipeline::survivors`)
/// then never wait for one another while the pool has a free worker, whichever mutant each
/// one takes: a language whose worker is costly to start (a Python interpreter importing the
/// project) starts one per thread, not one per mutant.
pub struct PooledWorker {
    /// The workers.
    pub pool: Pool,
    /// The target's id, the same in every worker.
    pub id: usize,
    /// The worker tried first (and waited for when none is free).
    pub home: usize,
}

impl PooledWorker {
    /// Runs `call` on the first free worker from `home` on, else on `home` once it is free.
    fn with<T>(&self, call: impl FnOnce(&mut Worker) -> T) -> T {
        let n = self.pool.len();
        for k in 0..n {
            if let Ok(mut w) = self.pool[(self.home + k) % n].try_lock() {
                return call(&mut w);
            }
        }
        let mut w = self.pool[self.home % n].lock().unwrap_or_else(|e| e.into_inner());
        call(&mut w)
    }
}

impl Evaluate for PooledWorker {
    fn evaluate(&mut self, batch: &[Args]) -> Result<Vec<Outcome>, ExecError> {
        self.with(|w| w.run(self.id, batch))
    }
}

/// A worker in probe mode answers with probes; any other worker gives `None` for each call.
impl ProbeEvaluate for PooledWorker {
    fn evaluate_probed(&mut self, batch: &[Args]) -> Result<Answers, ExecError> {
        self.with(|w| w.run_probed(self.id, batch))
    }
}
