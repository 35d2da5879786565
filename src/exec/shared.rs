//! Evaluators over worker processes: a share of a worker ([`SharedWorker`]: several evaluators,
//! one per target of a harness, the original of every witness search, use one worker process,
//! one after the other), the same with a second worker for the batches of a target that hangs
//! ([`HungSplit`]), a worker of its own that another thread may use ([`OwnedWorker`]), or a
//! target that every worker of a pool serves, on whichever is free ([`PooledWorker`]).

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

/// Target `id` of a shared worker whose batches, once the target has hung (in any worker that
/// shares what the worker knows of hangs), are split in two halves run side by side, the second
/// on a sibling of the worker: each call that hangs costs the shortened limit and a new
/// process (about 60 ms), and a function that loops forever on a whole region of its inputs
/// (bytesize's `ideal_unit_no_std` for a unit of 0 or 1: a hundred such calls in an
/// exploration) waits for them two at a time. The outcomes are the same, in the same order.
pub struct HungSplit {
    /// The worker, shared.
    pub shared: SharedWorker,
    /// Its sibling, started on the first batch split.
    pub sibling: Option<Worker>,
}

impl HungSplit {
    /// Target `id` of `worker`.
    pub fn new(worker: Rc<RefCell<Worker>>, id: usize) -> HungSplit {
        HungSplit { shared: SharedWorker { worker, id }, sibling: None }
    }

    /// `batch` run by `call` on the worker, or in two halves on it and its sibling once the
    /// target has hung.
    fn split<T: Send>(
        &mut self,
        batch: &[Args],
        call: impl Fn(&mut Worker, usize, &[Args]) -> Result<Vec<T>, ExecError> + Sync,
    ) -> Result<Vec<T>, ExecError> {
        let id = self.shared.id;
        let mut worker = self.shared.worker.borrow_mut();
        if batch.len() < 2 || !worker.has_hung(id) {
            return call(&mut worker, id, batch);
        }
        let sibling = self.sibling.get_or_insert_with(|| worker.sibling());
        let (first, second) = batch.split_at(batch.len() / 2);
        let (a, b) = std::thread::scope(|s| {
            let other = s.spawn(|| call(sibling, id, second));
            (call(&mut worker, id, first), other.join())
        });
        let b = b.map_err(|_| ExecError::Protocol("a worker's thread panicked".into()))?;
        let mut out = a?;
        out.extend(b?);
        Ok(out)
    }
}

impl Evaluate for HungSplit {
    fn evaluate(&mut self, batch: &[Args]) -> Result<Vec<Outcome>, ExecError> {
        self.split(batch, |w, id, b| w.run(id, b))
    }
}

/// A worker in probe mode answers with probes; any other worker gives `None` for each call.
impl ProbeEvaluate for HungSplit {
    fn evaluate_probed(&mut self, batch: &[Args]) -> Result<Answers, ExecError> {
        self.split(batch, |w, id, b| w.run_probed(id, b))
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

    /// The Python worker's requests take a third element, `0`, for a call without its probe.
    fn evaluate_outcomes(&mut self, batch: &[Args]) -> Result<Vec<Outcome>, ExecError> {
        self.with(|w| w.run_unprobed(self.id, batch))
    }

    fn probes_cost(&self) -> bool {
        true
    }
}
