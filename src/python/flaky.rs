//! Flaky tests of a Python project: a test that fails on the original code too kills no mutant.
//! A failing baseline is run again (at most [`RUNS_OF_A_FAILURE`] runs in all): the tests that
//! failed in a run and passed in a later one are flaky. A mutant's killer that is not known yet
//! is run on the original (at most as many times, with the tests the mutant ran up to it, the
//! function's own code swapped in as a mutant's is) before its kill counts; a mutant whose first
//! failure is a flaky test runs every test again, and is killed only when a reliable one fails.

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::time::Duration;

use super::runner::{Patch, RunResult, Runner, RunnerError, Traced};

/// How many times a test that failed on the original runs in all before abex calls it flaky
/// (it passed once) or failing (it failed each time).
pub(crate) const RUNS_OF_A_FAILURE: usize = 3;

/// What the run knows of its tests' reliability: per test node id, (runs on the original that
/// failed, runs). Shared by the runners' threads.
#[derive(Default)]
pub(crate) struct Flaky {
    known: Mutex<BTreeMap<String, (usize, usize)>>,
    told: Mutex<std::collections::BTreeSet<String>>,
}

impl Flaky {
    fn is_flaky(&self, test: &str) -> Option<bool> {
        let known = self.known.lock().unwrap_or_else(|e| e.into_inner());
        known.get(test).map(|r| r.0 > 0)
    }

    fn record(&self, test: &str, failed: usize, runs: usize) {
        let mut known = self.known.lock().unwrap_or_else(|e| e.into_inner());
        known.insert(test.to_string(), (failed, runs));
    }

    /// The traced baseline of `runner`, run again while it fails on tests that pass in a later
    /// run; the first run that passes (its failures before it are flaky), or the last that
    /// failed.
    pub(crate) fn baseline(
        &self,
        runner: &mut Runner,
        traced: &[Traced],
        limit: Duration,
    ) -> Result<RunResult, RunnerError> {
        let mut failed: Vec<Vec<String>> = Vec::new();
        loop {
            let base = runner.baseline(traced, limit)?;
            let last = failed.len() + 1 >= RUNS_OF_A_FAILURE;
            if base.status == "pass"
                || base.status == "timeout"
                || last
                || crate::interrupt::stopped()
            {
                if base.status == "pass" {
                    let runs = failed.len() + 1;
                    for test in failed.iter().flatten() {
                        let n = failed.iter().filter(|f| f.contains(test)).count();
                        self.record(test, n, runs);
                    }
                }
                return Ok(base);
            }
            // A run that died names no test: nothing tells it from a real failure.
            if base.failed.is_empty() {
                return Ok(base);
            }
            failed.push(base.failed);
        }
    }

    /// Whether `test` fails on the original: found out once, by running up to
    /// [`RUNS_OF_A_FAILURE`] times, until it fails, the tests the mutant ran (those that call its
    /// function, in the same order, up to the killer: [`Runner::replay`]) with `original`, the
    /// function's own code, swapped in the way a mutant's is. So the killer runs where it killed
    /// (a test that fails only after another, or only on swapped code, is found), and costs the
    /// tests before it, not the whole suite's (packaging 24.2's 26 921 tests ran three times per
    /// new killer, 317 s of a 350 s run) nor the function's (20 473 tests call packaging's
    /// `_parse_local_version`: about 10 s a run).
    fn check(
        &self,
        runner: &mut Runner,
        test: &str,
        original: &Patch,
        timeout: Duration,
    ) -> Result<bool, RunnerError> {
        if let Some(known) = self.is_flaky(test) {
            return Ok(known);
        }
        let mut runs = 0;
        while runs < RUNS_OF_A_FAILURE {
            runs += 1;
            let r = runner.replay(original, timeout)?;
            if crate::interrupt::stopped() {
                return Ok(false);
            }
            if r.failed.iter().any(|f| f == test) {
                self.record(test, 1, runs);
                return Ok(true);
            }
        }
        self.record(test, 0, runs);
        Ok(false)
    }

    /// The result of a mutant's run `first` (tests stop at the first failure) with flaky tests
    /// told apart: a failure of a flaky test alone is no kill. `original` is the patch of the
    /// function's own code.
    pub(crate) fn settle(
        &self,
        runner: &mut Runner,
        patch: &Patch,
        original: &Patch,
        first: RunResult,
        timeout: Duration,
    ) -> Result<RunResult, RunnerError> {
        let Some(test) = first.failed.first().filter(|_| first.status == "fail").cloned() else {
            return Ok(first);
        };
        if !self.check(runner, &test, original, timeout)? {
            return Ok(first);
        }
        let mut all = runner.run(Some(patch), timeout, true)?;
        if all.status == "fail" && !all.failed.is_empty() {
            all.failed.retain(|t| self.is_flaky(t) != Some(true));
            if all.failed.is_empty() {
                all.status = "pass".into();
                all.message.clear();
            }
        }
        Ok(all)
    }

    /// The flaky tests found since the last call, each as a warning.
    pub(crate) fn warnings(&self) -> Vec<String> {
        let known = self.known.lock().unwrap_or_else(|e| e.into_inner());
        let mut told = self.told.lock().unwrap_or_else(|e| e.into_inner());
        known
            .iter()
            .filter(|(test, r)| r.0 > 0 && told.insert((*test).clone()))
            .map(|(test, (failed, runs))| {
                format!(
                    "test `{test}` is flaky: it failed on the original code ({failed} of {runs} runs); it kills no mutant\nhint: make it deterministic, or mark it skipped"
                )
            })
            .collect()
    }
}
