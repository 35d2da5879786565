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
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

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
    /// (target name, executable).
    pub binaries: Vec<(String, PathBuf)>,
    /// Where they run (the package folder in the scratch copy).
    pub cwd: PathBuf,
    /// `CARGO_MANIFEST_DIR` and the like.
    pub env: Vec<(String, String)>,
    /// Tests left out of [`TestSuite::run`]: flaky ones, which fail on the original too.
    pub skip: Vec<String>,
    /// The address-space limit of a test process in bytes (a mutant that allocates without
    /// bound then fails its tests instead of exhausting the machine).
    pub memory_limit: Option<u64>,
}

/// Reads a child's stdout and stderr on two threads (one pipe filling up while the other is read
/// would block the child forever), each kept within a bound ([`TestOutput`]: a test that prints
/// a gigabyte costs abex no more than one that prints a line); the returned function waits for
/// both.
fn drain(child: &mut std::process::Child) -> impl FnOnce() -> (TestOutput, TestOutput) {
    fn read_all(pipe: Option<impl Read + Send + 'static>) -> std::thread::JoinHandle<TestOutput> {
        std::thread::spawn(move || pipe.map(TestOutput::read).unwrap_or_default())
    }
    let out = read_all(child.stdout.take());
    let err = read_all(child.stderr.take());
    move || (out.join().unwrap_or_default(), err.join().unwrap_or_default())
}

/// Waits for `child` until `deadline`; past it, kills its whole process group and gives `None`.
fn wait_until(
    child: &mut std::process::Child,
    deadline: Instant,
) -> Option<std::process::ExitStatus> {
    loop {
        match child.try_wait() {
            Ok(Some(st)) => return Some(st),
            Ok(None) if Instant::now() >= deadline => {
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

fn tail(s: &str, n: usize) -> String {
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
    /// The command running test binary `exe` with `mutant` active and libtest's `args`.
    fn command(&self, exe: &Path, mutant: Option<u32>, args: &[&str]) -> Command {
        let mut cmd = Command::new(exe);
        cmd.current_dir(&self.cwd)
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .env("RUST_BACKTRACE", "0")
            .env_remove("ABEX_MUTANT");
        for (k, v) in &self.env {
            cmd.env(k, v);
        }
        if let Some(n) = mutant {
            cmd.env("ABEX_MUTANT", n.to_string());
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
        for (_, exe) in &self.binaries {
            let mut child = self.command(exe, mutant, &[filter]).spawn().ok()?;
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
    /// failure; `filter` runs one exact test only; the [`TestSuite::skip`] tests never run.
    pub fn run(&self, mutant: Option<u32>, timeout: Duration, filter: Option<&str>) -> TestResult {
        let deadline = Instant::now() + timeout;
        let mut args: Vec<&str> = filter.into_iter().collect();
        for s in &self.skip {
            args.extend(["--skip", s.as_str()]);
        }
        if !args.is_empty() {
            args.push("--exact");
        }
        for (name, exe) in &self.binaries {
            let Ok(mut child) = self.command(exe, mutant, &args).spawn() else {
                return TestResult::Fail { test: name.clone(), output: "could not start".into() };
            };
            let _tracked = crate::interrupt::track(&child);
            let reader = drain(&mut child);
            let status = wait_until(&mut child, deadline);
            let (mut out, err) = reader();
            out.extend(err);
            match status {
                None => return TestResult::Timeout,
                Some(st) if !st.success() => {
                    let output = at_most(out.text());
                    let test = first_failure(&output).unwrap_or_else(|| name.clone());
                    return TestResult::Fail { test, output };
                }
                Some(_) => {}
            }
        }
        TestResult::Pass
    }
}

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
}

impl DocTests {
    /// Runs the doc-tests with `mutant` active; `None` when there are none to run.
    pub fn run(&self, mutant: Option<u32>, timeout: Duration) -> Option<TestResult> {
        let mut cmd = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
        cmd.current_dir(&self.tree)
            .args(["test", "--doc", "--quiet"])
            .env("CARGO_TARGET_DIR", &self.target_dir)
            .env("CARGO_TERM_COLOR", "never")
            .env_remove("ABEX_MUTANT")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        for p in &self.packages {
            cmd.args(["-p", p]);
        }
        cmd.args(&self.cargo_flags);
        if let Some(n) = mutant {
            cmd.env("ABEX_MUTANT", n.to_string());
        }
        crate::safety::scrub_env(&mut cmd);
        crate::safety::own_group(&mut cmd);
        let mut child = cmd.spawn().ok()?;
        let _tracked = crate::interrupt::track(&child);
        let reader = drain(&mut child);
        let deadline = Instant::now() + timeout;
        let status = wait_until(&mut child, deadline);
        let (stdout, stderr) = reader();
        let (stdout, stderr) = (stdout.text(), stderr.text());
        match status {
            None => Some(TestResult::Timeout),
            // No library, or no doc-test at all: nothing to run.
            Some(_) if stderr.contains("no library targets") => None,
            Some(st) if st.success() => {
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

/// Runs `mutants` (numbers) through `suite` with up to `jobs` at a time; a timeout is retried
/// once alone before it counts. `stop` is checked before each mutant (budget); an interruption
/// stops everything, and a run it cut short is left out. `on_result` hears each final result as
/// it comes (on the calling thread).
pub fn run_all(
    suite: &TestSuite,
    mutants: &[u32],
    jobs: usize,
    timeout: Duration,
    stop: &(dyn Fn() -> bool + Sync),
    on_result: &mut dyn FnMut(u32, &TestResult, Duration),
) -> Vec<Option<(TestResult, Duration)>> {
    let mut results: Vec<Option<(TestResult, Duration)>> = vec![None; mutants.len()];
    let next = AtomicUsize::new(0);
    std::thread::scope(|s| {
        let (tx, rx) = std::sync::mpsc::channel();
        for _ in 0..jobs.max(1) {
            let (tx, next) = (tx.clone(), &next);
            s.spawn(move || loop {
                let i = next.fetch_add(1, Ordering::SeqCst);
                if i >= mutants.len() || stop() || crate::interrupt::stopped() {
                    break;
                }
                let t = Instant::now();
                let r = suite.run(Some(mutants[i]), timeout, None);
                if crate::interrupt::stopped() || tx.send((i, r, t.elapsed())).is_err() {
                    break;
                }
            });
        }
        drop(tx);
        for (i, r, took) in rx {
            if r != TestResult::Timeout {
                on_result(mutants[i], &r, took);
            }
            results[i] = Some((r, took));
        }
    });
    // Parallel load causes false timeouts: retry each one alone.
    for (i, r) in results.iter_mut().enumerate() {
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
pub fn cargo_test_env(package_dir: &Path, package: &str) -> Vec<(String, String)> {
    vec![
        ("CARGO_MANIFEST_DIR".into(), package_dir.display().to_string()),
        ("CARGO_PKG_NAME".into(), package.to_string()),
        ("CARGO".into(), std::env::var("CARGO").unwrap_or_else(|_| "cargo".into())),
    ]
}

/// The tests libtest's output `out` lists as failed, by path (a `#[should_panic]` test's
/// ` - should panic` left out).
fn failed_tests(out: &str) -> Vec<String> {
    out.lines()
        .filter_map(|l| {
            let name = l.strip_prefix("test ")?.strip_suffix(" ... FAILED")?.trim();
            Some(name.strip_suffix(" - should panic").unwrap_or(name).to_string())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

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
