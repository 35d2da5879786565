//! Cargo calls in a scratch copy: one environment for all of them (`scratch_cargo`), so that
//! each reuses what the others compiled; the arguments of a harness build; its JSON messages
//! read into the executables built and the compiler's errors; and the test binaries built by a
//! second call in the background while the harness already serves.
//!
//! With resolver 2, a call that builds no test leaves out the features dev-dependencies turn on,
//! so a dependency shared with a dev-dependency would be compiled once per feature set. Every
//! call that builds the harness therefore resolves with the dev-dependencies: with the test
//! binaries (`--tests`), or, when the harness comes first, with `--examples` in a copy whose
//! examples are removed (`harness::manifests`), which selects nothing but still resolves as a
//! test build would.

use std::io::BufReader;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::thread::JoinHandle;

/// One test program: its target's name, the executable, and the package it tests, whose folder
/// (in the scratch copy) it runs in, as cargo runs it, with `CARGO_MANIFEST_DIR` and
/// `CARGO_PKG_NAME` naming them (a test of another workspace package that reads its own files
/// by relative path finds them).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TestBinary {
    /// The target's name (`lib` tests take the crate's).
    pub name: String,
    /// The executable.
    pub exe: PathBuf,
    /// The package it belongs to.
    pub package: String,
    /// The package's folder.
    pub dir: PathBuf,
}

/// A `cargo` command in the scratch copy `tree`, building in `target_dir`: the one environment
/// of every cargo call abex makes there (the harness with the test binaries, doc-tests), since a
/// call with another `RUSTFLAGS` or profile would compile every dependency again, and the next
/// call with the first ones would compile them once more.
pub fn scratch_cargo(tree: &Path, target_dir: &Path) -> Command {
    let mut cmd = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    cmd.current_dir(tree)
        .env("CARGO_TARGET_DIR", target_dir)
        .env("CARGO_TERM_COLOR", "never")
        // Panics must unwind for the harness to report them (tests unwind anyway).
        .env("CARGO_PROFILE_DEV_PANIC", "unwind");
    no_debug_info(&mut cmd, tree);
    cap_lints(&mut cmd, tree);
    crate::safety::scrub_env(&mut cmd);
    // Its own process group: an interrupted run kills cargo and every rustc it started.
    crate::safety::own_group(&mut cmd);
    cmd
}

/// Builds without debug info, as no one debugs the scratch build: a crate's tests and their
/// dependencies compile in about 0.85 of the time (humantime's workspace, 2 cores: 28.5 s
/// against 33.1 s) and take half the disk. The panic locations tests and the harness report
/// do not come from debug info. A workspace whose manifest sets `debug` in its own `dev` or
/// `test` profile keeps it (a test that reads its own backtrace's lines then still passes); its
/// other settings (base64's `[profile.test] opt-level = 3`) leave debug info out.
fn no_debug_info(cmd: &mut Command, tree: &Path) {
    if drops_debug_info(tree) {
        cmd.env("CARGO_PROFILE_DEV_DEBUG", "false").env("CARGO_PROFILE_TEST_DEBUG", "false");
    }
}

/// Whether the scratch build of `tree` is without debug info (see `no_debug_info`): its
/// workspace's manifest leaves `debug` to abex.
pub fn drops_debug_info(tree: &Path) -> bool {
    let manifest = std::fs::read_to_string(tree.join("Cargo.toml")).unwrap_or_default();
    !sets_debug(&manifest)
}

/// Whether the manifest's `dev` or `test` profile (or a package override in one) sets `debug`;
/// a manifest that does not parse is taken to, so nothing of it is overridden.
fn sets_debug(manifest: &str) -> bool {
    fn has_debug(t: &toml::Table) -> bool {
        t.contains_key("debug") || t.values().any(|v| v.as_table().is_some_and(has_debug))
    }
    let Ok(doc) = manifest.parse::<toml::Table>() else { return true };
    let profiles = doc.get("profile").and_then(toml::Value::as_table);
    ["dev", "test"]
        .iter()
        .filter_map(|p| profiles.and_then(|t| t.get(*p)).and_then(toml::Value::as_table))
        .any(has_debug)
}

/// Caps lints at "warn" (as cargo-mutants does), so that a crate's `#![deny(warnings)]` does not
/// turn a mutant's harmless warning (an argument left unused) into a build failure. `RUSTFLAGS`
/// from the environment is kept; when a cargo config file may set `rustflags`, nothing is
/// changed, since setting the variable would silently replace the config's flags.
fn cap_lints(cmd: &mut Command, tree: &Path) {
    if std::env::var_os("CARGO_ENCODED_RUSTFLAGS").is_some() {
        return;
    }
    let from_env = std::env::var("RUSTFLAGS").ok();
    if from_env.is_none() {
        let has_config = tree
            .ancestors()
            .any(|d| d.join(".cargo/config.toml").is_file() || d.join(".cargo/config").is_file())
            || std::env::var_os("CARGO_HOME")
                .map(PathBuf::from)
                .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")))
                .is_some_and(|h| h.join("config.toml").is_file() || h.join("config").is_file());
        if has_config {
            return;
        }
    }
    let flags = from_env
        .map_or_else(|| "--cap-lints=warn".to_string(), |f| format!("{f} --cap-lints=warn"));
    cmd.env("RUSTFLAGS", flags);
}

/// A compiler error: where, and its rendered text.
#[derive(Clone, Debug)]
pub struct CompileError {
    /// The file, as the compiler names it.
    pub file: String,
    /// The line of its primary span.
    pub line: usize,
    /// The column of its primary span's start, in characters from 1.
    pub column: usize,
    /// The message as the compiler renders it, colours removed.
    pub rendered: String,
}

/// What one `cargo` call produced.
#[derive(Debug, Default)]
pub struct CargoRun {
    /// Whether it succeeded.
    pub ok: bool,
    /// The executables built: whether each is a test, and the program.
    pub executables: Vec<(bool, TestBinary)>,
    /// The compiler's errors.
    pub errors: Vec<CompileError>,
    /// What cargo printed on stderr.
    pub stderr: String,
}

impl CargoRun {
    /// The test binaries it built.
    pub fn tests(&self) -> Vec<TestBinary> {
        self.executables.iter().filter(|(t, _)| *t).map(|(_, b)| b.clone()).collect()
    }
}

/// Runs `cargo ARGS FLAGS` in `tree` (see [`scratch_cargo`]), reading its JSON messages.
pub fn run(
    tree: &Path,
    target_dir: &Path,
    args: &[&str],
    flags: &[String],
) -> std::io::Result<CargoRun> {
    let mut cmd = scratch_cargo(tree, target_dir);
    cmd.args(args)
        .args(flags)
        .arg("--message-format=json-diagnostic-rendered-ansi")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn()?;
    let _tracked = crate::interrupt::track(&child);
    let stdout = child.stdout.take().ok_or_else(|| std::io::Error::other("no stdout"))?;
    let stderr = child.stderr.take();
    let err_thread = std::thread::spawn(move || {
        let mut s = String::new();
        if let Some(mut e) = stderr {
            let _ = std::io::Read::read_to_string(&mut e, &mut s);
        }
        s
    });
    let mut run = CargoRun::default();
    for msg in cargo_metadata::Message::parse_stream(BufReader::new(stdout)).flatten() {
        match msg {
            cargo_metadata::Message::CompilerArtifact(a) => {
                if let Some(e) = a.executable {
                    let dir = a.manifest_path.parent().map_or_else(PathBuf::new, PathBuf::from);
                    let package = package_name(&a.package_id.repr, &dir);
                    let exe = PathBuf::from(e);
                    let binary = TestBinary { name: a.target.name.clone(), exe, package, dir };
                    run.executables.push((a.profile.test, binary));
                }
            }
            cargo_metadata::Message::CompilerMessage(m)
                if m.message.level == cargo_metadata::diagnostic::DiagnosticLevel::Error =>
            {
                let span = m.message.spans.iter().find(|s| s.is_primary);
                run.errors.push(CompileError {
                    file: span.map(|s| s.file_name.clone()).unwrap_or_default(),
                    line: span.map_or(0, |s| s.line_start),
                    column: span.map_or(0, |s| s.column_start),
                    rendered: strip_ansi(
                        m.message.rendered.as_deref().unwrap_or(&m.message.message),
                    ),
                });
            }
            _ => {}
        }
    }
    run.ok = child.wait()?.success();
    run.stderr = err_thread.join().unwrap_or_default();
    Ok(run)
}

/// The name of the package whose id is `repr` (`path+file:///w/dir#name@1.0.0`, or
/// `path+file:///w/name#1.0.0` when the folder has the package's name) and folder is `dir`.
fn package_name(repr: &str, dir: &Path) -> String {
    let after = repr.rsplit_once('#').map_or(repr, |(_, a)| a);
    match after.split_once('@') {
        Some((name, _)) => name.to_string(),
        None => dir.file_name().map_or_else(String::new, |n| n.to_string_lossy().into_owned()),
    }
}

fn strip_ansi(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            for d in chars.by_ref() {
                if d.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// What a harness build builds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Build {
    /// The harness executable and, when there are test packages, their test binaries (what
    /// `cargo test --no-run` builds, examples aside), in one call: cargo schedules both on every
    /// core.
    All,
    /// The harness executable alone, resolved as the test build will be (`--examples`, with
    /// the examples removed from the copy): the dependencies of the tests come later, in the
    /// background (see [`PendingTests`]).
    HarnessFirst,
    /// The crate target's own test binary alone (where suggested tests are inserted), when its
    /// package is the only one tested; with others, they would resolve to other features, and
    /// the call is [`Build::All`]'s.
    OwnTests,
}

/// The arguments of the cargo call that builds `what` for `package`: its harness executable
/// `bin`, its own test target `own` (`--lib`, or `--bin NAME`), the test packages.
pub fn build_args<'a>(
    what: Build,
    package: &'a str,
    bin: &'a str,
    own: &[&'a str],
    test_packages: &'a [String],
) -> Vec<&'a str> {
    let alone = test_packages.iter().all(|p| p == package);
    if what == Build::OwnTests && alone {
        return [&["test", "--no-run", "-p", package][..], own].concat();
    }
    // The test profile, as `cargo test` builds (a crate's `[profile.test]` may ask for
    // `opt-level = 3`, or no overflow checks): the harness shares its dependencies' artifacts,
    // and the doc-tests and the check of suggested tests (`cargo test`) reuse them.
    let mut args = vec!["build", "--profile", "test", "-p", package, "--bin", bin];
    if !test_packages.is_empty() {
        args.push(if what == Build::HarnessFirst { "--examples" } else { "--tests" });
        for p in test_packages.iter().filter(|p| p.as_str() != package) {
            args.extend(["-p", p.as_str()]);
        }
    }
    args
}

/// The test binaries of a build, built by a cargo call in the background.
pub struct PendingTests {
    handle: JoinHandle<std::io::Result<CargoRun>>,
}

impl std::fmt::Debug for PendingTests {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("PendingTests")
    }
}

impl PendingTests {
    /// Starts `cargo ARGS FLAGS` in `tree`.
    pub fn start(tree: &Path, target_dir: &Path, args: &[&str], flags: &[String]) -> PendingTests {
        let (tree, target_dir) = (tree.to_path_buf(), target_dir.to_path_buf());
        let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
        let flags = flags.to_vec();
        let handle = std::thread::spawn(move || {
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            run(&tree, &target_dir, &args, &flags)
        });
        PendingTests { handle }
    }

    /// Waits for the call: the test binaries, or why they did not build.
    pub fn wait(self) -> Result<Vec<TestBinary>, String> {
        match self.handle.join() {
            Ok(Ok(run)) if run.ok => Ok(run.tests()),
            Ok(Ok(run)) => Err(run
                .errors
                .first()
                .map_or_else(|| run.stderr.trim().to_string(), |e| e.rendered.clone())),
            Ok(Err(e)) => Err(format!("cargo could not be run: {e}")),
            Err(_) => Err("the build of the tests stopped".into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_scratch_build_has_no_debug_info_unless_the_workspace_profile_sets_it() {
        let debug = |manifest: &str| {
            let tmp = tempfile::tempdir().unwrap();
            std::fs::write(tmp.path().join("Cargo.toml"), manifest).unwrap();
            let cmd = scratch_cargo(tmp.path(), &tmp.path().join("target"));
            let envs: Vec<(String, Option<String>)> = cmd
                .get_envs()
                .map(|(k, v)| (k.to_string_lossy().into(), v.map(|v| v.to_string_lossy().into())))
                .collect();
            ["CARGO_PROFILE_DEV_DEBUG", "CARGO_PROFILE_TEST_DEBUG"]
                .map(|k| envs.iter().find(|(n, _)| n == k).and_then(|(_, v)| v.clone()))
        };
        let plain = "[package]\nname = \"p\"\nversion = \"0.1.0\"\n";
        assert_eq!(debug(plain), [Some("false".to_string()), Some("false".to_string())]);
        let own = format!("{plain}\n[profile.dev]\ndebug = 2\n");
        assert_eq!(debug(&own), [None, None]);
        let per_package = format!("{plain}\n[profile.test.package.p]\ndebug = true\n");
        assert_eq!(debug(&per_package), [None, None]);
        // A profile that sets something else (base64: `opt-level = 3`) still builds without.
        let fast = format!("{plain}\n[profile.test]\nopt-level = 3\n[profile.bench]\ndebug = 2\n");
        assert_eq!(debug(&fast), [Some("false".to_string()), Some("false".to_string())]);
    }

    #[test]
    fn ansi_codes_are_stripped_from_compiler_output() {
        assert_eq!(strip_ansi("\u{1b}[0m\u{1b}[1m\u{1b}[38;5;9merror\u{1b}[0m: x"), "error: x");
    }

    #[test]
    fn the_harness_and_the_tests_resolve_as_one_test_build() {
        let own = ["app".to_string()];
        let with_dependent = ["app".to_string(), "cli".to_string()];
        let (h, lib) = ("__abex_harness", ["--lib"]);
        let args = |what, tested: &[String]| build_args(what, "app", h, &lib, tested).join(" ");
        // One call builds the harness and the tests.
        let (own_all, none) = (args(Build::All, &own), args(Build::All, &[]));
        assert_eq!(own_all, "build --profile test -p app --bin __abex_harness --tests");
        assert_eq!(none, "build --profile test -p app --bin __abex_harness");
        let both = "build --profile test -p app --bin __abex_harness --tests -p cli";
        assert_eq!(args(Build::All, &with_dependent), both);
        // The harness first, resolved as the tests will be; nothing to resolve without tests.
        let first = "build --profile test -p app --bin __abex_harness --examples -p cli";
        assert_eq!(args(Build::HarnessFirst, &with_dependent), first);
        let alone = "build --profile test -p app --bin __abex_harness";
        assert_eq!(args(Build::HarnessFirst, &[]), alone);
        // A check of suggested tests builds the crate's own test binary, when its package
        // alone is tested (with a dependent, the same call as the full build).
        assert_eq!(args(Build::OwnTests, &own), "test --no-run -p app --lib");
        assert_eq!(args(Build::OwnTests, &with_dependent), both);
        let tool = build_args(Build::OwnTests, "app", "tool", &["--bin", "tool"], &own);
        assert_eq!(tool.join(" "), "test --no-run -p app --bin tool");
    }

    #[test]
    fn a_package_is_named_from_its_id() {
        let dir = Path::new("/s/tree/humantime-serde");
        let named = package_name("path+file:///s/tree/humantime-serde#1.1.1", dir);
        assert_eq!(named, "humantime-serde");
        assert_eq!(package_name("path+file:///s/tree/core#ws-core@0.1.0", dir), "ws-core");
    }
}
