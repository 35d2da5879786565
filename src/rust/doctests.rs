//! Doc-tests compiled once per build. rustdoc compiles every doc-test each time `cargo test
//! --doc` runs (about 20 s on `url`, once per survivor before), so the first run, on the
//! original code, goes through a runtool (`rustdoc --test-runtool`, stable) that keeps each
//! doc-test program, its arguments, the folder it ran in, whether it passed, and which mutant
//! sites it reached (`ABEX_REACH`, see `reach.rs`). A survivor then runs again the kept programs
//! that reached its function, with its switch on; one whose outcome differs from the original's
//! (it fails, or a `should_panic` doc-test no longer panics) kills it. Where the runtool cannot
//! be used (a toolchain without it), each survivor runs `cargo test --doc` as before.
//!
//! The recording first asks rustdoc to merge the doc-tests into one program, as it does on its
//! own from edition 2024 (`--merge-doctests=yes`, unstable before that edition, so rustdoc alone
//! runs with `RUSTC_BOOTSTRAP=1`, through a stand-in [`MERGING_RUSTDOC`]; the crate and its
//! dependencies are compiled as before). rustdoc compiles apart the doc-tests it cannot merge.
//! url's 67 doc-tests compile and run in 0.7-0.9 s merged against 4.3 s one program each. The
//! merged program runs each doc-test in a process of its own, as rustdoc runs it
//! (`RUSTDOC_DOCTEST_BIN_PATH` names the program, which then starts itself once per doc-test;
//! rustdoc leaves it unset for a runtool, so the runtool and [`DocPrograms::run`] set it). Where
//! rustdoc refuses the flag, or the merged doc-tests do not all pass on the original (a
//! doc-test that names its own crate, `rust_out`), the recording is made again one program per
//! doc-test, as the user's `cargo test` runs them; in edition 2015 it is made so at once
//! ([`DocTests::merge`]).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::rust::reach::BinaryTrace;
use crate::rust::suite::{self, DocTests, TestBinary, TestResult, TestSuite, DOC_TESTS};

/// The runtool rustdoc runs each doc-test program with (`$1` the program, then its arguments):
/// it keeps the program (a hard link into `ABEX_DOCTESTS`, which rustdoc's temporary folder
/// is in), its folder, package and arguments (NUL-separated), then runs it with the reached
/// sites recorded and keeps its exit status. A merged program runs each doc-test in a process of
/// its own (see the module's doc).
const RUNTOOL: &str = r#"#!/bin/sh
k=$(mktemp "$ABEX_DOCTESTS/run.XXXXXXXX") || exec "$@"
ln -f "$1" "$k.bin" 2>/dev/null || cp "$1" "$k.bin" || exec "$@"
printf '%s\0' "$PWD" "${CARGO_PKG_NAME-}" "$@" > "$k.args"
RUSTDOC_DOCTEST_BIN_PATH="$1" ABEX_REACH="$k.reach" "$@"
s=$?
echo "$s" > "$k.status"
exit "$s"
"#;

/// The rustdoc the merged recording runs (`$ABEX_RUSTDOC`, or the `rustdoc` of the `PATH`,
/// with unstable options allowed).
const MERGING_RUSTDOC: &str = r#"#!/bin/sh
RUSTC_BOOTSTRAP=1 exec "${ABEX_RUSTDOC:-rustdoc}" "$@"
"#;

/// One doc-test program as the original ran it.
#[derive(Clone, Debug)]
struct DocRun {
    program: TestBinary,
    args: Vec<String>,
    passed: bool,
    /// The mutant sites it reached.
    reached: BTreeSet<u32>,
}

/// The doc-test programs of a build, kept from its run on the original.
#[derive(Debug)]
pub struct DocPrograms {
    runs: Vec<DocRun>,
    /// The doc-tests rustdoc named (`src/lib.rs - Url::parse (line 123)`): file, line, name.
    names: Vec<(String, usize, String)>,
}

/// What running the doc-tests on the original gave.
#[derive(Debug)]
pub enum Recorded {
    /// They passed; each program is kept.
    Programs(DocPrograms),
    /// There are none, or they fail or hang on the original: they judge no mutant.
    Nothing,
    /// They passed, but rustdoc did not run them through the runtool: each survivor runs
    /// `cargo test --doc`.
    Unsupported,
}

/// A [`DocTests::record`] going on in a thread of its own, started as soon as the test
/// binaries are built so that rustdoc compiles the doc-tests (about 4 s on `url`, on every run)
/// while the baseline and the mutants' tests run and the pipeline explores. Dropped unwaited
/// (no survivor needs the doc-tests), it kills the `cargo test --doc` under way.
#[derive(Debug)]
pub struct Recording {
    handle: Option<std::thread::JoinHandle<Recorded>>,
    cancel: Arc<AtomicBool>,
}

impl Recording {
    /// Starts recording `docs`' programs into `dir` (see [`DocTests::record`]).
    pub fn start(docs: DocTests, dir: PathBuf, timeout: Duration) -> Recording {
        let cancel = Arc::new(AtomicBool::new(false));
        let stop = cancel.clone();
        let handle = std::thread::spawn(move || docs.record_unless(&dir, timeout, Some(&stop)));
        Recording { handle: Some(handle), cancel }
    }

    /// What the recording gave, once it ends ([`Recorded::Nothing`] if its thread died).
    pub fn wait(mut self) -> Recorded {
        self.handle.take().and_then(|h| h.join().ok()).unwrap_or(Recorded::Nothing)
    }
}

impl Drop for Recording {
    fn drop(&mut self) {
        self.cancel.store(true, Ordering::SeqCst);
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
    }
}

impl DocTests {
    /// Runs the doc-tests on the original through the runtool, keeping their programs in
    /// `dir` (emptied first).
    pub fn record(&self, dir: &Path, timeout: Duration) -> Recorded {
        self.record_unless(dir, timeout, None)
    }

    /// [`DocTests::record`], given up ([`Recorded::Nothing`]) once `cancel` is set: merged
    /// first where they may be, one program per doc-test where that gives nothing to keep.
    fn record_unless(
        &self,
        dir: &Path,
        timeout: Duration,
        cancel: Option<&AtomicBool>,
    ) -> Recorded {
        let merged = self.merge.then(|| self.record_once(dir, timeout, cancel, true)).flatten();
        match merged {
            Some(recorded) => recorded,
            None => self.record_once(dir, timeout, cancel, false).unwrap_or(Recorded::Nothing),
        }
    }

    /// One recording, the doc-tests merged or not; `None` where a merged one gave nothing to
    /// keep (rustdoc refused to merge, or the merged doc-tests failed) and one program per
    /// doc-test may.
    fn record_once(
        &self,
        dir: &Path,
        timeout: Duration,
        cancel: Option<&AtomicBool>,
        merge: bool,
    ) -> Option<Recorded> {
        let _ = std::fs::remove_dir_all(dir);
        let tmp = dir.join("tmp");
        let tool = dir.join("runtool");
        let rustdoc = dir.join("rustdoc");
        if std::fs::create_dir_all(&tmp).is_err()
            || write_tool(&tool, RUNTOOL).is_err()
            || (merge && write_tool(&rustdoc, MERGING_RUSTDOC).is_err())
        {
            return Some(Recorded::Unsupported);
        }
        let mut flags = vec!["--test-runtool".to_string(), tool.display().to_string()];
        if merge {
            flags.extend(["-Zunstable-options".to_string(), "--merge-doctests=yes".to_string()]);
        }
        let mut cmd = self.command(&flags, &[]);
        cmd.env("ABEX_DOCTESTS", dir)
            // rustdoc's temporary folder on the same file system: the programs are linked.
            .env("TMPDIR", &tmp);
        if merge {
            if let Some(user) = std::env::var_os("RUSTDOC") {
                cmd.env("ABEX_RUSTDOC", user);
            }
            cmd.env("RUSTDOC", &rustdoc);
        }
        let Some((status, stdout, stderr)) = suite::run_to_end_unless(&mut cmd, timeout, cancel)
        else {
            return Some(Recorded::Nothing);
        };
        let stopped = cancel.is_some_and(|c| c.load(Ordering::SeqCst));
        let ran = stdout.lines().any(|l| l.starts_with("running ") && l != "running 0 tests");
        let runs = read_runs(dir);
        // Cut, by the caller or at the time limit (a hang, merged or not).
        let Some(passed) = status.filter(|_| !stopped) else { return Some(Recorded::Nothing) };
        if merge && (!passed || ran && runs.is_empty()) {
            return None;
        }
        if !passed {
            if runs.is_empty() && stderr.contains("test-runtool") {
                return Some(Recorded::Unsupported);
            }
            return Some(Recorded::Nothing);
        }
        if !ran {
            return Some(Recorded::Nothing);
        }
        if runs.is_empty() {
            return Some(Recorded::Unsupported);
        }
        Some(Recorded::Programs(DocPrograms { runs, names: names(&stdout) }))
    }
}

/// Writes the shell script `text` to `path`, executable.
fn write_tool(path: &Path, text: &str) -> std::io::Result<()> {
    std::fs::write(path, text)?;
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755))
}

/// The programs the runtool kept in `dir`.
fn read_runs(dir: &Path) -> Vec<DocRun> {
    let Ok(entries) = std::fs::read_dir(dir) else { return Vec::new() };
    let mut keys: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "args"))
        .map(|p| p.with_extension(""))
        .collect();
    keys.sort();
    let mut runs = Vec::new();
    for k in keys {
        let with = |ext: &str| PathBuf::from(format!("{}.{ext}", k.display()));
        let (Ok(args), Ok(status)) =
            (std::fs::read(with("args")), std::fs::read_to_string(with("status")))
        else {
            continue;
        };
        let mut fields = args.split(|b| *b == 0).map(|f| String::from_utf8_lossy(f).into_owned());
        let (Some(dir), Some(package), Some(_program)) =
            (fields.next(), fields.next(), fields.next())
        else {
            continue;
        };
        let mut args: Vec<String> = fields.collect();
        // The list ends with a NUL: the last field is empty.
        if args.last().is_some_and(String::is_empty) {
            args.pop();
        }
        let reached = BinaryTrace::read(&with("reach"), None).reached.into_keys().collect();
        let name = DOC_TESTS.to_string();
        let program = TestBinary { name, exe: with("bin"), package, dir: PathBuf::from(dir) };
        runs.push(DocRun { program, args, passed: status.trim() == "0", reached });
    }
    runs
}

/// The doc-tests rustdoc's output names, with their file and line.
fn names(stdout: &str) -> Vec<(String, usize, String)> {
    stdout
        .lines()
        .filter_map(|l| {
            let name = l.strip_prefix("test ")?.rsplit_once(" ... ")?.0;
            let (file, rest) = name.split_once(" - ")?;
            let line = rest.rsplit_once("(line ")?.1.strip_suffix(')')?.parse().ok()?;
            Some((file.to_string(), line, name.to_string()))
        })
        .collect()
}

/// The first doc-test a merged program's output reports as failed (libtest's `test … FAILED`
/// line, printed as it ends); a program of one doc-test reports none.
fn failed_doc_test(output: &str) -> Option<String> {
    suite::failed_tests(output).into_iter().next()
}

impl DocPrograms {
    /// Runs the programs that reached any of the sites `group` (mutant `n`'s function) with
    /// mutant `n` active, within `timeout`, stopping at the first whose outcome differs from
    /// the original's. A merged program that passed on the original is stopped at its first
    /// failed doc-test, as a test binary is (clap_lex 0.7.4: `next` made an endless iterator
    /// sent five doc-tests to the memory limit one after the other, 26 s against 8 s).
    pub fn run(&self, suite: &TestSuite, n: u32, group: &[u32], timeout: Duration) -> TestResult {
        let deadline = Instant::now() + timeout;
        for run in self.runs.iter().filter(|r| group.iter().any(|m| r.reached.contains(m))) {
            let args: Vec<&str> = run.args.iter().map(String::as_str).collect();
            let Some((status, output, _)) =
                suite.exec(&run.program, &args, Some(n), None, deadline, run.passed)
            else {
                continue;
            };
            match status {
                None => return TestResult::Timeout,
                Some(passed) if passed != run.passed => {
                    let why = if passed { "the doc-test should panic and did not\n" } else { "" };
                    let test = failed_doc_test(&output).unwrap_or_else(|| self.name());
                    let output = format!("{why}{}", suite::tail(&output, 30));
                    return TestResult::Fail { test, output };
                }
                Some(_) => {}
            }
        }
        TestResult::Pass
    }

    /// The name of a doc-test that failed, when its output does not list it: the recording
    /// ran a single doc-test; otherwise `doc-tests` (what failed is in the failure's output).
    /// rustc places a doc-test's panic at a line of the doc-test's own generated code, not of
    /// its file (rustc 1.95: `panicked at src/lib.rs:7:1` for a doc-test at line 705), and a
    /// panic in the library names a line of the library: neither says which doc-test failed,
    /// and the nearest one to the panic's line was the wrong one (either 1.13: `for_both (line
    /// 72)` named for `left_or_default`'s doc-test).
    fn name(&self) -> String {
        match self.names.as_slice() {
            [(_, _, name)] => name.clone(),
            _ => DOC_TESTS.to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failing_doc_test_is_named_only_where_the_run_had_no_other() {
        let one = "running 1 test\ntest app/src/lib.rs - limit (line 6) ... ok\n";
        let p = DocPrograms { runs: Vec::new(), names: names(one) };
        assert_eq!(
            p.names[0],
            ("app/src/lib.rs".to_string(), 6, "app/src/lib.rs - limit (line 6)".to_string())
        );
        assert_eq!(p.name(), "app/src/lib.rs - limit (line 6)");
        // The panic's line is the doc-test's own (3, for a doc-test at line 40): the nearest
        // doc-test of the file would be `limit`, the wrong one.
        let two = "running 2 tests\ntest src/lib.rs - limit (line 6) ... ok\n\
                   test src/lib.rs - Thing::new (line 40) ... ok\n";
        let p = DocPrograms { runs: Vec::new(), names: names(two) };
        assert_eq!(p.name(), "doc-tests");
    }

    #[test]
    fn a_merged_program_names_the_doc_test_that_failed() {
        let out = "running 2 tests\ntest src/lib.rs - a (line 3) ... ok\n\
                   test src/lib.rs - b (line 9) ... FAILED\n\nfailures:\n\n\
                   ---- src/lib.rs - b (line 9) stdout ----\nfailures:\nboom\n\n\
                   failures:\n    src/lib.rs - b (line 9)\n\ntest result: FAILED.\n";
        assert_eq!(failed_doc_test(out).as_deref(), Some("src/lib.rs - b (line 9)"));
        // Stopped at its first failure, before the closing list.
        let cut = "running 2 tests\ntest src/lib.rs - c (line 4) - should panic ... FAILED\n";
        assert_eq!(failed_doc_test(cut).as_deref(), Some("src/lib.rs - c (line 4)"));
        // A program of one doc-test prints its panic, not libtest's list.
        assert_eq!(failed_doc_test("thread 'main' panicked at src/lib.rs:4:1:\nboom\n"), None);
    }

    #[test]
    fn the_runtools_records_are_read() {
        let dir = tempfile::tempdir().unwrap();
        let k = dir.path().join("run.abc");
        let args = b"/w/app\0app\0/tmp/rustdoctest/rust_out\0--x\0";
        std::fs::write(k.with_extension("abc.args"), args).unwrap();
        std::fs::write(k.with_extension("abc.status"), "101\n").unwrap();
        std::fs::write(k.with_extension("abc.reach"), "4\tmain\n9\tmain\n").unwrap();
        // A program still running when the record was read (no status) is left out.
        std::fs::write(dir.path().join("run.def.args"), b"/w\0w\0/p\0").unwrap();
        let runs = read_runs(dir.path());
        assert_eq!(runs.len(), 1);
        assert_eq!(runs[0].program.dir, PathBuf::from("/w/app"));
        assert_eq!(runs[0].program.package, "app");
        assert_eq!(runs[0].args, ["--x"]);
        assert!(!runs[0].passed);
        assert_eq!(runs[0].reached, [4, 9].into());
        assert_eq!(runs[0].program.exe, dir.path().join("run.abc.bin"));
    }
}
