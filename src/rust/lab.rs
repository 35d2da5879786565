//! A built crate target, the spine's [`Lab`] for Rust: the harness and every mutant compiled
//! into one scratch build behind runtime switches (mutants that do not compile together get a
//! build of their own), its test binaries run on the baseline and on each mutant (doc-tests too
//! for survivors), evaluators of the original and of any mutant, and suggested tests built next
//! to their functions and run on the original and on each survivor.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::exec::shared::{HungSplit, OwnedWorker, SharedWorker};
use crate::exec::worker::{Hung, Worker, WorkerSpec};
use crate::exec::{Evaluate, ProbeEvaluate};
use crate::mutate::Operator;
use crate::pipeline::{
    bounded, Lab, Numbered, RunConfig, RunError, Suggestion, Tested, Uncallable, Unit, Verdict,
    WitnessWorkers,
};
use crate::report::{MutantStatus, Witness};
use crate::rust::cargo::Build;
use crate::rust::doctests::{Recorded, Recording};
use crate::rust::early::{self, BaselineSpec, Done, Early, BASELINE_LIMIT};
use crate::rust::error::RustError;
use crate::rust::harness::{self, Harness, HarnessRequest, Host, Part};
use crate::rust::reach::Selection;
use crate::rust::source::{CallPlan, Callee};
use crate::rust::suite::{self, DocTests, TestResult, TestSuite};
use crate::rust::workspace::Selected;
use crate::rust::{harness::wrapper, suggest, unviable};
use crate::targets::Param;
use crate::value::{Ty, Value};
use crate::witness::Hints;

/// One crate target's builds and tests.
pub struct RustLab<'a> {
    front: &'a Selected,
    cfg: &'a RunConfig,
    deadline: Option<Instant>,
    /// The crate target (index into the workspace's crates).
    krate: usize,
    /// The targets of the unit that the harness calls; a target's harness id is its position.
    driven: Vec<usize>,
    /// Every mutant built so far (every round).
    mutants: Vec<Numbered>,
    /// The builds: the first holds the harness and the first round's mutants; each feedback
    /// round adds one.
    builds: Vec<Harness>,
    /// The build that switches each mutant.
    build_of: BTreeMap<u32, usize>,
    /// Mutants built alone (they cannot be switched with the others), each with its own
    /// harness executable.
    alone: BTreeMap<u32, Harness>,
    /// Mutants whose own code does not compile (the switched build's error named them alone),
    /// with the compiler's message: unviable without a build of their own.
    unviable: BTreeMap<u32, String>,
    /// The worker that runs the originals (exploration, witnesses).
    original: Rc<RefCell<Worker>>,
    /// The functions any of the lab's workers saw hang, which all of them know.
    hung: Hung,
    scratch: PathBuf,
    /// The target folder of every build of the run (see [`RustLab::build`]).
    target: PathBuf,
    /// The time limit of one mutant's tests, once the baseline ran.
    timeout: Option<Duration>,
    /// Whether a timeout is run again alone before it counts (see `Baseline::retry_timeouts`).
    retry_timeouts: bool,
    /// Tests that failed on the original, or were checked to pass on it: (runs that failed,
    /// runs). One that failed is flaky: it kills no mutant and is left out of later runs.
    flaky: RefCell<BTreeMap<String, (usize, usize)>>,
    /// The flaky tests the run was told of.
    told: std::collections::BTreeSet<String>,
    /// The tests each mutant of the first build runs, from the baseline's trace.
    select: Option<Arc<Selection>>,
    /// The baseline and the first build's mutants' tests, running since the build was done.
    early: Option<Early>,
    /// What those runs gave, by mutant, until the pipeline asks for it.
    early_results: RefCell<BTreeMap<u32, (TestResult, Duration)>>,
    /// The first build's doc-tests, recorded in the background since its tests were built,
    /// until its survivors need them.
    early_docs: RefCell<Option<Recording>>,
    /// Whether the first build's doc-tests pass on the original, once recorded.
    docs_pass: std::cell::Cell<Option<bool>>,
    /// Whether the crate's root is `no_std`, once read ([`RustLab::suggest_crate`]).
    no_std: std::cell::OnceCell<bool>,
    /// The first build's test binaries were built after its harness, in the background.
    tests_later: bool,
    /// Why the baseline failed, when it was found out before the pipeline asked for the tests.
    failed: Option<RustError>,
}

fn front_err(e: impl Into<RustError>) -> RunError {
    RunError::front(e.into())
}

fn tested(r: &TestResult, time: Duration) -> Tested {
    match r {
        TestResult::Pass => {
            Tested { status: MutantStatus::Survived, killed_by: None, failure: None, time }
        }
        TestResult::Fail { test, output } => Tested {
            status: MutantStatus::Killed,
            killed_by: Some(test.clone()),
            failure: Some(suite::failure_of(output, test)),
            time,
        },
        TestResult::Timeout => {
            Tested { status: MutantStatus::Timeout, killed_by: None, failure: None, time }
        }
    }
}

impl<'a> RustLab<'a> {
    /// Builds `unit`'s harness with `mutants` switched in, in the unit's scratch copy
    /// (`.abex/scratch/<package>-<kind>/tree`). Every build of the run, of any unit and of the
    /// copy that mutants built alone use, shares one target folder, `.abex/scratch/target`, kept
    /// between runs: dependencies are compiled once, and the next run compiles only the crates
    /// whose sources changed.
    pub fn build(
        front: &'a Selected,
        cfg: &'a RunConfig,
        unit: &Unit,
        mutants: &[Numbered],
        deadline: Option<Instant>,
    ) -> Result<RustLab<'a>, RustError> {
        let krate = front.chosen[unit.targets[0]].krate;
        let ct = &front.ws.crates[krate];
        let kind = match &ct.host {
            Host::Lib { .. } => "lib".to_string(),
            Host::Bin { name } => format!("bin-{name}"),
        };
        let scratch_root = front.ws.root.join(".abex").join("scratch");
        let scratch = scratch_root.join(format!("{}-{kind}", ct.package));
        let targets: Vec<_> = front.chosen.iter().map(|c| c.target.clone()).collect();
        let driven = unit.callable(&targets);
        let numbers: Vec<u32> = mutants.iter().map(|m| m.n).collect();
        let mut lab = RustLab {
            front,
            cfg,
            deadline,
            krate,
            driven,
            mutants: mutants.to_vec(),
            builds: Vec::new(),
            build_of: BTreeMap::new(),
            alone: BTreeMap::new(),
            unviable: BTreeMap::new(),
            hung: Hung::default(),
            original: Rc::new(RefCell::new(Worker::new(WorkerSpec {
                program: PathBuf::new(),
                args: Vec::new(),
                env: Vec::new(),
                cwd: PathBuf::new(),
                call_timeout: cfg.call_timeout,
                memory_limit: cfg.memory_limit(),
            }))),
            scratch,
            target: scratch_root.join("target"),
            timeout: None,
            retry_timeouts: true,
            flaky: RefCell::new(BTreeMap::new()),
            told: Default::default(),
            select: None,
            early: None,
            early_results: RefCell::new(BTreeMap::new()),
            early_docs: RefCell::new(None),
            docs_pass: std::cell::Cell::new(None),
            no_std: std::cell::OnceCell::new(),
            tests_later: false,
            failed: None,
        };
        // Executables kept by earlier runs are not needed any more.
        for dir in [&lab.scratch, &lab.single_scratch()] {
            let _ = std::fs::remove_dir_all(dir.join("exe"));
        }
        // Body values the crate's sources show cannot compile are unviable without costing a
        // failed round of the build.
        let asks: Vec<unviable::Ask<'_>> = mutants
            .iter()
            .filter(|m| m.mutant.operator == Operator::ReplaceBody)
            .map(|m| {
                let f = front.found(m.target);
                let replacement = m.mutant.replacement.as_str();
                unviable::Ask { n: m.n, file: &f.file, body: f.body_span, replacement }
            })
            .collect();
        lab.unviable = unviable::refused(&ct.sources, &asks, &ct.edition);
        let numbers: Vec<u32> =
            numbers.into_iter().filter(|n| !lab.unviable.contains_key(n)).collect();
        // The harness first, its tests in the background: the pipeline explores while their
        // dependencies compile. Where an earlier unit of the run built these packages' tests,
        // only the crates of the workspace are left to compile: harness and tests in one cargo
        // call compile side by side (humantime-serde after humantime: 1.6 s + 1.2 s -> 1.2 s).
        let mut req = lab.request(&numbers, Vec::new(), BTreeMap::new());
        let packages: Vec<String> =
            std::iter::once(ct.package.clone()).chain(req.test_packages.clone()).collect();
        let warm = packages.iter().all(|p| front.tests_built.borrow().contains(p));
        req.what = match cfg.mutate && !warm {
            true => Build::HarnessFirst,
            false => Build::All,
        };
        if cfg.mutate {
            front.tests_built.borrow_mut().extend(packages);
        }
        let mut built = harness::build(&req)?;
        let pending = built.pending.take();
        lab.tests_later = pending.is_some();
        lab.original = Rc::new(RefCell::new(lab.worker(&built, None)));
        lab.place(&numbers, &built, 0);
        lab.builds.push(built);
        if cfg.mutate {
            // The tests, the baseline and the mutants' runs start now, while the pipeline
            // explores.
            let first: Vec<u32> = numbers
                .iter()
                .copied()
                .filter(|n| lab.build_of.get(n) == Some(&0))
                .filter(|n| lab.mutants.iter().any(|m| m.n == *n && !lab.not_compiled(m.target)))
                .collect();
            let suite = lab.suite(&lab.builds[0]);
            let spec = lab.baseline_spec();
            let docs = Some((lab.doc_tests_of(0), lab.scratch.join("doctests")));
            lab.early = Some(Early::start(pending, suite, spec, first, cfg.jobs, deadline, docs));
        }
        Ok(lab)
    }

    /// The harness request of this unit with the `switched` mutants and `inserts`.
    fn request(
        &self,
        switched: &[u32],
        inserts: Vec<(PathBuf, usize, String)>,
        known_dropped: BTreeMap<Part, String>,
    ) -> HarnessRequest<'_> {
        let ct = &self.front.ws.crates[self.krate];
        let fns = self.driven.iter().map(|&i| self.front.found(i)).collect();
        let mut req = ct.harness_request(&self.front.ws.root, fns, &self.scratch);
        req.target_dir = self.target.clone();
        req.cargo_flags = &self.front.ws.cargo_flags;
        req.switches = self
            .mutants
            .iter()
            .filter(|m| switched.contains(&m.n))
            .map(|m| (m.n, &m.mutant))
            .collect();
        req.inserts = inserts;
        req.known_dropped = known_dropped;
        if self.cfg.mutate {
            req.test_packages = self.front.test_packages(&ct.package);
        }
        req
    }

    /// Records the verdicts a build and a run of the suggested tests on the original give:
    /// a test dropped from `built` does not compile, one in `on_original`'s failures (or any,
    /// when that run hung) fails on the original, the others pass so far (no kill yet). A
    /// verdict already given stands.
    fn judge_on_original(
        &self,
        suggestions: &[Suggestion],
        built: &Harness,
        on_original: Option<&(Vec<String>, String)>,
        verdicts: &mut BTreeMap<String, Verdict>,
    ) {
        for (k, sug) in suggestions.iter().enumerate() {
            let path = suggest::test_path(self.front.found(sug.calls), &sug.name);
            // The test, or the first of its cases (a table), that failed on the original.
            let failed = on_original.and_then(|(failed, output)| {
                let name = failed.iter().find(|f| suggest::is_case_of(f, &path))?;
                Some((name, output))
            });
            let verdict = match (built.dropped.get(&Part::Insert(k)), on_original, failed) {
                (Some(error), _, _) => Verdict::DoesNotCompile(bounded(error)),
                (None, None, _) => {
                    Verdict::FailsOnOriginal("the tests ran past their time limit".into())
                }
                (None, Some(_), Some((name, output))) => {
                    Verdict::FailsOnOriginal(bounded(&suite::failure_of(output, name)))
                }
                (None, Some(_), None) => Verdict::Passed(Vec::new()),
            };
            verdicts.entry(sug.name.clone()).or_insert(verdict);
        }
    }

    /// Records which of `numbers` build `index` switches (the others are built alone, but for
    /// those whose own code the compiler refused there: they are unviable as they are).
    fn place(&mut self, numbers: &[u32], built: &Harness, index: usize) {
        for &n in numbers {
            match built.dropped.get(&Part::Mutant(n)) {
                None => {
                    self.build_of.insert(n, index);
                }
                Some(reason) if built.unviable.contains(&n) => {
                    self.unviable.insert(n, reason.clone());
                }
                Some(_) => {}
            }
        }
    }

    /// A worker of build `h` (with `mutant` active), sharing what the lab's workers know of
    /// the functions that hang (`Worker::sharing_hung`).
    fn worker(&self, h: &Harness, mutant: Option<u32>) -> Worker {
        Worker::new(WorkerSpec {
            program: h.exe.clone(),
            args: Vec::new(),
            env: mutant
                .map(|n| vec![("ABEX_MUTANT".to_string(), n.to_string())])
                .unwrap_or_default(),
            cwd: h.cwd.clone(),
            call_timeout: self.cfg.call_timeout,
            memory_limit: self.cfg.memory_limit(),
        })
        .sharing_hung(&self.hung)
    }

    /// A worker of mutant `n`: a switched one's runs in probe mode (its site reports reach and
    /// infection); one built alone has no probes.
    fn mutant_worker(&self, n: u32) -> Worker {
        match (self.alone.get(&n), self.build_of.get(&n)) {
            (Some(h), _) => self.worker(h, None),
            (None, Some(&b)) => {
                let h = &self.builds[b];
                self.worker(h, Some(n)).with_env(h.probe_env(n))
            }
            (None, None) => self.worker(&self.builds[0], Some(n)),
        }
    }

    fn package(&self) -> &str {
        &self.front.ws.crates[self.krate].package
    }

    fn suite(&self, h: &Harness) -> TestSuite {
        // The user's `--skip-test`s, and the tests found flaky.
        let flaky = self.flaky.borrow();
        let flaky = flaky.iter().filter(|(_, r)| r.0 > 0).map(|(t, _)| t.clone());
        TestSuite {
            binaries: h.tests.clone(),
            skip: self.front.ws.skip_tests.iter().cloned().chain(flaky).collect(),
            memory_limit: self.cfg.memory_limit(),
            select: None,
            reach_dir: None,
            originals: Default::default(),
        }
    }

    /// Whether to start no more work: the time budget is spent or the run was interrupted.
    fn past_deadline(&self) -> bool {
        self.deadline.is_some_and(|d| Instant::now() >= d) || crate::interrupt::stopped()
    }

    /// The time limit of a mutant's tests; the first call takes the baseline (see `early.rs`),
    /// and the first build's mutants' results with it.
    fn timeout(&mut self) -> Result<Duration, RustError> {
        if let Some(e) = self.failed.take() {
            return Err(e);
        }
        if let Some(t) = self.timeout {
            return Ok(t);
        }
        let (base, results) = match self.early.take().and_then(Early::finish) {
            Some(Done::Ran { tests, baseline, results, docs }) => {
                if let Some(tests) = tests {
                    self.builds[0].tests = tests;
                }
                *self.early_docs.borrow_mut() = docs;
                (baseline, results)
            }
            // The tests did not build after the harness: the first build again, all in one
            // call (its loop drops what does not compile), then the baseline here.
            Some(Done::TestsFailed(_)) | None => {
                if std::mem::take(&mut self.tests_later) {
                    self.rebuild_first()?;
                }
                let base = early::baseline(&self.suite(&self.builds[0]), &self.baseline_spec());
                (base, BTreeMap::new())
            }
        };
        let base = base?;
        *self.early_results.borrow_mut() = results;
        self.flaky.borrow_mut().extend(base.flaky);
        self.select = base.select;
        self.timeout = Some(base.timeout);
        self.retry_timeouts = base.retry_timeouts;
        Ok(base.timeout)
    }

    /// Builds the first build's harness and tests again in one call, its mutants switched as
    /// far as they compile (the others are built alone).
    fn rebuild_first(&mut self) -> Result<(), RustError> {
        let numbers: Vec<u32> =
            self.build_of.iter().filter(|(_, b)| **b == 0).map(|(n, _)| *n).collect();
        let built =
            harness::build(&self.request(&numbers, Vec::new(), self.builds[0].dropped.clone()))?;
        self.build_of.retain(|_, b| *b != 0);
        self.place(&numbers, &built, 0);
        self.builds[0] = built;
        Ok(())
    }

    /// What the baseline of the first build needs: its mutants by function, where it records
    /// the sites its tests reach.
    fn baseline_spec(&self) -> BaselineSpec {
        let mut by_function: BTreeMap<usize, Vec<u32>> = BTreeMap::new();
        for m in self.mutants.iter().filter(|m| self.build_of.get(&m.n) == Some(&0)) {
            by_function.entry(m.target).or_default().push(m.n);
        }
        BaselineSpec {
            package: self.package().to_string(),
            reach_dir: self.scratch.join("reach"),
            functions: by_function.into_values().collect(),
            fixed_timeout: self.cfg.test_timeout,
        }
    }

    /// The plan the first build calls target `i` with (the instantiation `wrapper::chosen`
    /// picks: compiled, its arguments buildable), and the value types of its parameters
    /// without the constructors that did not compile.
    fn built_plan(&self, i: usize) -> Option<(&CallPlan, Result<Vec<Ty>, String>)> {
        let id = self.driven.iter().position(|&d| d == i)?;
        let dropped = &self.builds.first()?.dropped;
        let f = self.front.found(i);
        let book = &self.front.krate(i).sources.book;
        let (_, plan) = wrapper::chosen(f, &|k| dropped.contains_key(&Part::Inst(id, k)), &|p| {
            harness::buildable(book, p, dropped)
        })?;
        let keep = harness::kept_constructors(dropped);
        let tys = plan.args.iter().map(|a| book.expand(&a.ty, &keep)).collect();
        Some((plan, tys))
    }

    /// Whether target `i`'s code is not compiled under the current features.
    fn not_compiled(&self, i: usize) -> bool {
        self.uncallable(i).is_some_and(|u| u.not_compiled)
    }

    /// Tests the mutants switched in build `b`; survivors meet the doc-tests too. `on_result`
    /// hears each final result as it comes (a survivor's after its doc-tests).
    fn test_switched(
        &self,
        b: usize,
        numbers: &[u32],
        timeout: Duration,
        results: &mut BTreeMap<u32, Tested>,
        on_result: &mut dyn FnMut(u32, &Tested),
    ) {
        let mut suite = self.suite(&self.builds[b]);
        if b == 0 {
            suite.select = self.select.clone();
        }
        let deadline = self.deadline;
        let stop = move || deadline.is_some_and(|d| Instant::now() >= d);
        // A kill counts once its test is known to pass on the original; a mutant killed by a
        // flaky test is run again without it.
        let mut again: BTreeMap<u32, (TestResult, Duration)> = BTreeMap::new();
        let mut heard = |n: u32, r: &TestResult, time: Duration| {
            let (r, time) = match r {
                TestResult::Pass => return,
                TestResult::Fail { test, .. } if self.is_flaky(b, test, timeout) => {
                    let t0 = Instant::now();
                    let r = self.suite(&self.builds[b]).run(Some(n), timeout, None);
                    if crate::interrupt::stopped() {
                        return;
                    }
                    again.insert(n, (r.clone(), t0.elapsed()));
                    if r == TestResult::Pass {
                        return;
                    }
                    (r, t0.elapsed())
                }
                _ => (r.clone(), time),
            };
            on_result(n, &tested(&r, time));
        };
        // The runs started with the build have results already: judged as they come here.
        let mut outs: BTreeMap<u32, (TestResult, Duration)> = BTreeMap::new();
        if b == 0 {
            let mut early = self.early_results.borrow_mut();
            outs.extend(numbers.iter().filter_map(|n| Some((*n, early.remove(n)?))));
        }
        let killers = outs.values().filter_map(|(r, _)| match r {
            TestResult::Fail { test, .. } => Some(test),
            _ => None,
        });
        self.learn_flaky(b, killers, timeout);
        for (n, (r, time)) in &outs {
            heard(*n, r, *time);
        }
        let rest: Vec<u32> = numbers.iter().copied().filter(|n| !outs.contains_key(n)).collect();
        let limit = (timeout, self.retry_timeouts);
        let ran = suite::run_all(&suite, &rest, self.cfg.jobs, limit, &stop, &mut heard);
        outs.extend(rest.iter().zip(ran).filter_map(|(n, r)| Some((*n, r?))));
        for n in numbers {
            if let Some((r, time)) = again.remove(n).or_else(|| outs.remove(n)) {
                results.insert(*n, tested(&r, time));
            }
        }
        let passed: Vec<u32> = numbers
            .iter()
            .copied()
            .filter(|n| results.get(n).is_some_and(|r| r.status == MutantStatus::Survived))
            .collect();
        self.doc_tests(b, &passed, timeout, results);
        if crate::interrupt::stopped() {
            return;
        }
        for n in passed {
            if let Some(t) = results.get(&n) {
                on_result(n, t);
            }
        }
    }

    /// Whether `test` (of build `b`) is flaky: it fails on the original too. Found out once per
    /// test ([`suite::original_runs`]).
    fn is_flaky(&self, b: usize, test: &str, timeout: Duration) -> bool {
        if let Some(&(failed, _)) = self.flaky.borrow().get(test) {
            return failed > 0;
        }
        let suite = self.suite(&self.builds[b]);
        let never = || false;
        let Some(Some((failed, runs))) =
            suite::original_runs(&suite, &[test], 1, timeout, &never).pop()
        else {
            return false;
        };
        self.flaky.borrow_mut().insert(test.to_string(), (failed, runs));
        failed > 0
    }

    /// Finds out which of the `killers` (tests of build `b` that failed on a mutant) not known
    /// yet are flaky, `jobs` tests at a time, so that judging the kills then asks none of them
    /// again: one after the other, url 2.5.8's six killers cost 0.7 s after its mutants' runs.
    fn learn_flaky<'k>(
        &self,
        b: usize,
        killers: impl Iterator<Item = &'k String>,
        timeout: Duration,
    ) {
        let mut unknown: Vec<&str> = Vec::new();
        for test in killers {
            if !unknown.contains(&test.as_str()) && !self.flaky.borrow().contains_key(test) {
                unknown.push(test);
            }
        }
        let suite = self.suite(&self.builds[b]);
        let deadline = self.deadline;
        let stop = move || deadline.is_some_and(|d| Instant::now() >= d);
        let found = suite::original_runs(&suite, &unknown, self.cfg.jobs, timeout, &stop);
        let mut flaky = self.flaky.borrow_mut();
        for (test, found) in unknown.iter().zip(found) {
            if let Some(found) = found {
                flaky.insert(test.to_string(), found);
            }
        }
    }

    /// Runs the doc-tests of build `b` on the `survivors` of its test binaries.
    fn doc_tests(
        &self,
        b: usize,
        survivors: &[u32],
        timeout: Duration,
        results: &mut BTreeMap<u32, Tested>,
    ) {
        let doc = self.doc_tests_of(b);
        if survivors.is_empty() || self.past_deadline() {
            return;
        }
        let programs = match self.recorded(b) {
            Recorded::Programs(p) => Some(p),
            Recorded::Unsupported => None,
            Recorded::Nothing => return,
        };
        let suite = self.suite(&self.builds[b]);
        let limit = timeout.max(Duration::from_secs(60));
        let mut heard = |n: u32, r: Option<TestResult>, took: Duration| {
            if let Some(r @ TestResult::Fail { .. }) = r {
                results.insert(n, tested(&r, took));
            }
        };
        let Some(programs) = programs else {
            // `cargo test --doc` per survivor: one at a time (cargo locks the target folder).
            for &n in survivors {
                if self.past_deadline() {
                    break;
                }
                let t0 = Instant::now();
                let r = doc.run(Some(n), limit);
                if crate::interrupt::stopped() {
                    return;
                }
                heard(n, r, t0.elapsed());
            }
            return;
        };
        // The kept programs, `--jobs` survivors at a time.
        let groups: Vec<Vec<u32>> = survivors.iter().map(|&n| self.function_of(b, n)).collect();
        let deadline = self.deadline;
        let stop = move || deadline.is_some_and(|d| Instant::now() >= d);
        let work = |i: usize| {
            let t0 = Instant::now();
            (programs.run(&suite, survivors[i], &groups[i], limit), t0.elapsed())
        };
        suite::in_parallel(survivors.len(), self.cfg.jobs, &stop, &work, &mut |i, (r, took)| {
            heard(survivors[i], Some(r), took)
        });
    }

    /// What build `b`'s doc-tests gave on the original: for the first build, the recording
    /// started with its tests (waited for), else recorded now. Notes whether the first
    /// build's pass ([`RustLab::docs_pass`]).
    fn recorded(&self, b: usize) -> Recorded {
        let early = if b == 0 { self.early_docs.borrow_mut().take() } else { None };
        let recorded = match early {
            Some(recording) => recording.wait(),
            None => self.doc_tests_of(b).record(&self.scratch.join("doctests"), BASELINE_LIMIT),
        };
        if b == 0 {
            self.docs_pass.set(Some(!matches!(recorded, Recorded::Nothing)));
        }
        recorded
    }

    /// The doc-tests' verdict on a mutant `built` alone (its copy has the mutant applied, so
    /// the programs the first build recorded do not run it): `cargo test --doc` in its copy,
    /// where the doc-tests pass on the original (the first build's recording says so); a
    /// failure kills it. `None`: no kill. ipnet 2.12.2: the mutants of a `const fn` are built
    /// alone, and `Ipv4Net::new`'s `32` made `33` was reported a gap that its doc-test
    /// (`new(…, 33)` is an error) kills.
    fn doc_tests_alone(&self, built: &Harness, timeout: Duration) -> Option<TestResult> {
        if self.past_deadline() {
            return None;
        }
        // Doc-tests that fail on the original judge no mutant (as for a switched one).
        let pass = match self.docs_pass.get() {
            Some(pass) => pass,
            None => !matches!(self.recorded(0), Recorded::Nothing),
        };
        if !pass {
            return None;
        }
        let limit = timeout.max(Duration::from_secs(60));
        let alone = DocTests { tree: built.tree.clone(), ..self.doc_tests_of(0) };
        let verdict = alone.run(None, limit);
        // Both copies build the crate into one target folder under one name, and cargo judges
        // a crate fresh by its files' times: the first build's copy, older, would be given this
        // mutant's library by its next `cargo` call. Touched, it is built again there.
        self.touch_first_copy();
        verdict.filter(|r| matches!(r, TestResult::Fail { .. }))
    }

    /// Gives the crate's root file in the first build's copy the time of now (see
    /// [`RustLab::doc_tests_alone`]).
    fn touch_first_copy(&self) {
        let ct = &self.front.ws.crates[self.krate];
        let Ok(rel) = ct.root_file.strip_prefix(&self.front.ws.root) else { return };
        let root = self.builds[0].tree.join(rel);
        if let Ok(f) = std::fs::File::options().write(true).open(&root) {
            let _ = f.set_modified(std::time::SystemTime::now());
        }
    }

    /// What target `i`'s suggested tests need of its crate (see [`suggest::Crate`]); whether
    /// its root is `no_std` is read once.
    fn suggest_crate(&self, i: usize) -> suggest::Crate<'_> {
        let sources = &self.front.krate(i).sources;
        let no_std = *self.no_std.get_or_init(|| {
            harness::no_std::declares(sources.files.first().map_or("", |f| f.text.as_str()))
        });
        suggest::Crate { book: &sources.book, no_std }
    }

    /// The doc-tests of build `b`: those of the packages whose tests run, in its copy.
    fn doc_tests_of(&self, b: usize) -> DocTests {
        let packages = self.front.test_packages(self.package());
        let crates = &self.front.ws.crates;
        let edition_2015 =
            |p: &String| crates.iter().any(|c| c.package == *p && c.edition == "2015");
        DocTests {
            tree: self.builds[b].tree.clone(),
            target_dir: self.target.clone(),
            merge: !packages.iter().any(edition_2015),
            packages,
            cargo_flags: self.front.ws.cargo_flags.clone(),
            skip: self.front.ws.skip_tests.clone(),
        }
    }

    /// The mutants of build `b` in the function of mutant `n` (its sites, for the tests that
    /// reach them).
    fn function_of(&self, b: usize, n: u32) -> Vec<u32> {
        let target = self.mutants.iter().find(|m| m.n == n).map(|m| m.target);
        self.mutants
            .iter()
            .filter(|m| Some(m.target) == target && self.build_of.get(&m.n) == Some(&b))
            .map(|m| m.n)
            .collect()
    }

    /// The scratch copy mutants built alone are built in.
    fn single_scratch(&self) -> PathBuf {
        self.scratch.with_file_name(format!(
            "{}-single",
            self.scratch.file_name().and_then(|s| s.to_str()).unwrap_or("harness")
        ))
    }

    /// Builds mutant `n` alone (applied, not switched) in `single`, with `inserts`.
    fn build_alone(
        &self,
        n: u32,
        inserts: Vec<(PathBuf, usize, String)>,
        single: &Path,
    ) -> Result<Harness, RustError> {
        let wrappers: BTreeMap<Part, String> = self.builds[0]
            .dropped
            .iter()
            .filter(|(p, _)| matches!(p, Part::Wrapper(_)))
            .map(|(p, r)| (*p, r.clone()))
            .collect();
        let mut one = self.request(&[], inserts, wrappers);
        one.apply = self.mutants.iter().find(|m| m.n == n).map(|m| (n, &m.mutant));
        one.scratch = single;
        Ok(harness::build(&one)?)
    }

    /// Builds mutant `n` alone, in a scratch copy of its own, and runs its tests.
    fn test_alone(&mut self, n: u32, timeout: Duration) -> Result<Tested, RustError> {
        let single = self.single_scratch();
        let mut built = self.build_alone(n, Vec::new(), &single)?;
        if let Some(reason) = built.dropped.get(&Part::Mutant(n)) {
            return Ok(Tested {
                status: MutantStatus::Unviable,
                killed_by: Some(reason.clone()),
                failure: Some(reason.clone()),
                time: built.build_time,
            });
        }
        let t0 = Instant::now();
        let mut r = self.suite(&built).run(None, timeout, None);
        if r == TestResult::Timeout {
            r = self.suite(&built).run(None, timeout, None);
        }
        if r == TestResult::Pass {
            // A survivor of the test binaries meets the doc-tests, as a switched one does.
            r = self.doc_tests_alone(&built, timeout).unwrap_or(r);
        }
        let result = tested(&r, t0.elapsed());
        // The next mutant built alone overwrites this executable: keep a copy of its own.
        let own = single.join(format!("abex-mutant-{n}"));
        if std::fs::copy(&built.exe, &own).is_ok() {
            built.exe = own;
            self.alone.insert(n, built);
        }
        Ok(result)
    }
}

impl Lab for RustLab<'_> {
    fn warnings(&mut self) -> Vec<String> {
        let flaky = self.flaky.borrow();
        let fresh = flaky.iter().filter(|(test, r)| r.0 > 0 && !self.told.contains(*test));
        let said: Vec<(String, String)> = fresh
            .map(|(test, (failed, runs))| {
                let text = format!(
                    "test `{test}` is flaky: it failed on the original code ({failed} of {runs} runs); it kills no mutant and was left out of the mutants' runs\nhint: make it deterministic, or mark it `#[ignore]`"
                );
                (test.clone(), text)
            })
            .collect();
        drop(flaky);
        said.into_iter()
            .map(|(test, text)| {
                self.told.insert(test);
                text
            })
            .collect()
    }

    fn uncallable(&self, i: usize) -> Option<Uncallable> {
        let id = self.driven.iter().position(|&d| d == i)?;
        let Some(reason) = self.builds.first()?.dropped_fn(id) else {
            // It compiles, but one of its arguments may have lost every constructor.
            let (_, tys) = self.built_plan(i)?;
            return tys.err().map(|reason| Uncallable { reason, not_compiled: false });
        };
        // The compiler's headline, e.g. "the trait bound `Counter: Default` is not satisfied".
        let headline = reason.lines().next().unwrap_or(reason);
        let headline = headline.split_once("]: ").map_or(headline, |(_, h)| h);
        // The wrapper cannot find the function (or its type): it is `cfg`'d out under these
        // features. A type of a generic instantiation that cannot be found is not that.
        let name = &self.front.found(i).name;
        let own = self.front.found(i).owner.as_deref().unwrap_or(name);
        let f = self.front.found(i);
        let names_it = headline.contains(&format!("`{name}`"))
            || headline.contains(&format!("`{own}"))
            || f.module.iter().any(|m| headline.contains(&format!("`{m}`")));
        let not_compiled = names_it
            && (reason.contains("E0425")
                || reason.contains("E0433")
                || reason.contains("cannot find"));
        let reason = if not_compiled {
            "not compiled under the current features".to_string()
        } else if reason.contains("abex_render") {
            "the harness cannot show what it returns: neither `Debug` nor `Display`".to_string()
        } else {
            format!("the harness cannot call it: {headline}")
        };
        Some(Uncallable { reason, not_compiled })
    }

    fn params(&mut self, i: usize) -> Option<Vec<Param>> {
        // The types as the build decodes them: constructors that did not compile are left out.
        let built = self.built_plan(i)?.1.ok()?;
        let mut params = self.front.found(i).params.clone();
        for (p, t) in params.iter_mut().zip(built) {
            p.ty = Some(t);
        }
        Some(params)
    }

    fn hints(&self, i: usize) -> Hints {
        let Some((plan, _)) = self.built_plan(i) else { return Hints::default() };
        let self_ty = match &plan.callee {
            Callee::Assoc { self_ty } | Callee::Method { self_ty, .. } => self_ty.as_str(),
            Callee::Free => "",
        };
        crate::rust::constants::of_source(&format!("{self_ty}{}", plan.turbofish))
    }

    fn test_count(&mut self) -> usize {
        // The test binaries may still be building: they are waited for, not the baseline and
        // the mutants' runs going on beside them (the progress line comes before those end).
        if let Some(n) = self.early.as_ref().and_then(Early::binaries) {
            return n;
        }
        // Otherwise the baseline too (a baseline that fails is told when the tests are asked
        // for).
        if let Err(e) = self.timeout() {
            self.failed = Some(e);
        }
        self.builds.first().map_or(0, |b| b.tests.len())
    }

    fn test_tool(&self, _i: usize) -> String {
        "cargo test (test binaries run directly)".into()
    }

    fn test(
        &mut self,
        numbers: &[u32],
        on_result: &mut dyn FnMut(u32, &Tested),
    ) -> Result<BTreeMap<u32, Tested>, RunError> {
        let timeout = self.timeout().map_err(front_err)?;
        let mut by_build: BTreeMap<usize, Vec<u32>> = BTreeMap::new();
        let mut alone = Vec::new();
        let mut unviable = Vec::new();
        for m in self.mutants.iter().filter(|m| numbers.contains(&m.n)) {
            if self.not_compiled(m.target) {
                continue;
            }
            match (self.build_of.get(&m.n), self.unviable.get(&m.n)) {
                (Some(b), _) => by_build.entry(*b).or_default().push(m.n),
                (None, Some(_)) => unviable.push(m.n),
                (None, None) => alone.push(m.n),
            }
        }
        let mut results = BTreeMap::new();
        for n in unviable {
            let reason = self.unviable.get(&n).cloned();
            let t = Tested {
                status: MutantStatus::Unviable,
                killed_by: reason.clone(),
                failure: reason,
                time: Duration::ZERO,
            };
            on_result(n, &t);
            results.insert(n, t);
        }
        for (b, list) in &by_build {
            self.test_switched(*b, list, timeout, &mut results, on_result);
        }
        for n in alone {
            if self.past_deadline() {
                break;
            }
            let t = self.test_alone(n, timeout).map_err(front_err)?;
            if crate::interrupt::stopped() {
                break;
            }
            on_result(n, &t);
            results.insert(n, t);
        }
        // The first build's doc-test recording, unless a survivor waited for it: it stops.
        drop(self.early_docs.borrow_mut().take());
        Ok(results)
    }

    fn evaluator(&mut self, i: usize) -> Result<Box<dyn Evaluate>, RunError> {
        let id = self.driven.iter().position(|&d| d == i).unwrap_or(usize::MAX);
        Ok(Box::new(HungSplit::new(self.original.clone(), id)))
    }

    fn tracer(
        &mut self,
        _i: usize,
        driver: usize,
    ) -> Result<Option<Box<dyn ProbeEvaluate>>, RunError> {
        // The original's worker in trace mode: the comparisons of every probed function (the
        // targets with mutants, the driven one among them) report their operands.
        let id = self.driven.iter().position(|&d| d == driver).unwrap_or(usize::MAX);
        let env = [("ABEX_PROBE".to_string(), crate::rust::harness::probe::TRACE_SPEC.to_string())];
        let worker = self.worker(&self.builds[0], None).with_env(env);
        Ok(Some(Box::new(HungSplit::new(Rc::new(RefCell::new(worker)), id))))
    }

    fn mutant(&mut self, i: usize, n: u32) -> Result<Box<dyn ProbeEvaluate>, RunError> {
        let id = self.driven.iter().position(|&d| d == i).unwrap_or(usize::MAX);
        Ok(Box::new(SharedWorker::own(self.mutant_worker(n), id)))
    }

    fn witness_workers(
        &mut self,
        i: usize,
        survivors: &[u32],
        threads: usize,
    ) -> Result<Option<WitnessWorkers>, RunError> {
        // Every mutant has a worker of its own already; the original gets one per thread.
        let id = self.driven.iter().position(|&d| d == i).unwrap_or(usize::MAX);
        let original = self.original.borrow();
        let originals = (0..threads.max(1))
            .map(|_| Box::new(OwnedWorker { worker: original.sibling(), id }) as _)
            .collect();
        let mutants = survivors
            .iter()
            .map(|&n| Box::new(OwnedWorker { worker: self.mutant_worker(n), id }) as _)
            .collect();
        Ok(Some(WitnessWorkers { originals, mutants }))
    }

    fn suggest(&self, i: usize, w: &Witness, name: &str, why: &str) -> Vec<String> {
        let f = self.front.found(i);
        let Some((plan, _)) = self.built_plan(i) else { return Vec::new() };
        suggest::candidates(f, plan, &self.suggest_crate(i), w, name, why)
    }

    fn name_parts<'w>(&self, i: usize, w: &'w Witness) -> (String, &'w [Value]) {
        let f = self.front.found(i);
        let function = match &f.owner {
            // `Shlex<'a>` names its tests `shlex_…`, not `shlex_a_…`.
            Some(owner) => {
                let owner = owner.split('<').next().unwrap_or(owner).trim();
                crate::testname::snake(&format!("{owner}_{}", f.name))
            }
            None => crate::testname::snake(&f.name),
        };
        let receiver = self
            .built_plan(i)
            .is_some_and(|(p, _)| matches!(p.callee, crate::rust::source::Callee::Method { .. }));
        let args = match w.input.get(1..) {
            Some(rest) if receiver && !rest.is_empty() => rest,
            _ => &w.input,
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
        let f = self.front.found(i);
        let (plan, _) = self.built_plan(i)?;
        if parametrised {
            let book = &self.front.krate(i).sources.book;
            return suggest::table(f, plan, book, cases, name, why);
        }
        suggest::joined(f, plan, &self.suggest_crate(i), cases, name, why)
    }

    fn parametrises(&self) -> bool {
        let dir = &self.front.ws.crates[self.krate].package_dir;
        crate::rust::workspace::uses_rstest(dir)
    }

    fn check(
        &mut self,
        suggestions: &[Suggestion],
        survivors: &[u32],
    ) -> Result<BTreeMap<String, Verdict>, RunError> {
        let timeout = self.timeout().map_err(front_err)?;
        // Survivors built alone have no switch in a build the tests can be added to.
        let mut by_build: BTreeMap<usize, Vec<u32>> = BTreeMap::new();
        for &n in survivors.iter().filter(|n| !self.alone.contains_key(n)) {
            if let Some(&b) = self.build_of.get(&n) {
                by_build.entry(b).or_default().push(n);
            }
        }
        // One module per test: a test that does not compile is dropped alone.
        let inserts: Vec<(PathBuf, usize, String)> = suggestions
            .iter()
            .map(|s| {
                let f = self.front.found(s.calls);
                (f.file.clone(), f.inject_at, suggest::module(std::slice::from_ref(&s.code)))
            })
            .collect();
        let mut verdicts: BTreeMap<String, Verdict> = BTreeMap::new();
        for (b, survivors) in by_build {
            let switched: Vec<u32> =
                self.build_of.iter().filter(|(_, &x)| x == b).map(|(n, _)| *n).collect();
            let mut req = self.request(&switched, inserts.clone(), self.builds[b].dropped.clone());
            // The suggested tests are in the crate's own test binary.
            req.what = Build::OwnTests;
            let built = harness::build(&req).map_err(front_err)?;
            let s = self.suite(&built);
            // One run of every suggested test on the original, then one per survivor: a test
            // counts when it passed on the original and fails on the survivor.
            let filter = suggest::MODULE;
            let on_original = s.failures(None, timeout, filter);
            self.judge_on_original(suggestions, &built, on_original.as_ref(), &mut verdicts);
            // The tests hung on the original: none counts in this build.
            if on_original.is_none() {
                continue;
            }
            let mut failing: Vec<(u32, Vec<String>)> = Vec::new();
            let each = suite::failures_each(&s, &survivors, self.cfg.jobs, timeout, filter);
            for (&k, failed) in survivors.iter().zip(each) {
                match failed {
                    Some((f, _)) => failing.push((k, f)),
                    // One test hung on this survivor: each test on its own, then.
                    None => {
                        let one = |sug: &&Suggestion| {
                            let path = suggest::test_path(self.front.found(sug.calls), &sug.name);
                            matches!(s.run(Some(k), timeout, Some(&path)), TestResult::Fail { .. })
                                .then_some(path)
                        };
                        failing.push((k, suggestions.iter().filter_map(|x| one(&x)).collect()));
                    }
                }
            }
            for sug in suggestions {
                let path = suggest::test_path(self.front.found(sug.calls), &sug.name);
                let killed =
                    failing.iter().filter(|(_, f)| suggest::fails(f, &path)).map(|(k, _)| *k);
                if let Some(Verdict::Passed(k)) = verdicts.get_mut(&sug.name) {
                    k.extend(killed);
                }
            }
        }
        // A survivor built alone (a deleted match arm, say) is built again alone with the
        // tests written for it, and they are run there.
        let alone: Vec<u32> = survivors
            .iter()
            .copied()
            .filter(|n| self.alone.contains_key(n) && suggestions.iter().any(|s| s.mutant == *n))
            .collect();
        if alone.is_empty() {
            return Ok(verdicts);
        }
        // Their verdicts on the original, when no switched build gave them.
        if !suggestions.iter().all(|s| verdicts.contains_key(&s.name)) {
            let mut req = self.request(&[], inserts.clone(), self.builds[0].dropped.clone());
            req.what = Build::OwnTests;
            let built = harness::build(&req).map_err(front_err)?;
            let failed = self.suite(&built).failures(None, timeout, suggest::MODULE);
            self.judge_on_original(suggestions, &built, failed.as_ref(), &mut verdicts);
        }
        let single = self.single_scratch();
        for n in alone {
            // Only the tests that compiled and passed on the original: one that does not
            // compile would fail the build of the survivor alone (shlex 1.3.0: a receiver
            // made from a temporary the test borrowed failed the whole run).
            let mine: Vec<(PathBuf, usize, String)> = suggestions
                .iter()
                .zip(&inserts)
                .filter(|(s, _)| s.mutant == n)
                .filter(|(s, _)| matches!(verdicts.get(&s.name), Some(Verdict::Passed(_))))
                .map(|(_, i)| i.clone())
                .collect();
            if mine.is_empty() {
                continue;
            }
            let built = self.build_alone(n, mine, &single).map_err(front_err)?;
            if built.dropped.contains_key(&Part::Mutant(n)) {
                continue;
            }
            let Some((failing, _)) = self.suite(&built).failures(None, timeout, suggest::MODULE)
            else {
                continue;
            };
            // A test counts when it passed on the original and fails here.
            for sug in suggestions.iter().filter(|s| s.mutant == n) {
                let path = suggest::test_path(self.front.found(sug.calls), &sug.name);
                match verdicts.get_mut(&sug.name) {
                    Some(Verdict::Passed(k)) if suggest::fails(&failing, &path) => k.push(n),
                    _ => {}
                }
            }
        }
        Ok(verdicts)
    }

    fn add(&mut self, fresh: &[Numbered]) -> Result<(), RunError> {
        self.mutants.extend(fresh.iter().cloned());
        let numbers: Vec<u32> = fresh.iter().map(|m| m.n).collect();
        let built = harness::build(&self.request(&numbers, Vec::new(), BTreeMap::new()))
            .map_err(front_err)?;
        let index = self.builds.len();
        self.place(&numbers, &built, index);
        self.builds.push(built);
        Ok(())
    }
}
