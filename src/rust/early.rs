//! The test binaries, the baseline and the mutants' test runs, started as soon as the harness is
//! built: a thread waits for the test binaries (built in the background when the harness came
//! first, see `cargo.rs`), runs them on the original (traced, see `reach.rs`; a failing test is
//! run again to tell a flaky one from a failing baseline), then every switched mutant of the
//! build, `jobs` at a time, while the pipeline explores the functions with the harness; rustdoc
//! compiles the build's doc-tests meanwhile (`doctests.rs`), for the survivors. The lab
//! takes the results when the pipeline asks for the mutants' tests, and judges each as if it
//! had just run (a kill by a flaky test is checked on the original then).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::pipeline::Defaults;
use crate::rust::cargo::{PendingTests, TestBinary};
use crate::rust::doctests::Recording;
use crate::rust::error::RustError;
use crate::rust::reach::{BinaryTrace, Selection};
use crate::rust::suite::{self, DocTests, TestResult, TestSuite, RETRY_BELOW, RUNS_OF_A_FAILURE};

/// Longest the baseline (the tests without any mutant) may take.
pub const BASELINE_LIMIT: Duration = Duration::from_secs(600);

/// Whether a mutant's timeout under `timeout` deserves a second run alone, for a baseline
/// that took `took` (see [`Baseline::retry_timeouts`]).
pub fn retries_timeouts(timeout: Duration, took: Duration) -> bool {
    timeout < took * RETRY_BELOW
}

/// What the baseline gave.
#[derive(Debug)]
pub struct Baseline {
    /// The time limit of one mutant's tests.
    pub timeout: Duration,
    /// Whether a mutant that ran past it is run again alone before it counts as a timeout:
    /// only when the limit is within [`RETRY_BELOW`] times the baseline's duration, where the
    /// load of parallel runs could have made a test that slow. Past it (the 2 s floor against
    /// a suite of milliseconds), a timeout is a hang, and a second run would cost the limit
    /// again for nothing.
    pub retry_timeouts: bool,
    /// Tests that failed on the original before passing: (runs that failed, runs).
    pub flaky: BTreeMap<String, (usize, usize)>,
    /// The tests each mutant runs (none: every test).
    pub select: Option<Arc<Selection>>,
}

/// What the baseline needs to know.
#[derive(Clone, Debug)]
pub struct BaselineSpec {
    /// The package whose tests these are (for the errors).
    pub package: String,
    /// Where the binaries record the sites they reach (emptied first).
    pub reach_dir: PathBuf,
    /// The mutants of the build, grouped by function.
    pub functions: Vec<Vec<u32>>,
    /// The time limit of a mutant's tests, when the user set one.
    pub fixed_timeout: Option<Duration>,
}

/// Runs the baseline of `suite`: the binaries on the original, recording the sites each test
/// reaches; a test that fails is run again, at most [`RUNS_OF_A_FAILURE`] runs in all: one that
/// passes on a re-run is flaky, one that fails each time fails the baseline.
pub fn baseline(suite: &TestSuite, spec: &BaselineSpec) -> Result<Baseline, RustError> {
    let mut suite = suite.clone();
    let _ = std::fs::remove_dir_all(&spec.reach_dir);
    suite.reach_dir =
        std::fs::create_dir_all(&spec.reach_dir).is_ok().then(|| spec.reach_dir.clone());
    let mut t = Instant::now();
    let mut failures: Vec<(String, String)> = Vec::new();
    loop {
        match suite.run(None, BASELINE_LIMIT, None) {
            TestResult::Pass => break,
            TestResult::Fail { test, output } => {
                let again = failures.iter().filter(|(f, _)| *f == test).count();
                if again + 1 >= RUNS_OF_A_FAILURE || crate::interrupt::stopped() {
                    let package = spec.package.clone();
                    return Err(RustError::BaselineFails { package, test, output });
                }
                failures.push((test, output));
            }
            TestResult::Timeout => {
                let (package, secs) = (spec.package.clone(), BASELINE_LIMIT.as_secs());
                return Err(RustError::BaselineHangs { package, secs });
            }
        }
        t = Instant::now();
    }
    // The run that passed was the last one, and timed from its start.
    let took = t.elapsed();
    let runs = failures.len() + 1;
    let mut flaky = BTreeMap::new();
    for (test, _) in &failures {
        let failed = failures.iter().filter(|(f, _)| f == test).count();
        flaky.insert(test.clone(), (failed, runs));
    }
    let timeout = spec.fixed_timeout.unwrap_or_else(|| Defaults::test_timeout(took));
    let select = suite.reach_dir.as_deref().map(|dir| Arc::new(selection(&suite, dir, spec)));
    let retry_timeouts = retries_timeouts(timeout, took);
    Ok(Baseline { timeout, retry_timeouts, flaky, select })
}

/// The tests each mutant runs: those that reached its function in the baseline `suite`, whose
/// binaries recorded their trace in `dir`.
fn selection(suite: &TestSuite, dir: &Path, spec: &BaselineSpec) -> Selection {
    let traces: Vec<BinaryTrace> = (0..suite.binaries.len())
        .map(|i| BinaryTrace::read(&dir.join(format!("{i}.tsv")), suite.list(i)))
        .collect();
    Selection::new(&traces, &spec.functions)
}

/// What the background run gave.
#[derive(Debug)]
pub enum Done {
    /// The test binaries did not build (the compiler's first error): nothing ran.
    TestsFailed(String),
    /// They ran: the binaries, when they were built here; the baseline; each mutant's last
    /// result with its time.
    Ran {
        /// The test binaries the pending build gave.
        tests: Option<Vec<TestBinary>>,
        /// The baseline.
        baseline: Result<Baseline, RustError>,
        /// Each mutant's result.
        results: BTreeMap<u32, (TestResult, Duration)>,
        /// The doc-tests' recording, started once the binaries were built.
        docs: Option<Recording>,
    },
}

/// The baseline and the mutants' test runs, going on in the background.
pub struct Early {
    handle: Option<JoinHandle<Done>>,
    cancel: Arc<AtomicBool>,
    /// How many test binaries there are, once they are built (nothing comes when they do not
    /// build).
    built: std::sync::mpsc::Receiver<usize>,
    /// What `built` gave, once asked.
    count: std::cell::OnceCell<Option<usize>>,
}

impl Early {
    /// Waits for `pending` test binaries (they are `suite`'s), then starts recording the `docs`
    /// (the doc-tests of the same build, into the folder given; see [`Recording`]), the
    /// baseline and the test runs of `mutants`, `jobs` at a time, until `deadline`.
    pub fn start(
        pending: Option<PendingTests>,
        suite: TestSuite,
        spec: BaselineSpec,
        mutants: Vec<u32>,
        jobs: usize,
        deadline: Option<Instant>,
        docs: Option<(DocTests, PathBuf)>,
    ) -> Early {
        let cancel = Arc::new(AtomicBool::new(false));
        let stopped = cancel.clone();
        let (built_tx, built) = std::sync::mpsc::channel();
        let handle = std::thread::spawn(move || {
            let mut suite = suite;
            let tests = match pending.map(PendingTests::wait) {
                Some(Ok(tests)) => Some(tests),
                Some(Err(why)) => return Done::TestsFailed(why),
                None => None,
            };
            if let Some(t) = &tests {
                suite.binaries = t.clone();
            }
            let _ = built_tx.send(suite.binaries.len());
            // After the test build, which holds the target folder's lock: rustdoc builds on it.
            let docs = docs.map(|(d, dir)| Recording::start(d, dir, BASELINE_LIMIT));
            let base = baseline(&suite, &spec);
            let mut results = BTreeMap::new();
            let Ok(b) = &base else { return Done::Ran { tests, baseline: base, results, docs } };
            suite.skip.extend(b.flaky.keys().cloned());
            suite.select = b.select.clone();
            let stop = move || {
                stopped.load(Ordering::SeqCst) || deadline.is_some_and(|d| Instant::now() >= d)
            };
            let limit = (b.timeout, b.retry_timeouts);
            let outs = suite::run_all(&suite, &mutants, jobs, limit, &stop, &mut |_, _, _| {});
            for (n, r) in mutants.iter().zip(outs) {
                if let Some(r) = r {
                    results.insert(*n, r);
                }
            }
            Done::Ran { tests, baseline: base, results, docs }
        });
        Early { handle: Some(handle), cancel, built, count: std::cell::OnceCell::new() }
    }

    /// Waits for the test binaries only (not for the baseline and the mutants' runs, which go
    /// on): how many there are; `None` when they did not build.
    pub fn binaries(&self) -> Option<usize> {
        *self.count.get_or_init(|| self.built.recv().ok())
    }

    /// Waits for the runs and takes what they gave; `None` when the thread died.
    pub fn finish(mut self) -> Option<Done> {
        self.handle.take()?.join().ok()
    }
}

impl Drop for Early {
    fn drop(&mut self) {
        // Not taken (the run ends otherwise): no more mutants are started, and the runs under
        // way end before the lab does.
        self.cancel.store(true, Ordering::SeqCst);
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rust::suite::TestBinary;

    #[test]
    fn a_timeout_is_run_again_only_when_load_could_explain_it() {
        let ms = Duration::from_millis;
        // The 2 s floor against a suite of 40 ms: a hang.
        assert!(!retries_timeouts(Defaults::test_timeout(ms(40)), ms(40)));
        // Five times a suite of 2 s: a loaded machine could have made a test that slow.
        assert!(retries_timeouts(Defaults::test_timeout(ms(2000)), ms(2000)));
        assert!(retries_timeouts(ms(5000), ms(300)) && !retries_timeouts(ms(5000), ms(250)));
    }

    /// A test program as a script: it lists tests `t` and `u`, records `t` reaching mutant 1's
    /// site on the original, notes each run's mutant in `ran`, and fails when mutant 2 is active.
    fn program(dir: &Path) -> TestBinary {
        let ran = dir.join("ran");
        let script = format!(
            "#!/bin/sh\nif [ \"$1\" = --list ]; then printf 't: test\\nu: test\\n\\n2 tests, 0 benchmarks\\n'; exit 0; fi\n\
             [ -n \"$ABEX_REACH\" ] && printf '1\\tt\\n' >> \"$ABEX_REACH\"\n\
             echo \"mutant ${{ABEX_MUTANT:-none}} $*\" >> '{}'\n\
             if [ \"$ABEX_MUTANT\" = 2 ]; then echo 'test t ... FAILED'; exit 101; fi\n",
            ran.display()
        );
        suite::script_binary(dir, "tests", &script)
    }

    /// A suite of `binary` alone, and the spec of its baseline in `dir` over the mutants of
    /// `functions` (no fixed time limit).
    fn suite_of(
        binary: TestBinary,
        dir: &Path,
        functions: Vec<Vec<u32>>,
    ) -> (TestSuite, BaselineSpec) {
        let suite = TestSuite::alone(binary);
        let spec = BaselineSpec {
            package: "p".into(),
            reach_dir: dir.join("reach"),
            functions,
            fixed_timeout: None,
        };
        (suite, spec)
    }

    #[test]
    fn the_count_of_test_binaries_is_known_before_the_mutants_runs_end() {
        // The progress line "Testing N mutants against K test binaries" waits for it.
        let dir = tempfile::tempdir().unwrap();
        let script = "#!/bin/sh\nif [ \"$1\" = --list ]; then printf 't: test\\n\\n1 test, 0 benchmarks\\n'; exit 0; fi\n\
                      [ -n \"$ABEX_REACH\" ] && printf '1\\tt\\n' >> \"$ABEX_REACH\"\n\
                      [ -n \"$ABEX_MUTANT\" ] && sleep 3\nexit 0\n";
        let binary = suite::script_binary(dir.path(), "slow", script);
        let (suite, mut spec) = suite_of(binary, dir.path(), vec![vec![1]]);
        spec.fixed_timeout = Some(Duration::from_secs(60));
        let early = Early::start(None, suite, spec, vec![1], 1, None, None);
        assert_eq!(early.binaries(), Some(1));
        assert!(!early.handle.as_ref().unwrap().is_finished(), "it waited for the mutant's run");
    }

    #[test]
    fn the_baseline_and_the_mutants_run_before_their_results_are_asked_for() {
        let dir = tempfile::tempdir().unwrap();
        let (suite, spec) = suite_of(program(dir.path()), dir.path(), vec![vec![1, 2], vec![3]]);
        let early = Early::start(None, suite, spec, vec![1, 2, 3], 1, None, None);
        assert_eq!(early.binaries(), Some(1));
        assert_eq!(early.binaries(), Some(1), "asked again: the same answer");
        // Nobody has asked yet: the baseline and the mutants run all the same.
        let ran = dir.path().join("ran");
        let waited = Instant::now();
        while std::fs::read_to_string(&ran).map_or(0, |t| t.lines().count()) < 3 {
            assert!(waited.elapsed() < Duration::from_secs(60), "nothing ran in the background");
            std::thread::sleep(Duration::from_millis(20));
        }
        let Some(Done::Ran { tests: None, baseline, results, docs: None }) = early.finish() else {
            panic!()
        };
        let base = baseline.unwrap();
        assert!(base.flaky.is_empty());
        assert_eq!(results[&1].0, TestResult::Pass);
        assert!(matches!(&results[&2].0, TestResult::Fail { test, .. } if test == "t"));
        // Mutant 3's function was reached by no test: it ran nothing.
        assert_eq!(results[&3].0, TestResult::Pass);
        let log = std::fs::read_to_string(&ran).unwrap();
        assert_eq!(
            log.lines().collect::<Vec<_>>(),
            ["mutant none ", "mutant 1 t --exact", "mutant 2 t --exact"]
        );
    }
}
