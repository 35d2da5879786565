//! The mutation lab: runs a crate's test binaries on the original (the baseline) and on each
//! mutant, in the scratch copy, with the mutant chosen by `ABEX_MUTANT` (mutation switching), a
//! time limit derived from the baseline, secrets removed from the environment, and `--jobs`
//! mutants at a time.
//!
//! Test binaries are run directly, the way `cargo nextest` runs them (one process per binary,
//! libtest's own output parsed), so a mutant costs only its tests' time. The first failing test
//! of the first failing binary names the killer.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
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
}

fn first_failure(output: &str) -> Option<String> {
    output.lines().find_map(|l| {
        let rest = l.strip_prefix("test ")?;
        let name = rest.strip_suffix(" ... FAILED")?;
        Some(name.trim().to_string())
    })
}

fn tail(s: &str, n: usize) -> String {
    let lines: Vec<&str> = s.lines().collect();
    lines[lines.len().saturating_sub(n)..].join("\n")
}

impl TestSuite {
    /// Runs the binaries in turn with `mutant` active (none: the original), stopping at the first
    /// failure; `filter` runs one exact test only.
    pub fn run(&self, mutant: Option<u32>, timeout: Duration, filter: Option<&str>) -> TestResult {
        let deadline = Instant::now() + timeout;
        for (name, exe) in &self.binaries {
            let mut cmd = Command::new(exe);
            cmd.current_dir(&self.cwd)
                .stdin(Stdio::null())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .env("RUST_BACKTRACE", "0")
                .env_remove("ABEX_MUTANT");
            if let Some(f) = filter {
                cmd.args([f, "--exact"]);
            }
            for (k, v) in &self.env {
                cmd.env(k, v);
            }
            if let Some(n) = mutant {
                cmd.env("ABEX_MUTANT", n.to_string());
            }
            crate::safety::scrub_env(&mut cmd);
            let Ok(mut child) = cmd.spawn() else {
                return TestResult::Fail { test: name.clone(), output: "could not start".into() };
            };
            let mut out = child.stdout.take().expect("piped");
            let mut err = child.stderr.take().expect("piped");
            let reader = std::thread::spawn(move || {
                let mut s = String::new();
                let _ = out.read_to_string(&mut s);
                let mut e = String::new();
                let _ = err.read_to_string(&mut e);
                s.push_str(&e);
                s
            });
            let status = loop {
                match child.try_wait() {
                    Ok(Some(st)) => break Some(st),
                    Ok(None) if Instant::now() >= deadline => {
                        let _ = child.kill();
                        let _ = child.wait();
                        break None;
                    }
                    Ok(None) => std::thread::sleep(Duration::from_millis(2)),
                    Err(_) => break None,
                }
            };
            let output = reader.join().unwrap_or_default();
            match status {
                None => return TestResult::Timeout,
                Some(st) if !st.success() => {
                    let test = first_failure(&output).unwrap_or_else(|| name.clone());
                    return TestResult::Fail { test, output: tail(&output, 30) };
                }
                Some(_) => {}
            }
        }
        TestResult::Pass
    }
}

/// The time limit of a mutant's tests from the baseline's duration: five times it, at least 5 s
/// (as cargo-mutants does, scaled for suites that take milliseconds).
pub fn timeout_from_baseline(baseline: Duration) -> Duration {
    (baseline * 5).max(Duration::from_secs(5))
}

/// Runs `mutants` (numbers) through `suite` with up to `jobs` at a time; a timeout is retried
/// once alone before it counts. `stop` is checked before each mutant (budget, Ctrl-C).
pub fn run_all(
    suite: &TestSuite,
    mutants: &[u32],
    jobs: usize,
    timeout: Duration,
    stop: &(dyn Fn() -> bool + Sync),
    on_result: &(dyn Fn(u32, &TestResult, Duration) + Sync),
) -> Vec<Option<(TestResult, Duration)>> {
    let results: Mutex<Vec<Option<(TestResult, Duration)>>> = Mutex::new(vec![None; mutants.len()]);
    let next = AtomicUsize::new(0);
    std::thread::scope(|s| {
        for _ in 0..jobs.max(1) {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::SeqCst);
                if i >= mutants.len() || stop() {
                    break;
                }
                let t = Instant::now();
                let r = suite.run(Some(mutants[i]), timeout, None);
                let took = t.elapsed();
                if r != TestResult::Timeout {
                    on_result(mutants[i], &r, took);
                }
                results.lock().unwrap_or_else(|e| e.into_inner())[i] = Some((r, took));
            });
        }
    });
    let mut results = results.into_inner().unwrap_or_else(|e| e.into_inner());
    // Parallel load causes false timeouts: retry each one alone.
    for (i, r) in results.iter_mut().enumerate() {
        if let Some((TestResult::Timeout, _)) = r {
            if stop() {
                break;
            }
            let t = Instant::now();
            let again = suite.run(Some(mutants[i]), timeout, None);
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_failing_test_is_named() {
        let out = "running 3 tests\ntest a::ok ... ok\ntest a::bad ... FAILED\ntest b::worse ... FAILED\n";
        assert_eq!(first_failure(out).as_deref(), Some("a::bad"));
        assert_eq!(first_failure("test result: ok"), None);
    }

    #[test]
    fn timeouts_scale_with_the_baseline_but_never_below_five_seconds() {
        assert_eq!(timeout_from_baseline(Duration::from_millis(10)), Duration::from_secs(5));
        assert_eq!(timeout_from_baseline(Duration::from_secs(3)), Duration::from_secs(15));
    }
}
