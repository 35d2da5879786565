//! A Python project copied to a scratch folder, the spine's [`Lab`] for Python: the worker that
//! calls the chosen functions, forked test runners (collection and a traced baseline paid once,
//! started while the functions are explored) that run only the tests calling a function against
//! each of its mutants, a worker over the survivors' patched copies for witnesses, and suggested
//! pytest tests run on the original and on each survivor.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use super::error::PythonError;
use super::flaky::Flaky;
use super::project::Selected;
use super::runner::{Interpreter, Patch, RunResult, Runner, RunnerError, SurvivorCheck, Traced};
use super::seeds;
use super::selection::{self, RunnerPlace, BASELINE_LIMIT};
use super::suggest::{self, Callee};
use super::worker;
use crate::exec::shared::{Pool, PooledWorker, SharedWorker};
use crate::exec::worker::Worker;
use crate::exec::{Evaluate, ProbeEvaluate};
use crate::mutate::Mutant;
use crate::pipeline::{
    bounded, Defaults, Lab, Numbered, RunConfig, RunError, Suggestion, Tested, Uncallable, Unit,
    Verdict, WitnessWorkers,
};
use crate::report::{MutantStatus, Witness};
use crate::targets::Param;
use crate::value::Value;

/// Runners kept for the next function with the same test files (collection is paid once).
type Runners = Vec<(Vec<PathBuf>, Runner)>;

/// What the tests of one function's mutants found out about the function.
struct Reach {
    /// Its test files.
    files: Vec<PathBuf>,
    /// How many tests call it (traced), when a test file names it.
    reached: Option<usize>,
    /// The time limit of one of its mutants' tests.
    timeout: Duration,
}

/// The workers that call survivors for their witnesses: `jobs` of them, each serving every
/// target, so that the searches on several threads each have one.
struct Witnesses {
    /// Each target of the workers, in worker-id order: the function called and its survivor
    /// (`None`: the function itself, the original the search compares with).
    called: Vec<(usize, Option<u32>)>,
    /// Each target's spec, in the same order.
    specs: Vec<serde_json::Value>,
    pool: Pool,
}

impl Witnesses {
    /// Target `(i, n)` of the pool, tried first on worker `home`.
    fn target(&self, i: usize, n: Option<u32>, home: usize) -> Option<PooledWorker> {
        let id = self.called.iter().position(|&c| c == (i, n))?;
        Some(PooledWorker { pool: self.pool.clone(), id, home })
    }
}

/// The most mutants whose witnesses are searched while the unit's other mutants are tested
/// ([`Lab::searches_while_testing`]): the witness workers then load every mutant that may
/// survive, which pays where the tests are short (a few dozen mutants); beyond, they load only
/// the survivors, after the tests.
const SEARCH_WHILE_TESTING_AT_MOST: usize = 200;

/// One Python project's scratch copy, workers and runners.
pub struct PythonLab<'a> {
    front: &'a Selected,
    cfg: &'a RunConfig,
    deadline: Option<Instant>,
    place: RunnerPlace,
    /// A private folder for specs and patches (removed with the lab).
    work: tempfile::TempDir,
    /// The unit's callable targets; a target's worker id is its position.
    driven: Vec<usize>,
    explorer: Rc<RefCell<Worker>>,
    mutants: Vec<Numbered>,
    runners: Runners,
    warming: Option<JoinHandle<Runners>>,
    reach: BTreeMap<usize, Reach>,
    /// The worker over the unit's survivors.
    witnesses: Option<Witnesses>,
    /// Test files that do not collect in the runner (left out), with the error; and whether
    /// the user was told.
    dropped: BTreeMap<String, (String, bool)>,
    /// The session's tests the runner did not collect; and whether the user was told.
    missing: Option<(Vec<String>, bool)>,
    /// The targets the worker could not load (by worker id), once it greeted.
    unloaded: RefCell<Option<BTreeMap<usize, String>>>,
    /// Per target, its parameters as the tests' arguments typed them (`None`: nothing learnt).
    learnt: BTreeMap<usize, Option<Vec<Param>>>,
    /// Which tests fail on the original too (they kill no mutant).
    flaky: Flaky,
    /// The check of one function's suggested tests running in the background
    /// ([`Lab::check_soon`]), with the runners it took.
    checking: Option<Checking>,
    /// What background checks found, until [`Lab::check`] asks.
    checked: Vec<(CheckPlan, Found)>,
}

fn front_err(e: impl Into<PythonError>) -> RunError {
    RunError::front(e.into())
}

fn tested(r: &RunResult) -> Tested {
    let status = match r.status.as_str() {
        "pass" => MutantStatus::Survived,
        "timeout" => MutantStatus::Timeout,
        "unviable" => MutantStatus::Unviable,
        _ => MutantStatus::Killed,
    };
    let killed_by =
        r.failed.first().cloned().or_else(|| (!r.detail.is_empty()).then(|| r.detail.clone()));
    let failure = match status {
        MutantStatus::Killed => Some(&r.message),
        MutantStatus::Unviable => Some(&r.detail),
        _ => None,
    }
    .filter(|f| !f.is_empty())
    .cloned();
    Tested { status, killed_by, failure, time: Duration::from_secs_f64(r.time.max(0.0)) }
}

/// Records every mutant of `mine` (its self-check included) as not reached: no test of the
/// session calls the function, so none judges them.
fn not_reached(
    mine: &[&Numbered],
    results: &mut BTreeMap<u32, Tested>,
    on_result: &mut dyn FnMut(u32, &Tested),
) {
    for m in mine {
        let t = Tested {
            status: MutantStatus::NotReached,
            killed_by: None,
            failure: None,
            time: Duration::ZERO,
        };
        on_result(m.n, &t);
        results.insert(m.n, t);
    }
}

/// What a runner does with one mutant (`W`: its patch, and what else the job needs of it):
/// `None` when the run was interrupted (no result).
type Job<'j, W, T> = dyn Fn(&mut Runner, &W) -> Result<Option<T>, RunnerError> + Sync + 'j;

/// Runs `job` on each of `work`'s mutants, spread over `runners`, one thread each: each runner
/// takes the next mutant in `work`'s order as soon as it is free, so that one whose mutants
/// run long does not leave the others idle at the end; `heard` hears each result as it comes,
/// on this thread. No mutant starts once `stop` says so, nor after an interrupted run. Returns
/// the first runner's error, if any (after every thread ended).
fn spread<W: Sync, T: Send>(
    runners: &mut [Runner],
    work: &[(u32, W)],
    job: &Job<'_, W, T>,
    stop: &(dyn Fn() -> bool + Sync),
    heard: &mut dyn FnMut(u32, T),
) -> Result<(), RunnerError> {
    let next = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|s| {
        let (tx, rx) = std::sync::mpsc::channel();
        let handles: Vec<_> = runners
            .iter_mut()
            .map(|r| {
                let (tx, next) = (tx.clone(), &next);
                s.spawn(move || {
                    loop {
                        if stop() {
                            break;
                        }
                        let k = next.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                        let Some((n, patch)) = work.get(k) else { break };
                        let Some(t) = job(r, patch)? else { break };
                        if tx.send((*n, t)).is_err() {
                            break;
                        }
                    }
                    Ok(())
                })
            })
            .collect();
        drop(tx);
        for (n, t) in rx {
            heard(n, t);
        }
        handles.into_iter().try_for_each(|h| {
            h.join().unwrap_or_else(|_| Err(RunnerError::Broken("a runner thread panicked".into())))
        })
    })
}

/// The explorer worker's targets: each of `driven` (worker id: its position), with the
/// parameters `learnt` so far; then, when the threshold operator runs, each of them again with
/// its original traced (worker id: `driven.len()` + its position), the tracer of a function
/// that drives itself. One worker serves both: a traced target calls a copy of the function,
/// the original stays as it is.
fn explorer_specs(
    front: &Selected,
    scratch: &Path,
    driven: &[usize],
    learnt: &BTreeMap<usize, Option<Vec<Param>>>,
) -> Vec<serde_json::Value> {
    let learnt = |i: usize| learnt.get(&i).cloned().flatten();
    let plain = driven
        .iter()
        .map(|&i| worker::target(&front.project, &front.chosen[i], learnt(i).as_deref()));
    let traced = driven
        .iter()
        .filter(|_| crate::explore::thresholds_enabled())
        .map(|&i| traced_spec(front, scratch, i, i, learnt(i).as_deref()));
    plain.chain(traced).collect()
}

/// The worker's target that calls `driver` (with `learnt` parameters) with target `i`'s
/// original traced: its own source as the patch, see `pytest_abex/_trace.py`.
fn traced_spec(
    front: &Selected,
    scratch: &Path,
    i: usize,
    driver: usize,
    learnt: Option<&[Param]>,
) -> serde_json::Value {
    let mut t = worker::target(&front.project, &front.chosen[driver], learnt);
    let pf = &front.project.files[front.chosen[i].file];
    let f = &pf.fns[front.chosen[i].func];
    let file = scratch.join(&pf.rel);
    let mut p = Patch::of_function(&pf.module, &f.qualname, file, &pf.text, f.byte_span, &pf.text);
    p.role = f.role();
    t["patch"] = serde_json::to_value(p).unwrap_or_default();
    t["trace"] = serde_json::json!(true);
    t
}

impl Drop for PythonLab<'_> {
    /// A check still running in the background ends before the lab's folder goes.
    fn drop(&mut self) {
        self.settle_checking();
    }
}

fn write(path: &Path, text: &str) -> Result<(), PythonError> {
    std::fs::write(path, text)
        .map_err(|source| PythonError::Io { path: path.to_path_buf(), source })
}

impl<'a> PythonLab<'a> {
    /// The argument lists the tests passed to the traced function `key` (`module:qualname`),
    /// from the warmed runners' baselines (waited for).
    fn seen(&mut self, key: &str) -> Vec<super::runner::Seen> {
        self.settle_checking();
        if let Some(h) = self.warming.take() {
            self.runners.extend(h.join().unwrap_or_default());
        }
        seeds::seen_by(self.runners.iter().filter_map(|(_, r)| r.traced.as_ref()), key)
    }

    /// Copies the project to its scratch folder, starts the worker of `unit`'s callable targets
    /// and, when mutants will be tested, the runners of their tests.
    pub fn open(
        front: &'a Selected,
        cfg: &'a RunConfig,
        unit: &Unit,
        mutants: &[Numbered],
        deadline: Option<Instant>,
    ) -> Result<PythonLab<'a>, PythonError> {
        let project = &front.project;
        let root = &project.root;
        // The scratch copy: everything runs there, never in the user's tree.
        let scratch = root.join(".abex").join("scratch").join("python");
        let skip: Vec<PathBuf> = super::project::SKIP_DIRS.iter().map(|d| root.join(d)).collect();
        let copied = crate::scratch::list_files(root, &skip)?;
        let extras = super::project::package_extras(project, &copied);
        crate::scratch::sync(root, &scratch, &extras, &skip)?;
        let work = tempfile::tempdir_in(root.join(".abex"))
            .map_err(|source| PythonError::Io { path: root.join(".abex"), source })?;
        let python = Interpreter { python: front.python.clone(), memory_limit: cfg.memory_limit() };
        let sys_path = worker::sys_path(project, &scratch);
        let targets: Vec<_> = front.chosen.iter().map(|c| c.target.clone()).collect();
        let driven = unit.callable(&targets);
        let specs = explorer_specs(front, &scratch, &driven, &BTreeMap::new());
        let spec_file = work.path().join("worker.json");
        let explorer =
            worker::start(&python, cfg.call_timeout, &scratch, &spec_file, &specs, &sys_path)
                .map_err(|source| PythonError::Io { path: spec_file.clone(), source })?;
        let mut traced: Vec<Traced> = unit
            .targets
            .iter()
            .map(|&i| {
                let c = &front.chosen[i];
                let pf = &project.files[c.file];
                let f = &pf.fns[c.func];
                let seeds = seeds::wanted(f);
                let role = f.role();
                let (module, qualname) = (pf.module.clone(), f.qualname.clone());
                Traced { module, qualname, seeds, role, defaults: false }
            })
            .collect();
        // The constructors of the classes the targets take, where they take arguments of
        // unknown type: what the tests pass them types and seeds those values.
        for &i in &unit.targets {
            let c = &front.chosen[i];
            for (name, ctor) in seeds::constructors(&project.files[c.file].fns[c.func]) {
                let Some((file, init)) = init_of(project, &name, &ctor) else { continue };
                let (module, qualname) = (&project.files[file].module, &init.qualname);
                if !traced.iter().any(|t| t.module == *module && t.qualname == *qualname) {
                    traced.push(Traced {
                        module: module.clone(),
                        qualname: qualname.clone(),
                        seeds: true,
                        role: None,
                        defaults: true,
                    });
                }
            }
        }
        let pytest_args = front.session.pytest_args.clone();
        let node_ids = front.session.node_ids.clone();
        let place = RunnerPlace { python, scratch, sys_path, traced, pytest_args, node_ids };
        // The mutation phase's test runners start (collection, traced baseline) while the
        // functions are explored.
        let warming = cfg.mutate.then(|| {
            let suite = selection::suite(front);
            let none = suite.is_empty() || selection::ran_none(front);
            let sets: Vec<Vec<PathBuf>> = if none { Vec::new() } else { vec![suite] };
            selection::warm(place.clone(), work.path().join("warm"), sets, cfg.jobs)
        });
        Ok(PythonLab {
            front,
            cfg,
            deadline,
            place,
            work,
            driven,
            explorer: Rc::new(RefCell::new(explorer)),
            mutants: mutants.to_vec(),
            runners: Vec::new(),
            warming,
            reach: BTreeMap::new(),
            witnesses: None,
            dropped: BTreeMap::new(),
            missing: None,
            unloaded: RefCell::new(None),
            learnt: BTreeMap::new(),
            flaky: Flaky::default(),
            checking: None,
            checked: Vec::new(),
        })
    }

    /// Calls `with` on what a suggested test needs to know of target `i`.
    fn with_callee<T>(&self, i: usize, with: impl FnOnce(&Callee<'_>) -> T) -> T {
        let c = &self.front.chosen[i];
        let pf = &self.front.project.files[c.file];
        let f = &pf.fns[c.func];
        let learnt = self.learnt.get(&i).cloned().flatten();
        let own = learnt.as_ref().unwrap_or(&f.params);
        let params: Vec<_> = own.iter().filter_map(|p| p.ty.clone()).collect();
        let names: Vec<String> = own.iter().map(|p| p.name.clone()).collect();
        let defaults: Vec<(String, Value)> =
            f.raw.iter().filter_map(|p| Some((p.name.clone(), p.literal.clone()?))).collect();
        let callee = Callee {
            module: &pf.module,
            qualname: &f.qualname,
            kind: f.kind,
            params: &params,
            tuples: &f.tuples,
            names: &names,
            passes: &f.passes,
            receiver: f.receiver,
            is_async: f.is_async,
            defaults: &defaults,
        };
        with(&callee)
    }

    /// Whether to start no more work: the time budget is spent or the run was interrupted.
    fn past_deadline(&self) -> bool {
        self.deadline.is_some_and(|d| Instant::now() >= d) || crate::interrupt::stopped()
    }

    /// The patch that applies `m`, a numbered mutant.
    fn patch_of(&self, m: &Numbered) -> Patch {
        self.patch(m.target, &m.mutant)
    }

    /// The patch that applies `m`, a mutant of target `i`.
    fn patch(&self, i: usize, m: &Mutant) -> Patch {
        self.function_patch(i, Some(m))
    }

    /// The patch of target `i` with mutant `m` applied, or of its own code (`None`: swapped in
    /// the way a mutant's is, for a check on the original in a mutant's conditions).
    fn function_patch(&self, i: usize, m: Option<&Mutant>) -> Patch {
        let c = &self.front.chosen[i];
        let pf = &self.front.project.files[c.file];
        let f = &pf.fns[c.func];
        let file = self.place.scratch.join(&pf.rel);
        let text = m.map_or_else(|| pf.text.clone(), |m| m.apply(&pf.text));
        let mut p = Patch::of_function(&pf.module, &f.qualname, file, &pf.text, f.byte_span, &text);
        p.role = f.role();
        p
    }

    /// A worker over `targets`, its spec written to `spec` in the lab's folder.
    fn worker(&self, spec: &str, targets: &[serde_json::Value]) -> Result<Worker, PythonError> {
        let spec = self.work.path().join(spec);
        let p = &self.place;
        worker::start(&p.python, self.cfg.call_timeout, &p.scratch, &spec, targets, &p.sys_path)
            .map_err(|source| PythonError::Io { path: spec.clone(), source })
    }

    /// Starts the explorer's worker again with the parameters learnt so far.
    fn restart_explorer(&mut self) -> Result<(), PythonError> {
        let specs = explorer_specs(self.front, &self.place.scratch, &self.driven, &self.learnt);
        let w = self.worker("worker.json", &specs)?;
        *self.explorer.borrow_mut() = w;
        Ok(())
    }

    /// The witness workers' targets for `groups` (each function called, with the survivors
    /// searched through it): the function itself, then each survivor's mutant (probed where
    /// the search probes), as [`Witnesses::called`] lists them, and each one's spec.
    fn witness_specs(
        &self,
        groups: &[(usize, Vec<u32>)],
    ) -> (Vec<(usize, Option<u32>)>, Vec<serde_json::Value>) {
        let mut called = Vec::new();
        let mut specs = Vec::new();
        for (i, survivors) in groups {
            let c = &self.front.chosen[*i];
            let learnt = self.learnt.get(i).cloned().flatten();
            called.push((*i, None));
            specs.push(worker::target(&self.front.project, c, learnt.as_deref()));
            for m in survivors.iter().filter_map(|n| self.mutants.iter().find(|m| m.n == *n)) {
                let mut t = worker::target(&self.front.project, c, learnt.as_deref());
                t["patch"] = serde_json::to_value(self.patch_of(m)).unwrap_or_default();
                // Probe mode: the worker instruments the mutant's site (reach, infection).
                t["probe"] = serde_json::json!(crate::witness::directed_enabled());
                called.push((*i, Some(m.n)));
                specs.push(t);
            }
        }
        (called, specs)
    }

    /// The runner of `tests` kept from an earlier function, or a new one.
    fn runner(&mut self, tests: &[PathBuf], spec: &Path) -> Result<(Runner, bool), RunnerError> {
        self.settle_checking();
        if let Some(h) = self.warming.take() {
            self.runners.extend(h.join().unwrap_or_default());
        }
        let (runner, kept) = match self.runners.iter().position(|(t, _)| t == tests) {
            Some(k) => (self.runners.swap_remove(k).1, true),
            None => (self.place.start(spec, tests, self.cfg.jobs.saturating_sub(1))?, false),
        };
        self.note_dropped(&runner);
        Ok((runner, kept))
    }

    /// Remembers the test files `runner` left out because they do not collect, and the
    /// session's tests it did not collect.
    fn note_dropped(&mut self, runner: &Runner) {
        for (file, error) in &runner.dropped {
            self.dropped.entry(file.clone()).or_insert_with(|| (error.clone(), false));
        }
        if self.missing.is_none() && !runner.missing.is_empty() {
            self.missing = Some((runner.missing.clone(), false));
        }
    }

    /// Tests target `i`'s mutants `mine` (its self-check first) and records what its tests
    /// reach.
    fn test_target(
        &mut self,
        i: usize,
        mine: &[&Numbered],
        results: &mut BTreeMap<u32, Tested>,
        on_result: &mut dyn FnMut(u32, &Tested),
    ) -> Result<(), PythonError> {
        let front = self.front;
        let c = &front.chosen[i];
        let pf = &front.project.files[c.file];
        let f = &pf.fns[c.func];
        let files = selection::suite(front);
        let mut timeout = self.cfg.test_timeout.unwrap_or(Duration::from_secs(5));
        if files.is_empty() || selection::ran_none(front) {
            // The session ran no test: no mutant is judged by one.
            not_reached(mine, results, on_result);
            self.reach.insert(i, Reach { files, reached: Some(0), timeout });
            return Ok(());
        }
        let spec = self.work.path().join(format!("runner-{}.json", c.file * 10_000 + c.func));
        let (mut runner, _) = self.runner(&files, &spec)?;
        // One traced baseline serves every function that shares the runner.
        let key = format!("{}:{}", pf.module, f.qualname);
        let base = match runner.traced.clone().filter(|b| b.reached.contains_key(&key)) {
            Some(b) => b,
            None => self.flaky.baseline(&mut runner, &self.place.traced, BASELINE_LIMIT)?,
        };
        let reached = Some(base.reached.get(&key).map_or(0, Vec::len));
        if base.status != "pass" {
            let failed =
                if base.failed.is_empty() { base.detail.clone() } else { base.failed.join(", ") };
            let function = c.target.qualified_name.clone();
            return Err(PythonError::BaselineFails { function, failed });
        }
        if self.cfg.test_timeout.is_none() {
            timeout = Defaults::test_timeout(Duration::from_secs_f64(base.time));
        }
        if reached == Some(0) {
            // No test of the session calls it: running them would judge nothing.
            not_reached(mine, results, on_result);
            self.runners.push((files.clone(), runner));
            self.reach.insert(i, Reach { files, reached, timeout });
            return Ok(());
        }
        // The function's own code, for the check of a new killer on the original.
        let original = self.function_patch(i, None);
        // Its self-check first (the first free runner takes it), then the other mutants.
        let ordered: Vec<&Numbered> = mine
            .iter()
            .filter(|m| m.self_check)
            .chain(mine.iter().filter(|m| !m.self_check))
            .copied()
            .collect();
        // `jobs` runners, each taking the next mutant when free, one thread each.
        let jobs = self.cfg.jobs.clamp(1, ordered.len().max(1));
        let mut runners = vec![runner];
        for j in 1..jobs {
            // A runner kept from an earlier function with the same tests has its baseline.
            if let Some(k) = self.runners.iter().position(|(t, _)| *t == files) {
                runners.push(self.runners.swap_remove(k).1);
                continue;
            }
            // A twin of the first, idle now, traced as it is.
            if let Some(r) = runners[0].twin() {
                runners.push(r);
                continue;
            }
            let spec =
                self.work.path().join(format!("runner-{}-{j}.json", c.file * 10_000 + c.func));
            let mut r = self.place.start(&spec, &files, 0)?;
            self.flaky.baseline(&mut r, &self.place.traced, BASELINE_LIMIT)?;
            runners.push(r);
        }
        let patches: Vec<(u32, Patch)> =
            ordered.iter().map(|m| (m.n, self.patch(i, &m.mutant))).collect();
        let deadline = self.deadline;
        let past =
            move || deadline.is_some_and(|d| Instant::now() >= d) || crate::interrupt::stopped();
        let flaky = &self.flaky;
        let job = |r: &mut Runner, patch: &Patch| {
            let first = r.run(Some(patch), timeout, false)?;
            let t = tested(&flaky.settle(r, patch, &original, first, timeout)?);
            // A run the interruption killed is no result.
            Ok((!crate::interrupt::stopped()).then_some(t))
        };
        let out = spread(&mut runners, &patches, &job, &past, &mut |n, t| {
            on_result(n, &t);
            results.insert(n, t);
        });
        if !crate::interrupt::stopped() {
            out?;
        }
        // Every runner is kept for the next function with the same tests.
        for r in runners {
            self.runners.push((files.clone(), r));
        }
        self.reach.insert(i, Reach { files, reached, timeout });
        Ok(())
    }

    /// What checking target `i`'s suggested tests `mine` against its `survivors` needs: their
    /// text and the file it goes in (in the scratch copy, named after its content: a runner
    /// collects a file once, and imports it as a module of that name, so a later round's tests
    /// of the same function need a new name), the function's test files and time limit, and
    /// each survivor's patch.
    fn check_plan(&self, i: usize, mine: &[&Suggestion], survivors: &[u32]) -> CheckPlan {
        let c = &self.front.chosen[i];
        let f = &self.front.project.files[c.file].fns[c.func];
        let text: Vec<&str> = mine.iter().map(|s| s.code.as_str()).collect();
        let text = text.join("\n\n");
        let file = PathBuf::from(format!(
            "test_abex_suggested_{}_{}.py",
            f.name.to_lowercase().trim_start_matches('_'),
            &crate::cache::key(&[text.as_bytes()])[..8]
        ));
        // Each survivor runs the tests that do not spare it (none: it is not run).
        let patches = survivors
            .iter()
            .filter_map(|&n| self.mutants.iter().find(|m| m.n == n))
            .filter_map(|m| {
                let run: Vec<String> = mine
                    .iter()
                    .filter(|s| !s.spared.contains(&m.n))
                    .map(|s| s.name.clone())
                    .collect();
                let every = run.len() == mine.len();
                (!run.is_empty()).then(|| (m.n, (self.patch_of(m), (!every).then_some(run))))
            })
            .collect();
        CheckPlan {
            target: i,
            file,
            text,
            tests: self.reach.get(&i).map(|r| r.files.clone()).unwrap_or_default(),
            timeout: self.reach.get(&i).map_or(Duration::from_secs(5), |r| r.timeout),
            patches,
        }
    }

    /// The runners of the function's tests (`tests`) a check uses: up to `jobs`, taken from
    /// those kept (none when none is kept).
    fn take_runners(&mut self, tests: &[PathBuf], survivors: usize) -> Vec<Runner> {
        let mut pool = Vec::new();
        while pool.len() < self.cfg.jobs.clamp(1, survivors.max(1)) {
            let Some(k) = self.runners.iter().position(|(t, _)| t == tests) else { break };
            pool.push(self.runners.swap_remove(k).1);
        }
        pool
    }

    /// Waits for the check started in the background ([`Lab::check_soon`]), keeps what it
    /// found and takes its runners back.
    fn settle_checking(&mut self) {
        let Some((plan, handle)) = self.checking.take() else { return };
        let (pool, found) = handle.join().unwrap_or_else(|_| {
            (Vec::new(), Err(RunnerError::Broken("a check thread panicked".into())))
        });
        self.runners.extend(pool.into_iter().map(|r| (plan.tests.clone(), r)));
        self.checked.push((plan, found));
    }

    /// Runs the suggested tests of target `i` on the original and on its `survivors`, all in
    /// one file: each one's verdict. A file that does not collect (a model-written test that
    /// imports what is not there) is checked again one test at a time, so that only the tests
    /// that break it are lost. What a background check ([`Lab::check_soon`]) found of the same
    /// tests and survivors is used, not run again.
    fn check_target(
        &mut self,
        i: usize,
        mine: &[&Suggestion],
        survivors: &[u32],
        verdicts: &mut BTreeMap<String, Verdict>,
    ) -> Result<(), PythonError> {
        self.settle_checking();
        let plan = self.check_plan(i, mine, survivors);
        let same = |(p, _): &(CheckPlan, _)| p.same(&plan);
        let found = match self.checked.iter().position(same) {
            Some(k) => self.checked.swap_remove(k).1,
            None => {
                // The runners of the function's tests collect the file in their parents;
                // without one, a runner of the file alone.
                let mut pool = self.take_runners(&plan.tests, survivors.len());
                let kept = !pool.is_empty();
                if !kept {
                    // It collects the file as it starts.
                    write(&self.place.scratch.join(&plan.file), &plan.text)?;
                    let spec = self.work.path().join("suggested.json");
                    pool.push(self.place.start_files(&spec, std::slice::from_ref(&plan.file))?);
                }
                let found = plan.run(&mut pool, &self.place.scratch);
                if kept {
                    self.runners.extend(pool.into_iter().map(|r| (plan.tests.clone(), r)));
                }
                found?
            }
        };
        let (base, killed_by) = found?;
        let uncollected = uncollected(&base);
        if uncollected && mine.len() > 1 {
            for s in mine {
                self.check_target(i, std::slice::from_ref(s), survivors, verdicts)?;
            }
            return Ok(());
        }
        let node = |name: &str| format!("{}::{name}", plan.file.display());
        for s in mine {
            let id = node(&s.name);
            // A parametrised test's cases are `id[…]`: one failing case fails the test.
            let case = format!("{id}[");
            let is_it = |failed: &String| *failed == id || failed.starts_with(&case);
            let verdict = if uncollected {
                Verdict::DoesNotCompile(bounded(&base.detail))
            } else if base.status == "timeout" {
                Verdict::FailsOnOriginal("the test ran past its time limit".into())
            } else if let Some(failed) = base.failed.iter().find(|f| is_it(f)) {
                let why =
                    base.messages.get(failed).cloned().unwrap_or_else(|| base.message.clone());
                Verdict::FailsOnOriginal(bounded(&why))
            } else {
                let killed = killed_by
                    .iter()
                    .filter(|(_, failed)| failed.iter().any(is_it))
                    .map(|(n, _)| *n)
                    .collect();
                Verdict::Passed(killed)
            };
            verdicts.insert(s.name.clone(), verdict);
        }
        Ok(())
    }

    /// The function each mutant mutates, by number.
    fn mutated(&self) -> BTreeMap<u32, usize> {
        self.mutants.iter().map(|m| (m.n, m.target)).collect()
    }
}

/// What one check of suggested tests found: the run on the original, and per survivor the
/// tests that failed on it.
type Found = Result<(RunResult, BTreeMap<u32, Vec<String>>), RunnerError>;

/// A check running on a thread: its plan, and the thread, which gives back its runners.
type Checking = (CheckPlan, JoinHandle<(Vec<Runner>, Found)>);

/// One function's suggested tests to check (see [`PythonLab::check_plan`]).
#[derive(Clone)]
struct CheckPlan {
    target: usize,
    file: PathBuf,
    text: String,
    tests: Vec<PathBuf>,
    timeout: Duration,
    /// Per survivor run, its patch and the tests it runs when not all (the others spare it).
    patches: Vec<(u32, SurvivorCheck)>,
}

impl CheckPlan {
    /// Whether `other` checks the same tests against the same survivors.
    fn same(&self, other: &CheckPlan) -> bool {
        let survivors = |p: &CheckPlan| p.patches.iter().map(|(n, _)| *n).collect::<Vec<_>>();
        self.target == other.target
            && self.file == other.file
            && survivors(self) == survivors(other)
    }

    /// Writes the file into `scratch` and runs it ([`CheckPlan::run_written`]); removes the
    /// file afterwards.
    fn run(&self, pool: &mut [Runner], scratch: &Path) -> Result<Found, PythonError> {
        write(&scratch.join(&self.file), &self.text)?;
        let found = self.run_written(pool);
        let _ = std::fs::remove_file(scratch.join(&self.file));
        Ok(found)
    }

    /// Runs the file on the original, then, unless it does not collect or runs past its time
    /// limit, on each survivor, the survivors shared among `pool` as the mutants are.
    fn run_written(&self, pool: &mut [Runner]) -> Found {
        let files = std::slice::from_ref(&self.file);
        let base = pool[0].run_files(None, self.timeout, files)?;
        let mut killed_by = BTreeMap::new();
        if !uncollected(&base) && base.status != "timeout" && !self.patches.is_empty() {
            // One batch per runner, the survivors dealt out in turn.
            let lanes = pool.len().clamp(1, self.patches.len());
            let batches: Vec<(u32, Vec<(u32, SurvivorCheck)>)> = (0..lanes)
                .map(|k| (k as u32, self.patches.iter().skip(k).step_by(lanes).cloned().collect()))
                .collect();
            let job = |r: &mut Runner, batch: &Vec<(u32, SurvivorCheck)>| {
                Ok(Some(r.run_checks(self.timeout, files, batch)?))
            };
            spread(pool, &batches, &job, &|| false, &mut |_, failed_by| {
                killed_by.extend(failed_by);
            })?;
        }
        Ok((base, killed_by))
    }
}

/// Whether a run of suggested tests says their file does not collect.
fn uncollected(base: &RunResult) -> bool {
    base.status == "fail" && base.failed.is_empty() && !base.detail.is_empty()
}

impl Lab for PythonLab<'_> {
    fn skips_spared(&self) -> bool {
        true
    }

    fn params(&mut self, i: usize) -> Option<Vec<Param>> {
        if let Some(known) = self.learnt.get(&i) {
            return known.clone();
        }
        let front = self.front;
        let c = &front.chosen[i];
        let pf = &front.project.files[c.file];
        let f = &pf.fns[c.func];
        let mut got = None;
        let r = super::types::Resolver { index: &front.project.index };
        if seeds::wanted(f) {
            let seen = self.seen(&format!("{}:{}", pf.module, f.qualname));
            got = seeds::learnt(f, &seen, &r);
        }
        // The classes it takes, typed and seeded from what the tests pass their constructors.
        let mut learnt = got.clone().unwrap_or_else(|| f.params.clone());
        let mut taught = false;
        for (name, ctor) in seeds::constructors(f) {
            let Some((file, init)) = init_of(&front.project, &name, &ctor) else { continue };
            let seen =
                self.seen(&format!("{}:{}", front.project.files[file].module, init.qualname));
            taught |= seeds::learnt_ctor(&mut learnt, &name, &ctor, init, &seen, &r);
        }
        if taught {
            got = Some(learnt);
        }
        self.learnt.insert(i, got.clone());
        if got.is_some() && self.restart_explorer().is_err() {
            self.learnt.insert(i, None);
            return None;
        }
        got
    }

    fn uncallable(&self, i: usize) -> Option<Uncallable> {
        let id = self.driven.iter().position(|&d| d == i)?;
        let mut unloaded = self.unloaded.borrow_mut();
        let map = unloaded.get_or_insert_with(|| {
            // A worker that does not start says so when it is first called.
            let hello = self.explorer.borrow_mut().greeting().unwrap_or_default();
            let v: serde_json::Value = serde_json::from_str(&hello).unwrap_or_default();
            v.get("unloaded")
                .and_then(|u| u.as_object())
                .map(|u| {
                    u.iter()
                        .filter_map(|(k, r)| Some((k.parse().ok()?, r.as_str()?.to_string())))
                        .collect()
                })
                .unwrap_or_default()
        });
        let reason = map.get(&id)?.clone();
        Some(Uncallable { reason, not_compiled: false })
    }

    fn test_count(&mut self) -> usize {
        let p = &self.front.project;
        let files = p.tests.iter().filter(|t| t.file_name().is_some_and(|n| n != "conftest.py"));
        files.count() + p.doctests.len()
    }

    fn reached_by(&self, i: usize) -> Option<usize> {
        self.reach.get(&i).and_then(|r| r.reached)
    }

    fn test_tool(&self, i: usize) -> String {
        let Some(r) = self.reach.get(&i) else {
            return "pytest in a forked runner: the tests of the session".to_string();
        };
        if r.files.is_empty() || selection::ran_none(self.front) {
            return "pytest in a forked runner: the session ran no test".to_string();
        }
        let mut files =
            r.files.iter().map(|t| t.display().to_string()).collect::<Vec<_>>().join(", ");
        let left_out: Vec<&str> = self.dropped.keys().map(String::as_str).collect();
        if !left_out.is_empty() {
            files.push_str(&format!(
                " (left out, as they do not collect in abex's runner: {})",
                left_out.join(", ")
            ));
        }
        let of = match &self.front.session.node_ids {
            Some(ids) => format!("the session's {} tests (collected from {files})", ids.len()),
            None => files,
        };
        match r.reached {
            None => format!("pytest in a forked runner: {of}"),
            Some(n) => format!(
                "pytest in a forked runner: {n} tests that call the function (per-test call tracing) of {of}"
            ),
        }
    }

    fn test(
        &mut self,
        numbers: &[u32],
        on_result: &mut dyn FnMut(u32, &Tested),
    ) -> Result<BTreeMap<u32, Tested>, RunError> {
        let mut results = BTreeMap::new();
        let mut order: Vec<usize> = Vec::new();
        for m in self.mutants.iter().filter(|m| numbers.contains(&m.n)) {
            if !order.contains(&m.target) {
                order.push(m.target);
            }
        }
        order.sort_unstable();
        for i in order {
            let mine: Vec<Numbered> = self
                .mutants
                .iter()
                .filter(|m| m.target == i && numbers.contains(&m.n))
                .cloned()
                .collect();
            let mine: Vec<&Numbered> = mine.iter().collect();
            if crate::interrupt::stopped() {
                break;
            }
            self.test_target(i, &mine, &mut results, on_result).map_err(front_err)?;
        }
        Ok(results)
    }

    fn evaluator(&mut self, i: usize) -> Result<Box<dyn Evaluate>, RunError> {
        let id = self.driven.iter().position(|&d| d == i).unwrap_or(usize::MAX);
        Ok(Box::new(SharedWorker { worker: self.explorer.clone(), id }))
    }

    fn tracer(
        &mut self,
        i: usize,
        driver: usize,
    ) -> Result<Option<Box<dyn ProbeEvaluate>>, RunError> {
        // A function that drives itself is traced by the explorer's worker (see
        // `explorer_specs`): no interpreter to start and no project to import again.
        if i == driver {
            if let Some(k) = self.driven.iter().position(|&d| d == i) {
                let id = self.driven.len() + k;
                return Ok(Some(Box::new(SharedWorker { worker: self.explorer.clone(), id })));
            }
        }
        // One driven through a caller: a worker of its own.
        let learnt = self.learnt.get(&driver).cloned().flatten();
        let t = traced_spec(self.front, &self.place.scratch, i, driver, learnt.as_deref());
        let w = self.worker("tracer.json", &[t]).map_err(front_err)?;
        Ok(Some(Box::new(SharedWorker { worker: Rc::new(RefCell::new(w)), id: 0 })))
    }

    fn mutant(&mut self, i: usize, n: u32) -> Result<Box<dyn ProbeEvaluate>, RunError> {
        if !self.witnesses.as_ref().is_some_and(|w| w.called.contains(&(i, Some(n)))) {
            self.prepare_witnesses(&[(i, vec![n])])?;
        }
        let w = self.witnesses.as_ref().expect("prepared above");
        let pooled = w.target(i, Some(n), 0).expect("prepared above");
        Ok(Box::new(pooled))
    }

    fn witness_workers(
        &mut self,
        i: usize,
        survivors: &[u32],
        threads: usize,
    ) -> Result<Option<WitnessWorkers>, RunError> {
        let prepared = |w: &Witnesses| survivors.iter().all(|&n| w.called.contains(&(i, Some(n))));
        if !self.witnesses.as_ref().is_some_and(prepared) {
            self.prepare_witnesses(&[(i, survivors.to_vec())])?;
        }
        let w = self.witnesses.as_ref().expect("prepared above");
        // Each thread's original starts on a worker of its own; a survivor's mutant goes to
        // the first free worker (the searching thread's own, as the other thread is busy on
        // its own).
        let workers = w.pool.len();
        let originals = (0..threads.max(1)).filter_map(|t| w.target(i, None, t % workers));
        let mutants = survivors.iter().enumerate().filter_map(|(k, &n)| w.target(i, Some(n), k));
        Ok(Some(WitnessWorkers {
            originals: originals.map(|p| Box::new(p) as _).collect(),
            mutants: mutants.map(|p| Box::new(p) as _).collect(),
        }))
    }

    fn searches_while_testing(&self, mutants: usize) -> bool {
        mutants <= SEARCH_WHILE_TESTING_AT_MOST
    }

    fn prepare_witnesses(&mut self, groups: &[(usize, Vec<u32>)]) -> Result<(), RunError> {
        // Workers that call every survivor of the unit and the functions they are called
        // through (one interpreter start and one import of the project per worker, not one
        // per function), one per job: a search on several threads has one per thread. Their
        // target `k` is the `k`-th (function called, survivor)'s mutant, or the function.
        let (called, specs) = self.witness_specs(groups);
        // Those prepared already (before the tests, on every mutant that may survive) serve
        // when they hold every target with the same spec (the parameters learnt, the patch).
        let serves = |w: &Witnesses| {
            called.iter().zip(&specs).all(|(c, spec)| {
                w.called.iter().position(|x| x == c).is_some_and(|k| w.specs[k] == *spec)
            })
        };
        if self.witnesses.as_ref().is_some_and(serves) {
            return Ok(());
        }
        // A spec file named after its content: workers of an earlier one may still be reading
        // theirs.
        let text = serde_json::to_string(&specs).unwrap_or_default();
        let file = format!("mutants-{}.json", &crate::cache::key(&[text.as_bytes()])[..12]);
        let first = self.worker(&file, &specs).map_err(front_err)?;
        let mut workers: Vec<Worker> = (1..self.cfg.jobs.max(1)).map(|_| first.sibling()).collect();
        workers.insert(0, first);
        let pool: Pool = Arc::new(workers.into_iter().map(Mutex::new).collect());
        // Each worker starts at once on a thread of its own, which holds it until it greets
        // (a worker that does not start says so on its first call, as any): the interpreter's
        // start and the project's import run beside the tests, or the searches of another one.
        for k in 0..pool.len() {
            let pool = pool.clone();
            std::thread::spawn(move || {
                if let Ok(mut w) = pool[k].lock() {
                    let _ = w.greeting();
                }
            });
        }
        self.witnesses = Some(Witnesses { called, specs, pool });
        Ok(())
    }

    fn suggest(&self, i: usize, w: &Witness, name: &str, why: &str) -> Vec<String> {
        self.with_callee(i, |callee| suggest::candidates(callee, w, name, why))
    }

    fn name_parts<'w>(&self, i: usize, w: &'w Witness) -> (String, &'w [Value]) {
        let c = &self.front.chosen[i];
        let f = &self.front.project.files[c.file].fns[c.func];
        let function = format!("test_{}", crate::testname::snake(&f.qualname));
        // The arguments the call writes (defaults at the end left out), and so the name.
        let end = self.with_callee(i, |callee| callee.written(&w.input));
        let args = match w.input.get(1..end) {
            Some(rest) if f.receiver && !rest.is_empty() => rest,
            _ => &w.input[..end],
        };
        (function, args)
    }

    fn joined(
        &self,
        i: usize,
        cases: &[&Witness],
        name: &str,
        why: &str,
        parametrised: bool,
    ) -> Option<String> {
        self.with_callee(i, |callee| suggest::joined(callee, cases, name, why, parametrised))
    }

    fn parametrises(&self) -> bool {
        self.front.project.parametrises()
    }

    fn check(
        &mut self,
        suggestions: &[Suggestion],
        survivors: &[u32],
    ) -> Result<BTreeMap<String, Verdict>, RunError> {
        // Grouped by the function the survivors mutate (a suggested test may call another
        // function, the one that drives it): its tests are checked against its own survivors.
        let targets = self.mutated();
        let mutated = |n: u32| targets.get(&n).copied();
        let mut order: Vec<usize> = suggestions.iter().filter_map(|s| mutated(s.mutant)).collect();
        order.dedup();
        let mut kills = BTreeMap::new();
        for i in order {
            if self.past_deadline() {
                break;
            }
            let mine: Vec<&Suggestion> =
                suggestions.iter().filter(|s| mutated(s.mutant) == Some(i)).collect();
            let own: Vec<u32> =
                survivors.iter().copied().filter(|n| mutated(*n) == Some(i)).collect();
            self.check_target(i, &mine, &own, &mut kills).map_err(front_err)?;
        }
        Ok(kills)
    }

    fn check_soon(&mut self, suggestions: &[Suggestion], survivors: &[u32]) {
        // One function's tests, whose runners are free: they run on a thread of their own
        // while the next function's witnesses are searched (on the survivors' worker).
        let targets = self.mutated();
        let Some(&i) = suggestions.first().and_then(|s| targets.get(&s.mutant)) else { return };
        if suggestions.iter().any(|s| targets.get(&s.mutant) != Some(&i)) || self.past_deadline() {
            return;
        }
        self.settle_checking();
        let own: Vec<u32> =
            survivors.iter().copied().filter(|n| targets.get(n) == Some(&i)).collect();
        let mine: Vec<&Suggestion> = suggestions.iter().collect();
        let plan = self.check_plan(i, &mine, &own);
        let mut pool = self.take_runners(&plan.tests, own.len());
        if pool.is_empty() {
            return;
        }
        let (work, scratch) = (plan.clone(), self.place.scratch.clone());
        let handle = std::thread::spawn(move || {
            // A file that cannot be written: the check runs again, and says so, when asked.
            let found = work
                .run(&mut pool, &scratch)
                .unwrap_or_else(|e| Err(RunnerError::Broken(e.to_string())));
            (pool, found)
        });
        self.checking = Some((plan, handle));
    }

    fn add(&mut self, fresh: &[Numbered]) -> Result<(), RunError> {
        self.mutants.extend(fresh.iter().cloned());
        Ok(())
    }

    fn warnings(&mut self) -> Vec<String> {
        let mut out = self.flaky.warnings();
        if let Some((ids, said)) = &mut self.missing {
            // Those of a file that does not collect have a warning of their own, below.
            let dropped = &self.dropped;
            ids.retain(|id| !dropped.contains_key(id.split("::").next().unwrap_or(id)));
            if !*said && !ids.is_empty() {
                *said = true;
                let shown: Vec<&str> = ids.iter().take(5).map(String::as_str).collect();
                let more = ids.len().saturating_sub(shown.len());
                let more = if more > 0 { format!(" and {more} more") } else { String::new() };
                out.push(format!(
                    "abex's test runner did not collect {} of the tests this session ran, so they judge no mutant: {}{more}\nhint: run `pytest` with the same options in `.abex/scratch/python` (the copy abex runs the tests in) to see why",
                    ids.len(),
                    shown.join(", ")
                ));
            }
        }
        for (file, (error, said)) in &mut self.dropped {
            if !*said {
                *said = true;
                out.push(format!(
                    "`{file}` does not collect in abex's test runner, so its tests are left out of the mutants' runs: {error}\nhint: run `pytest {file}` in `.abex/scratch/python` (the copy abex runs the tests in) to see why"
                ));
            }
        }
        out
    }
}

/// The `__init__` of constructor `ctor` of the built type `name` (`module.Class`) in the
/// project, with the index of its file: a class's own, not one it inherits.
fn init_of<'p>(
    project: &'p super::project::Project,
    name: &str,
    ctor: &str,
) -> Option<(usize, &'p super::source::PyFn)> {
    let qualname = format!("{ctor}.__init__");
    project.files.iter().enumerate().find_map(|(n, pf)| {
        let own = name.strip_prefix(pf.module.as_str())?.strip_prefix('.')? == ctor;
        let init = pf.fns.iter().find(|f| f.qualname == qualname);
        own.then_some(init).flatten().map(|f| (n, f))
    })
}
