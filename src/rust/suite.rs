//! A crate's tests: runs its test binaries on the original (the baseline) and on each mutant,
//! in the scratch copy, with the mutant chosen by `ABEX_MUTANT` (mutation switching), a time
//! limit derived from the baseline, secrets removed from the environment, and `--jobs` mutants
//! at a time; and its doc-tests through `cargo test --doc`.
//!
//! Test binaries are run directly, the way `cargo nextest` runs them (one process per binary,
//! libtest's own output parsed), so a mutant costs only its tests' time. The first failing test
//! of the first failing binary names the killer.

use std::io::Read;
use std::path::{Path, PathBuf};

use crate::bounded::TestOutput;
use std::collections::BTreeMap;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::pipeline::Defaults;
pub use crate::rust::cargo::TestBinary;
use crate::rust::reach::{self, Run, Selection};

/// What a test run of one mutant (or of the original) gave.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TestResult {
    /// Every test passed.
    Pass,
    /// A test failed; its name, if libtest said it, and the binary.
    Fail {
        /// The failing test's name (`module::test_name`), or the binary's name.
        test: String,
        /// The last lines of the output.
        output: String,
    },
    /// The tests ran past the limit.
    Timeout,
}

/// The test binaries of a scratch copy and how to run them.
#[derive(Clone, Debug)]
pub struct TestSuite {
    /// The binaries, run in this order.
    pub binaries: Vec<TestBinary>,
    /// Tests left out of [`TestSuite::run`]: flaky ones, which fail on the original too.
    pub skip: Vec<String>,
    /// The address-space limit of a test process in bytes (a mutant that allocates without
    /// bound then fails its tests instead of exhausting the machine).
    pub memory_limit: Option<u64>,
    /// The tests each mutant runs, from the baseline's trace (none: every test).
    pub select: Option<Arc<Selection>>,
    /// Where binary `i` records which test reached which mutant site (`i.tsv`; see `reach.rs`),
    /// on the runs of the original.
    pub reach_dir: Option<PathBuf>,
    /// What the original took on the tests of mutants' runs that outlasted the floor, by
    /// binary and libtest's arguments (`None`: not known yet, or they did not pass there); see
    /// [`Calibration`].
    pub originals: Originals,
}

/// How many times the baseline's duration a mutant's time limit must be for a timeout to count
/// without a second run alone (see `early::Baseline::retry_timeouts`); also how many times the
/// original's time on the same tests a calibrated limit is ([`Calibration`]).
pub const RETRY_BELOW: u32 = 20;

/// What the original took on a binary's tests, by the binary and libtest's arguments.
pub type Originals = Arc<Mutex<BTreeMap<(PathBuf, Vec<String>), Option<Duration>>>>;

/// A mutant's time limit brought down to what its own tests take. The limit from the baseline
/// is five times the whole suite's time: a mutant that hangs one fast test waited for all of it
/// (wildmatch 2.4.0: a randomised test of 17 s, so a mutant that made `is_match_cat_asterisk`
/// loop ran for minutes). Once a mutant's run outlasts the floor
/// ([`Defaults::TEST_TIMEOUT_FLOOR`]), the same tests run on the original beside it (once per
/// binary and arguments, remembered in [`TestSuite::originals`]); when they pass there, the
/// limit becomes [`RETRY_BELOW`] times their time, at least the floor, never more than the
/// baseline's.
struct Calibration<'s> {
    suite: &'s TestSuite,
    binary: &'s TestBinary,
    args: &'s [&'s str],
    start: Instant,
    deadline: Instant,
    key: (PathBuf, Vec<String>),
    asked: std::cell::Cell<bool>,
}

impl Calibration<'_> {
    /// The limit a mutant's run started at `start` has now: the baseline's `deadline`, or
    /// less once the original's time on the same tests is known; past the floor, the
    /// original's run is started if nobody started it yet.
    fn deadline(&self) -> Instant {
        let known = self.suite.originals.lock().ok().and_then(|o| o.get(&self.key).copied());
        match known {
            Some(Some(took)) => {
                let limit = (took * RETRY_BELOW).max(Defaults::TEST_TIMEOUT_FLOOR);
                self.deadline.min(self.start + limit)
            }
            Some(None) => self.deadline,
            None => {
                // Where the baseline's limit is near the floor already, nothing to gain.
                let floor = Defaults::TEST_TIMEOUT_FLOOR;
                let room = self.deadline.saturating_duration_since(self.start) > floor * 2;
                if room && self.start.elapsed() >= floor && !self.asked.replace(true) {
                    self.calibrate();
                }
                self.deadline
            }
        }
    }

    /// Runs the same tests on the original on a thread of its own, then records their time
    /// when they passed. A run already going for the same tests is left to give the answer.
    fn calibrate(&self) {
        let Ok(mut originals) = self.suite.originals.lock() else { return };
        // A run of the same tests already started gives the answer (`None` until it passes).
        if originals.contains_key(&self.key) {
            return;
        }
        originals.insert(self.key.clone(), None);
        drop(originals);
        let (key, into) = (self.key.clone(), self.suite.originals.clone());
        let mut cmd = self.suite.command(self.binary, None, self.args);
        let limit = self.deadline.saturating_duration_since(Instant::now());
        std::thread::spawn(move || {
            let t = Instant::now();
            let passed = run_to_end(&mut cmd, limit).is_some_and(|(st, _, _)| st == Some(true));
            if let Ok(mut o) = into.lock() {
                o.insert(key, passed.then(|| t.elapsed()));
            }
        });
    }
}

/// Reads a child's stdout and stderr on two threads (one pipe filling up while the other is read
/// would block the child forever), each kept within a bound ([`TestOutput`]: a test that prints
/// a gigabyte costs abex no more than one that prints a line); the returned function waits for
/// both.
fn drain(child: &mut std::process::Child) -> impl FnOnce() -> (TestOutput, TestOutput) {
    drain_watching(child, None)
}

/// [`drain`], setting `failed` (when given) as soon as stdout reports a failed test.
fn drain_watching(
    child: &mut std::process::Child,
    failed: Option<Arc<AtomicBool>>,
) -> impl FnOnce() -> (TestOutput, TestOutput) {
    fn read_all(
        pipe: Option<impl Read + Send + 'static>,
        failed: Option<Arc<AtomicBool>>,
    ) -> std::thread::JoinHandle<TestOutput> {
        std::thread::spawn(move || match (pipe, failed) {
            (Some(p), Some(failed)) => TestOutput::read_watching(p, &failed),
            (p, _) => p.map(TestOutput::read).unwrap_or_default(),
        })
    }
    let out = read_all(child.stdout.take(), failed);
    let err = read_all(child.stderr.take(), None);
    move || (out.join().unwrap_or_default(), err.join().unwrap_or_default())
}

/// How long a binary that reported a failed test may go on before it is stopped: enough for a
/// quick suite to end by itself and print the failure's message.
const FAILED_GRACE: Duration = Duration::from_millis(100);

/// The least time the failed test's second run, alone, has to print its message (the kill is
/// already counted): the mutant's own limit may be nearly spent, and on a loaded machine a
/// test that prints 100 MiB before it fails took longer, so its message was lost.
const MESSAGE_GRACE: Duration = Duration::from_secs(5);

/// Waits for `child` until `deadline`, or until [`FAILED_GRACE`] after `failed` was set; either
/// way past it, kills its process group. Its status (`None`: killed), and whether it was
/// stopped for a failed test.
fn wait_or_stop(
    child: &mut std::process::Child,
    deadline: &dyn Fn() -> Instant,
    failed: &AtomicBool,
) -> (Option<std::process::ExitStatus>, bool) {
    let mut stop_at = None;
    loop {
        match child.try_wait() {
            Ok(Some(st)) => return (Some(st), false),
            Ok(None) => {
                let now = Instant::now();
                if stop_at.is_none() && failed.load(Ordering::SeqCst) {
                    stop_at = Some(now + FAILED_GRACE);
                }
                let stopped = stop_at.is_some_and(|t| now >= t);
                if stopped || now >= deadline() {
                    crate::safety::kill_group(child);
                    return (None, stopped);
                }
                std::thread::sleep(Duration::from_millis(2));
            }
            Err(_) => return (None, false),
        }
    }
}

/// Waits for `child` until `deadline`; past it, kills its whole process group and gives `None`.
fn wait_until(
    child: &mut std::process::Child,
    deadline: Instant,
) -> Option<std::process::ExitStatus> {
    wait_unless(child, deadline, None)
}

/// [`wait_until`], also giving up (the child's group killed) once `cancel` is set.
fn wait_unless(
    child: &mut std::process::Child,
    deadline: Instant,
    cancel: Option<&AtomicBool>,
) -> Option<std::process::ExitStatus> {
    let cancelled = || cancel.is_some_and(|c| c.load(Ordering::SeqCst));
    loop {
        match child.try_wait() {
            Ok(Some(st)) => return Some(st),
            Ok(None) if Instant::now() >= deadline || cancelled() => {
                crate::safety::kill_group(child);
                return None;
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(2)),
            Err(_) => return None,
        }
    }
}

fn first_failure(output: &str) -> Option<String> {
    failed_tests(output).into_iter().next()
}

/// The part of libtest's output that belongs to the failed test `test` (its `---- test stdout
/// ----` section, where the assertion prints the expected and actual values), or the output's
/// last lines when there is no such section. At most 40 lines.
pub fn failure_of(output: &str, test: &str) -> String {
    let header = format!("---- {test} stdout ----");
    let section: Vec<&str> = output
        .lines()
        .skip_while(|l| l.trim() != header)
        .skip(1)
        .take_while(|l| !l.starts_with("---- ") && !l.starts_with("failures:"))
        .collect();
    let text = section.join("\n");
    let text = text.trim();
    if text.is_empty() {
        tail(output, 20)
    } else {
        text.lines().take(40).collect::<Vec<_>>().join("\n")
    }
}

/// The name of every doc-test program `doctests.rs` keeps ([`TestBinary::name`]).
pub const DOC_TESTS: &str = "doc-tests";

/// The last `n` lines of `s`.
pub(crate) fn tail(s: &str, n: usize) -> String {
    let lines: Vec<&str> = s.lines().collect();
    lines[lines.len().saturating_sub(n)..].join("\n")
}

/// Longest test output [`TestResult::Fail`] keeps: the failing test's lines come first.
const FAIL_OUTPUT: usize = 64 << 10;

/// `text` cut to [`FAIL_OUTPUT`] bytes at a character boundary.
fn at_most(mut text: String) -> String {
    if text.len() > FAIL_OUTPUT {
        let mut end = FAIL_OUTPUT;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        text.truncate(end);
    }
    text
}

impl TestSuite {
    /// A suite of `binary` alone: nothing skipped, no memory limit, every test run.
    #[cfg(test)]
    pub(crate) fn alone(binary: TestBinary) -> TestSuite {
        TestSuite {
            binaries: vec![binary],
            skip: Vec::new(),
            memory_limit: None,
            select: None,
            reach_dir: None,
            originals: Originals::default(),
        }
    }

    /// The command running test binary `b` with `mutant` active and libtest's `args`.
    fn command(&self, b: &TestBinary, mutant: Option<u32>, args: &[&str]) -> Command {
        let mut cmd = Command::new(&b.exe);
        cmd.current_dir(&b.dir)
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .env("RUST_BACKTRACE", "0")
            .env_remove("ABEX_MUTANT");
        for (k, v) in cargo_test_env(&b.dir, &b.package) {
            cmd.env(k, v);
        }
        if let Some(n) = mutant {
            cmd.env("ABEX_MUTANT", n.to_string());
        }
        // A merged doc-test program runs each doc-test in a process of its own, as rustdoc
        // runs it (`doctests.rs`); a program of one doc-test does not read it.
        if b.name == DOC_TESTS {
            cmd.env("RUSTDOC_DOCTEST_BIN_PATH", &b.exe);
        }
        crate::safety::scrub_env(&mut cmd);
        crate::safety::own_group(&mut cmd);
        if let Some(bytes) = self.memory_limit {
            crate::safety::limit_memory(&mut cmd, bytes);
        }
        cmd
    }

    /// Runs every test whose name contains `filter`, in every binary, with `mutant` active, to
    /// the end: the names of the tests that failed and libtest's output (where
    /// [`failure_of`] finds each one's message), or `None` when the binaries ran past
    /// `timeout` or could not start.
    pub fn failures(
        &self,
        mutant: Option<u32>,
        timeout: Duration,
        filter: &str,
    ) -> Option<(Vec<String>, String)> {
        let deadline = Instant::now() + timeout;
        let mut failed = Vec::new();
        let mut output = String::new();
        for b in &self.binaries {
            let mut child = self.command(b, mutant, &[filter]).spawn().ok()?;
            let _tracked = crate::interrupt::track(&child);
            let reader = drain(&mut child);
            let status = wait_until(&mut child, deadline);
            let out = reader().0.text();
            status?;
            let names = failed_tests(&out);
            if !names.is_empty() && output.len() < FAIL_OUTPUT {
                output.push_str(&out);
                output.push('\n');
            }
            failed.extend(names);
        }
        Some((failed, at_most(output)))
    }

    /// Runs the binaries in turn with `mutant` active (none: the original), stopping at the first
    /// failure; `filter` runs one exact test only; the [`TestSuite::skip`] tests never run. A
    /// mutant the [`TestSuite::select`]ion knows runs only the tests that reached its function,
    /// the one that killed the latest mutant first.
    pub fn run(&self, mutant: Option<u32>, timeout: Duration, filter: Option<&str>) -> TestResult {
        let deadline = Instant::now() + timeout;
        let plan = match (mutant, filter, &self.select) {
            (Some(n), None, Some(select)) => select.of(n).map(|runs| (select, runs)),
            _ => None,
        };
        let Some((select, runs)) = plan else {
            let mut args: Vec<&str> = filter.into_iter().collect();
            args.extend(self.skip_args());
            if !args.is_empty() {
                args.push("--exact");
            }
            for i in 0..self.binaries.len() {
                if let Some(failed) = self.run_one(i, mutant, &args, deadline) {
                    return failed;
                }
            }
            return TestResult::Pass;
        };
        let first = select.first_killer(runs);
        if let Some((i, test)) = &first {
            let args = [test.as_str(), "--exact"];
            if let Some(failed) = self.run_one(*i, mutant, &args, deadline) {
                return failed;
            }
        }
        for (i, run) in runs.iter().enumerate() {
            let ran = |t: &&String| first.as_ref().is_some_and(|(b, f)| *b == i && f == *t);
            let mut args: Vec<&str> = match run {
                Run::Nothing => continue,
                Run::All => Vec::new(),
                Run::Only(tests) => tests.iter().filter(|t| !ran(t)).map(String::as_str).collect(),
            };
            if matches!(run, Run::Only(_)) && args.is_empty() {
                continue;
            }
            args.extend(self.skip_args());
            if !args.is_empty() {
                args.push("--exact");
            }
            if let Some(failed) = self.run_one(i, mutant, &args, deadline) {
                if let TestResult::Fail { test, .. } = &failed {
                    select.killed(i, test);
                }
                return failed;
            }
        }
        TestResult::Pass
    }

    fn skip_args(&self) -> Vec<&str> {
        self.skip.iter().flat_map(|s| ["--skip", s.as_str()]).collect()
    }

    /// Runs binary `i` with `mutant` active and libtest's `args`, until `deadline`: `None` when
    /// it passed.
    fn run_one(
        &self,
        i: usize,
        mutant: Option<u32>,
        args: &[&str],
        deadline: Instant,
    ) -> Option<TestResult> {
        let b = &self.binaries[i];
        let reach = self.reach_dir.as_ref().map(|dir| dir.join(format!("{i}.tsv")));
        // A mutant's binary stops at its first failed test, as nextest's fail-fast does: the
        // binary's other tests (an exhaustive loop, a property test, seconds each) cannot make
        // the mutant survive. The original's runs go to the end.
        let stop = mutant.is_some();
        let Some((status, mut output, stopped)) = self.exec(b, args, mutant, reach, deadline, stop)
        else {
            return Some(TestResult::Fail {
                test: b.name.clone(),
                output: "could not start".into(),
            });
        };
        match status {
            None => Some(TestResult::Timeout),
            Some(false) => {
                let test = first_failure(&output).unwrap_or_else(|| b.name.clone());
                if stopped {
                    // libtest prints a failure's message after the last test, which the stop
                    // cut off: the failed test runs again alone to say it. (Alone, it may pass:
                    // it failed beside the others, which is a kill all the same.)
                    let alone = [test.as_str(), "--exact"];
                    let until = deadline.max(Instant::now() + MESSAGE_GRACE);
                    if let Some((_, again, _)) = self.exec(b, &alone, mutant, None, until, false) {
                        if failed_tests(&again).contains(&test) {
                            output = again;
                        }
                    }
                }
                Some(TestResult::Fail { test, output: tail(&output, 30) })
            }
            Some(true) => None,
        }
    }

    /// Runs test program `b` with libtest's `args`, with this suite's limits, `mutant` active and
    /// the reached sites recorded in `reach` (see `reach.rs`), until `deadline`; with `stop`,
    /// until shortly after it reports a failed test ([`FAILED_GRACE`]; it is then killed and
    /// counts as failed). Whether it succeeded (`None`: it ran past the deadline), its stdout
    /// and stderr, and whether it was stopped for a failed test (its output then lacks the
    /// failures' messages); `None` when it could not start.
    pub(crate) fn exec(
        &self,
        b: &TestBinary,
        args: &[&str],
        mutant: Option<u32>,
        reach: Option<PathBuf>,
        deadline: Instant,
        stop: bool,
    ) -> Option<(Option<bool>, String, bool)> {
        let mut cmd = self.command(b, mutant, args);
        if let Some(file) = reach {
            cmd.env("ABEX_REACH", file);
        }
        let mut child = cmd.spawn().ok()?;
        let _tracked = crate::interrupt::track(&child);
        // A mutant's run may take a limit from the original's time on the same tests.
        let calibration = (mutant.is_some() && stop).then(|| Calibration {
            suite: self,
            binary: b,
            args,
            start: Instant::now(),
            deadline,
            key: (b.exe.clone(), args.iter().map(|a| a.to_string()).collect()),
            asked: std::cell::Cell::new(false),
        });
        let limit = || calibration.as_ref().map_or(deadline, Calibration::deadline);
        let failed = Arc::new(AtomicBool::new(false));
        let reader = drain_watching(&mut child, stop.then(|| failed.clone()));
        let (status, stopped) = wait_or_stop(&mut child, &limit, &failed);
        let (mut out, err) = reader();
        out.extend(err);
        let status = if stopped { Some(false) } else { status.map(|s| s.success()) };
        Some((status, out.text(), stopped))
    }

    /// The tests binary `i` lists (`--list`), or `None` when it does not answer as libtest does
    /// (or lists more than [`LIST_OUTPUT`] bytes of names).
    pub fn list(&self, i: usize) -> Option<std::collections::BTreeSet<String>> {
        let mut cmd = self.command(&self.binaries[i], None, &["--list"]);
        cmd.stderr(Stdio::null());
        let mut child = cmd.spawn().ok()?;
        let _tracked = crate::interrupt::track(&child);
        let stdout = child.stdout.take()?;
        // Every name is needed, so not the test output's bound: a cap on the whole instead.
        let reader = std::thread::spawn(move || crate::bounded::read_body(stdout, LIST_OUTPUT));
        let status = wait_until(&mut child, Instant::now() + Duration::from_secs(60));
        let out = reader.join().ok()?.ok()?;
        status.filter(|s| s.success())?;
        let out = String::from_utf8_lossy(&out);
        out.lines().any(reach::is_list_end).then(|| reach::listed(&out))
    }
}

/// Longest `--list` output read: 16 MiB of test names.
const LIST_OUTPUT: usize = 16 << 20;

/// The doc-tests of a scratch copy's packages, run through `cargo test --doc` (rustdoc builds
/// them on each run, so they are run only for mutants that survive the test binaries).
#[derive(Clone, Debug)]
pub struct DocTests {
    /// The scratch copy.
    pub tree: PathBuf,
    /// Its target folder.
    pub target_dir: PathBuf,
    /// Packages whose doc-tests count.
    pub packages: Vec<String>,
    /// Feature flags of every cargo call (`Workspace::cargo_flags`).
    pub cargo_flags: Vec<String>,
    /// Doc-tests left out (`Workspace::skip_tests`, libtest's `--skip`).
    pub skip: Vec<String>,
    /// Whether rustdoc is asked to merge them into one program (`doctests.rs`): not in edition
    /// 2015, where a doc-test names its crate without `extern crate` only in a program of its
    /// own (strsim 0.10.0: rustdoc refuses to merge).
    pub merge: bool,
}

impl DocTests {
    /// `cargo test --doc` of the packages with cargo's `cargo` arguments, no mutant active, its
    /// output piped, rustdoc given `rustdoc` besides the flags of the environment or of a config
    /// file, and libtest the `--skip` of each left-out doc-test.
    ///
    /// Where the scratch build has no debug info (`cargo::drops_debug_info`), each doc-test
    /// program is linked without the standard library's either (`-Cstrip=debuginfo`): rustdoc
    /// compiles and links every doc-test on every run, and url's 67 took 0.92 of the time
    /// (median of 7 pairs, 3.76 s against 4.31 s on 2 cores). Panic locations do not come from
    /// debug info.
    pub(crate) fn command(&self, rustdoc: &[String], cargo: &[&str]) -> Command {
        // The harness's environment: the doc-tests reuse its build of the crate and every
        // dependency.
        let mut cmd = crate::rust::cargo::scratch_cargo(&self.tree, &self.target_dir);
        cmd.args(["test", "--doc"])
            .env_remove("ABEX_MUTANT")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        for p in &self.packages {
            cmd.args(["-p", p]);
        }
        cmd.args(&self.cargo_flags).args(cargo);
        let mut flags = rustdoc.to_vec();
        if crate::rust::cargo::drops_debug_info(&self.tree) {
            flags.push("-Cstrip=debuginfo".into());
        }
        match std::env::var("RUSTDOCFLAGS") {
            _ if flags.is_empty() => {}
            // The environment's flags replace the config's: add to them.
            Ok(f) => {
                cmd.env("RUSTDOCFLAGS", format!("{f} {}", flags.join(" ")));
            }
            // Added to any `rustdocflags` of a config file (cargo joins arrays).
            Err(_) => {
                let list: Vec<String> = flags.iter().map(|f| format!("{f:?}")).collect();
                cmd.arg("--config").arg(format!("build.rustdocflags=[{}]", list.join(",")));
            }
        }
        // libtest's arguments come after every cargo argument.
        if !self.skip.is_empty() {
            cmd.arg("--");
            for s in &self.skip {
                cmd.args(["--skip", s]);
            }
        }
        cmd
    }

    /// Runs the doc-tests with `mutant` active; `None` when there are none to run.
    pub fn run(&self, mutant: Option<u32>, timeout: Duration) -> Option<TestResult> {
        let mut cmd = self.command(&[], &["--quiet"]);
        if let Some(n) = mutant {
            cmd.env("ABEX_MUTANT", n.to_string());
        }
        let (status, stdout, stderr) = run_to_end(&mut cmd, timeout)?;
        match status {
            None => Some(TestResult::Timeout),
            // No library, or no doc-test at all: nothing to run.
            Some(_) if stderr.contains("no library targets") => None,
            Some(true) => {
                let ran = stdout
                    .lines()
                    .any(|l| l.starts_with("running ") && !l.starts_with("running 0 tests"));
                ran.then_some(TestResult::Pass)
            }
            Some(_) => {
                let test = first_failure(&stdout).unwrap_or_else(|| "doc-tests".to_string());
                Some(TestResult::Fail { test, output: tail(&format!("{stdout}{stderr}"), 30) })
            }
        }
    }
}

/// Runs `cmd` (its stdout and stderr piped) within `timeout`: whether it succeeded (`None`: it
/// ran past the time and was killed), its stdout and its stderr, each its first
/// [`WHOLE_OUTPUT`] bytes (a doc-test run's every `test … ok` line names a program); `None`
/// when it could not start.
pub(crate) fn run_to_end(
    cmd: &mut Command,
    timeout: Duration,
) -> Option<(Option<bool>, String, String)> {
    run_to_end_unless(cmd, timeout, None)
}

/// [`run_to_end`], killing `cmd` as if it ran past its time once `cancel` is set.
pub(crate) fn run_to_end_unless(
    cmd: &mut Command,
    timeout: Duration,
    cancel: Option<&AtomicBool>,
) -> Option<(Option<bool>, String, String)> {
    fn read(pipe: Option<impl Read + Send + 'static>) -> std::thread::JoinHandle<String> {
        std::thread::spawn(move || pipe.map(|p| head_of(p, WHOLE_OUTPUT)).unwrap_or_default())
    }
    let mut child = cmd.spawn().ok()?;
    let _tracked = crate::interrupt::track(&child);
    let (out, err) = (read(child.stdout.take()), read(child.stderr.take()));
    let status = wait_unless(&mut child, Instant::now() + timeout, cancel);
    let (stdout, stderr) = (out.join().unwrap_or_default(), err.join().unwrap_or_default());
    Some((status.map(|s| s.success()), stdout, stderr))
}

/// Longest part of a stream [`run_to_end`] keeps.
const WHOLE_OUTPUT: usize = 16 << 20;

/// The first `cap` bytes of `reader` as text; the rest is read and dropped, so the writer
/// never blocks on a full pipe.
fn head_of(mut reader: impl Read, cap: usize) -> String {
    let mut kept = Vec::new();
    let mut buf = [0u8; 64 << 10];
    while let Ok(n) = reader.read(&mut buf) {
        if n == 0 {
            break;
        }
        let room = cap.saturating_sub(kept.len()).min(n);
        kept.extend_from_slice(&buf[..room]);
    }
    String::from_utf8_lossy(&kept).into_owned()
}

/// [`TestSuite::failures`] of the tests `filter` names on each of `mutants`, with up to `jobs`
/// runs at a time (each mutant's binaries in turn, as there): per mutant, in its order, the
/// tests that failed and their output, or `None` when its run went past `timeout` or could not
/// start. An interruption stops it, and the mutants not run yet are `None`.
pub fn failures_each(
    suite: &TestSuite,
    mutants: &[u32],
    jobs: usize,
    timeout: Duration,
    filter: &str,
) -> Vec<Option<(Vec<String>, String)>> {
    let mut results = vec![None; mutants.len()];
    let work = |i: usize| suite.failures(Some(mutants[i]), timeout, filter);
    in_parallel(mutants.len(), jobs, &|| false, &work, &mut |i, r| results[i] = r);
    results
}

/// Calls `work` on `0..n` with up to `jobs` calls at a time, `on_done` hearing each result as it
/// comes (on the calling thread). `stop` is checked before each call; an interruption stops
/// everything, and a call it cut short is not heard.
pub(crate) fn in_parallel<R: Send>(
    n: usize,
    jobs: usize,
    stop: &(dyn Fn() -> bool + Sync),
    work: &(dyn Fn(usize) -> R + Sync),
    on_done: &mut dyn FnMut(usize, R),
) {
    let next = AtomicUsize::new(0);
    std::thread::scope(|s| {
        let (tx, rx) = std::sync::mpsc::channel();
        for _ in 0..jobs.max(1) {
            let (tx, next) = (tx.clone(), &next);
            s.spawn(move || loop {
                let i = next.fetch_add(1, Ordering::SeqCst);
                if i >= n || stop() || crate::interrupt::stopped() {
                    break;
                }
                let r = work(i);
                if crate::interrupt::stopped() || tx.send((i, r)).is_err() {
                    break;
                }
            });
        }
        drop(tx);
        for (i, r) in rx {
            on_done(i, r);
        }
    });
}

/// How many times a test that failed on the original runs in all before abex calls it flaky
/// (it passed once) or failing (it failed each time).
pub const RUNS_OF_A_FAILURE: usize = 3;

/// Each of `tests` run alone on the original up to [`RUNS_OF_A_FAILURE`] times, until it fails,
/// `jobs` tests at a time: per test, in order, (runs that failed, runs), or `None` where `stop`
/// or an interruption came first. A test that fails there is flaky (or failing): it kills no
/// mutant.
pub(crate) fn original_runs(
    suite: &TestSuite,
    tests: &[&str],
    jobs: usize,
    timeout: Duration,
    stop: &(dyn Fn() -> bool + Sync),
) -> Vec<Option<(usize, usize)>> {
    let runs_of = |i: usize| {
        let mut runs = 0;
        let mut failed = 0;
        while runs < RUNS_OF_A_FAILURE && failed == 0 {
            runs += 1;
            if suite.run(None, timeout, Some(tests[i])) != TestResult::Pass {
                failed += 1;
            }
            if crate::interrupt::stopped() {
                return None;
            }
        }
        Some((failed, runs))
    };
    let mut found = vec![None; tests.len()];
    in_parallel(tests.len(), jobs, stop, &runs_of, &mut |i, r| found[i] = r);
    found
}

/// Runs `mutants` (numbers) through `suite` with up to `jobs` at a time, each within the time
/// limit of `limit`; a timeout is retried once alone before it counts when `limit` says so
/// (see `early::Baseline::retry_timeouts`). `stop` is checked before each mutant (budget); an interruption
/// stops everything, and a run it cut short is left out. `on_result` hears each final result as
/// it comes (on the calling thread).
pub fn run_all(
    suite: &TestSuite,
    mutants: &[u32],
    jobs: usize,
    limit: (Duration, bool),
    stop: &(dyn Fn() -> bool + Sync),
    on_result: &mut dyn FnMut(u32, &TestResult, Duration),
) -> Vec<Option<(TestResult, Duration)>> {
    let (timeout, retry) = limit;
    let mut results: Vec<Option<(TestResult, Duration)>> = vec![None; mutants.len()];
    let work = |i: usize| {
        let t = Instant::now();
        (suite.run(Some(mutants[i]), timeout, None), t.elapsed())
    };
    in_parallel(mutants.len(), jobs, stop, &work, &mut |i, (r, took)| {
        if r != TestResult::Timeout || !retry {
            on_result(mutants[i], &r, took);
        }
        results[i] = Some((r, took));
    });
    // Parallel load causes false timeouts: retry each one alone.
    for (i, r) in results.iter_mut().enumerate().filter(|_| retry) {
        if let Some((TestResult::Timeout, _)) = r {
            if stop() || crate::interrupt::stopped() {
                break;
            }
            let t = Instant::now();
            let again = suite.run(Some(mutants[i]), timeout, None);
            if crate::interrupt::stopped() {
                break;
            }
            on_result(mutants[i], &again, t.elapsed());
            *r = Some((again, t.elapsed()));
        }
    }
    results
}

/// The environment cargo gives a package's tests.
fn cargo_test_env(package_dir: &Path, package: &str) -> Vec<(String, String)> {
    vec![
        ("CARGO_MANIFEST_DIR".into(), package_dir.display().to_string()),
        ("CARGO_PKG_NAME".into(), package.to_string()),
        ("CARGO".into(), std::env::var("CARGO").unwrap_or_else(|_| "cargo".into())),
    ]
}

/// The tests libtest's output `out` lists as failed, by path (a `#[should_panic]` test's
/// ` - should panic` left out).
pub(crate) fn failed_tests(out: &str) -> Vec<String> {
    out.lines()
        .filter_map(|l| {
            let name = l.strip_prefix("test ")?.strip_suffix(" ... FAILED")?.trim();
            Some(name.strip_suffix(" - should panic").unwrap_or(name).to_string())
        })
        .collect()
}

/// A test binary that is the shell script `script`, written to `dir/NAME.sh` (for tests).
#[cfg(test)]
pub(crate) fn script_binary(dir: &Path, name: &str, script: &str) -> TestBinary {
    use std::os::unix::fs::PermissionsExt;
    let exe = dir.join(format!("{name}.sh"));
    std::fs::write(&exe, script).unwrap();
    std::fs::set_permissions(&exe, std::fs::Permissions::from_mode(0o755)).unwrap();
    TestBinary { name: name.into(), exe, package: "p".into(), dir: dir.to_path_buf() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_killers_are_run_on_the_original_jobs_at_a_time_until_they_fail() {
        // Tests `a` and `b` pass and `c` fails, on the original; each run notes its start and
        // end in `log`, and the first run of each test lasts a second, so runs on two jobs
        // overlap where they can (one after the other: url 2.5.8's six killers, 0.7 s).
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("log");
        let script = format!(
            "#!/bin/sh\nif [ \"$1\" = --list ]; then printf 'a: test\\nb: test\\nc: test\\n\\n3 tests, 0 benchmarks\\n'; exit 0; fi\n\
             echo \"start $1\" >> '{log}'\n\
             [ -e '{log}.$1' ] || {{ touch '{log}.$1'; sleep 1; }}\n\
             echo \"end $1\" >> '{log}'\n\
             if [ \"$1\" = c ]; then echo 'test c ... FAILED'; exit 101; fi\n",
            log = log.display()
        );
        let suite = TestSuite::alone(script_binary(dir.path(), "tests", &script));
        let never = || false;
        let found = original_runs(&suite, &["a", "b", "c"], 2, Duration::from_secs(60), &never);
        // Until a failure, at most three runs each: `a` and `b` pass three, `c` fails its first.
        assert_eq!(found, [Some((0, 3)), Some((0, 3)), Some((1, 1))]);
        let log = std::fs::read_to_string(&log).unwrap();
        let lines: Vec<&str> = log.lines().collect();
        let first_end = lines.iter().position(|l| l.starts_with("end")).unwrap();
        let mut overlapping = lines[..first_end].to_vec();
        overlapping.sort_unstable();
        assert_eq!(overlapping, ["start a", "start b"], "{log}");
        assert_eq!(lines.iter().filter(|l| **l == "start c").count(), 1, "{log}");
        // Stopped before it starts, no test runs.
        std::fs::remove_file(dir.path().join("log")).unwrap();
        let stop = || true;
        assert_eq!(original_runs(&suite, &["a"], 2, Duration::from_secs(60), &stop), [None]);
        assert!(!dir.path().join("log").exists());
    }

    #[test]
    fn doc_tests_link_without_debug_info_unless_the_workspace_keeps_it() {
        // What rustdoc is given: the `--config` array, or `RUSTDOCFLAGS` where the environment
        // sets it (then the flags are added to the environment's).
        let flags = |manifest: &str, extra: &[String]| {
            let tmp = tempfile::tempdir().unwrap();
            std::fs::write(tmp.path().join("Cargo.toml"), manifest).unwrap();
            let docs = DocTests {
                tree: tmp.path().to_path_buf(),
                target_dir: tmp.path().join("target"),
                packages: vec!["p".into()],
                cargo_flags: Vec::new(),
                skip: Vec::new(),
                merge: true,
            };
            let cmd = docs.command(extra, &[]);
            let args: Vec<String> =
                cmd.get_args().map(|a| a.to_string_lossy().into_owned()).collect();
            let config = args
                .iter()
                .position(|a| a == "--config")
                .map(|i| args[i + 1].clone())
                .unwrap_or_default();
            let env = cmd
                .get_envs()
                .find(|(k, _)| *k == "RUSTDOCFLAGS")
                .and_then(|(_, v)| v)
                .map(|v| v.to_string_lossy().into_owned())
                .unwrap_or_default();
            format!("{config}{env}")
        };
        let plain = "[package]\nname = \"p\"\nversion = \"0.1.0\"\n";
        assert!(flags(plain, &[]).contains("-Cstrip=debuginfo"));
        let runtool = ["--test-runtool".to_string(), "/x/runtool".to_string()];
        let both = flags(plain, &runtool);
        assert!(both.contains("--test-runtool") && both.contains("/x/runtool"), "{both}");
        assert!(both.contains("-Cstrip=debuginfo"), "{both}");
        // A workspace that keeps debug info keeps it in its doc-tests too.
        let own = format!("{plain}\n[profile.dev]\ndebug = 2\n");
        assert!(!flags(&own, &runtool).contains("strip"));
        assert!(flags(&own, &runtool).contains("--test-runtool"));
    }

    #[test]
    fn left_out_doc_tests_reach_libtest_after_every_cargo_argument() {
        let docs = DocTests {
            tree: PathBuf::from("/x"),
            target_dir: PathBuf::from("/x/target"),
            packages: vec!["p".into()],
            cargo_flags: vec!["--features".into(), "f".into()],
            skip: vec!["needs_the_network".into()],
            merge: true,
        };
        let cmd = docs.command(&[], &["--quiet"]);
        let args: Vec<String> = cmd.get_args().map(|a| a.to_string_lossy().into_owned()).collect();
        let dashes = args.iter().position(|a| a == "--").expect("a `--`");
        assert_eq!(args[dashes + 1..], ["--skip", "needs_the_network"], "{args:?}");
        assert!(args[..dashes].contains(&"--quiet".to_string()), "{args:?}");
        let none = DocTests { skip: Vec::new(), ..docs };
        let cmd = none.command(&[], &[]);
        assert!(!cmd.get_args().any(|a| a == "--"));
    }

    #[test]
    fn a_command_run_to_its_end_is_killed_once_it_is_cancelled() {
        // A process group of its own, as every step's: the kill reaches it.
        let mut cmd = Command::new("sh");
        cmd.args(["-c", "sleep 20; echo finished"]).stdout(Stdio::piped()).stderr(Stdio::piped());
        crate::safety::own_group(&mut cmd);
        let cancel = Arc::new(AtomicBool::new(false));
        let stop = cancel.clone();
        let setter = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(200));
            stop.store(true, Ordering::SeqCst);
        });
        let (status, stdout, _) =
            run_to_end_unless(&mut cmd, Duration::from_secs(600), Some(&cancel)).unwrap();
        setter.join().unwrap();
        // Killed, as a command past its time is: the sleep never finished.
        assert_eq!(status, None);
        assert!(!stdout.contains("finished"), "{stdout}");
    }

    /// A test program that answers as libtest does: run whole, `slow::a` fails at once and
    /// `slow::b` runs 2 s (then writes `done`) before the failures' messages; run alone
    /// (`slow::a --exact`), `slow::a` fails with its message.
    fn failing_fast_then_slow(dir: &Path) -> TestSuite {
        let exe = dir.join("tests-bin");
        let script = r#"#!/bin/sh
if [ "$1" = "slow::a" ]; then
  printf 'running 1 test\ntest slow::a ... FAILED\n\nfailures:\n\n---- slow::a stdout ----\nassertion failed: it broke\n\nfailures:\n    slow::a\n\ntest result: FAILED\n'
  exit 101
fi
printf 'running 2 tests\ntest slow::a ... FAILED\n'
sleep 2
echo finished > "$(dirname "$0")/done"
printf 'test slow::b ... ok\n\nfailures:\n\n---- slow::a stdout ----\nassertion failed: it broke\n\ntest result: FAILED\n'
exit 101
"#;
        std::fs::write(&exe, script).unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&exe, std::fs::Permissions::from_mode(0o755)).unwrap();
        let b = TestBinary { name: "tests".into(), exe, package: "p".into(), dir: dir.into() };
        TestSuite {
            binaries: vec![b],
            skip: vec![],
            memory_limit: None,
            select: None,
            reach_dir: None,
            originals: Originals::default(),
        }
    }

    #[test]
    fn a_mutant_s_binary_stops_at_its_first_failed_test_and_keeps_the_failure_s_message() {
        let tmp = tempfile::tempdir().unwrap();
        let suite = failing_fast_then_slow(tmp.path());
        let r = suite.run(Some(3), Duration::from_secs(60), None);
        let TestResult::Fail { test, output } = r else { panic!("{r:?}") };
        assert_eq!(test, "slow::a");
        // The message, from the failed test run again alone.
        assert!(output.contains("assertion failed: it broke"), "{output}");
        // The slow test was stopped before it ended.
        assert!(!tmp.path().join("done").exists());
        // The original's runs (the baseline) go to the end.
        let r = suite.run(None, Duration::from_secs(60), None);
        assert!(matches!(r, TestResult::Fail { ref test, .. } if test == "slow::a"), "{r:?}");
        assert!(tmp.path().join("done").exists());
    }

    #[test]
    fn a_mutant_that_hangs_a_fast_test_is_stopped_at_the_limit_of_that_test_s_own_time() {
        // wildmatch 2.4.0: the whole suite takes 17 s (a randomised test), its limit minutes; a
        // mutant that made a test of milliseconds loop waited for all of it.
        let tmp = tempfile::tempdir().unwrap();
        let exe = tmp.path().join("tests-bin");
        let script = r#"#!/bin/sh
if [ -n "$ABEX_MUTANT" ]; then sleep 60; fi
printf 'running 1 test\ntest m::fast ... ok\n\ntest result: ok. 1 passed\n'
"#;
        std::fs::write(&exe, script).unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&exe, std::fs::Permissions::from_mode(0o755)).unwrap();
        let b =
            TestBinary { name: "tests".into(), exe, package: "p".into(), dir: tmp.path().into() };
        let suite = TestSuite::alone(b);
        let started = Instant::now();
        let r = suite.run(Some(1), Duration::from_secs(50), Some("m::fast"));
        assert_eq!(r, TestResult::Timeout);
        // Stopped at the floor (the original's own run of the test took milliseconds), not at
        // the 50 s the baseline gave.
        assert!(started.elapsed() < Duration::from_secs(20), "{:?}", started.elapsed());
        let originals = suite.originals.lock().unwrap();
        let key =
            (tmp.path().join("tests-bin"), vec!["m::fast".to_string(), "--exact".to_string()]);
        let took = originals.get(&key).copied().flatten().expect("the original's time");
        assert!(took < Defaults::TEST_TIMEOUT_FLOOR, "{took:?}");
    }

    #[test]
    fn a_should_panic_test_that_did_not_panic_is_named_by_its_path() {
        let out = "running 2 tests\ntest m::t - should panic ... FAILED\ntest m::u ... FAILED\n\
                   test m::v - should panic ... ok\n";
        assert_eq!(failed_tests(out), vec!["m::t".to_string(), "m::u".to_string()]);
    }

    #[test]
    fn a_failure_is_its_own_section() {
        let out = "running 2 tests\ntest a::ok ... ok\ntest a::bad ... FAILED\n\nfailures:\n\n\
                   ---- a::bad stdout ----\n\nthread 'a::bad' panicked at src/lib.rs:9:5:\n\
                   assertion `left == right` failed\n  left: 3\n right: 4\n\n\nfailures:\n    a::bad\n";
        let f = failure_of(out, "a::bad");
        assert!(f.starts_with("thread 'a::bad' panicked"), "{f}");
        assert!(f.contains("left: 3") && f.contains("right: 4"), "{f}");
        assert!(!f.contains("running 2 tests"), "{f}");
        assert_eq!(failure_of("boom\n", "x"), "boom");
    }

    #[test]
    fn the_first_failing_test_is_named() {
        let out = "running 3 tests\ntest a::ok ... ok\ntest a::bad ... FAILED\ntest b::worse ... FAILED\n";
        assert_eq!(first_failure(out).as_deref(), Some("a::bad"));
        assert_eq!(first_failure("test result: ok"), None);
    }
    #[test]
    fn a_huge_test_output_keeps_the_failing_test_s_name_and_message() {
        // libtest's output of a failing test that printed a megabyte line and 10,000 lines.
        let mut text =
            String::from("running 2 tests\ntest a::ok ... ok\ntest a::bad ... FAILED\n\n");
        text.push_str("failures:\n\n---- a::bad stdout ----\n");
        text.push_str(&"y".repeat(1 << 20));
        text.push('\n');
        for i in 0..10_000 {
            text.push_str(&format!("noise {i}\n"));
        }
        text.push_str("\nthread 'a::bad' panicked at src/lib.rs:9:5:\nassertion `left == right` failed\n  left: 3\n right: 4\n\n\nfailures:\n    a::bad\n\ntest result: FAILED. 1 passed; 1 failed\n");
        let out = TestOutput::read(text.as_bytes()).text();
        assert!(out.len() < 64 << 10, "{}", out.len());
        let failure = failure_of(&out, "a::bad");
        assert!(failure.contains("panicked at src/lib.rs:9:5"), "{failure}");
        assert!(failure.contains("left: 3") && failure.contains("right: 4"), "{failure}");
        assert!(out.contains("test a::bad ... FAILED"), "{out}");
        assert!(out.contains("lines cut"), "{out}");
    }
}
