//! One build per run, end to end: `cargo abex` on a workspace whose crate under test turns on a
//! feature of its dependency for its tests alone (`tests/fixtures/onebuild`) compiles the
//! dependency once in a run (harness, test binaries, doc-tests, suggested tests share one target
//! folder, one environment and one feature set) and not at all in the next run; a mutant runs
//! only the tests that reach its function on the original code; and the tests of another
//! package run in that package's folder.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

use crate::support;

/// A `cargo` that runs the real one and appends its arguments (`cargo: …`), its folder
/// (`cwd: …`) and what it prints on stderr (`Compiling …` lines) to `log`.
fn logging_cargo(dir: &Path, log: &Path) -> PathBuf {
    let real = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let script = dir.join("cargo-logging");
    let text = format!(
        "#!/bin/bash\necho \"cargo: $*\" >> '{log}'\necho \"cwd: $PWD\" >> '{log}'\nerr=$(mktemp)\n'{real}' \"$@\" 2>\"$err\"\nrc=$?\ncat \"$err\" >> '{log}'\ncat \"$err\" >&2\nrm -f \"$err\"\nexit $rc\n",
        log = log.display()
    );
    std::fs::write(&script, text).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    script
}

fn abex(dir: &Path, env: &[(&str, &Path)], args: &[&str]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_cargo-abex"));
    cmd.arg("abex")
        .args(args)
        .current_dir(dir)
        .env_remove("GITHUB_BASE_REF")
        .env_remove("ABEX_API_KEY")
        .env_remove("OPENAI_API_KEY")
        .env("NO_COLOR", "1");
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().unwrap()
}

fn report(dir: &Path) -> Value {
    let text = std::fs::read_to_string(dir.join(".abex/out/report.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// How many times cargo said it compiled `package`.
fn compiled(log: &str, package: &str) -> usize {
    let line = format!("Compiling {package} v");
    log.lines().filter(|l| l.trim_start().starts_with(&line)).count()
}

/// Runs `cargo abex args` on a copy of `fixture` with a logging cargo: the copy and the log.
fn logged_run(fixture: &str, args: &[&str]) -> (tempfile::TempDir, PathBuf, String) {
    let (tmp, dir) = support::project(fixture);
    let log = tmp.path().join("cargo.log");
    let cargo = logging_cargo(tmp.path(), &log);
    let o = abex(&dir, &[("CARGO", &cargo)], args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = std::fs::read_to_string(&log).unwrap();
    (tmp, dir, text)
}

/// The `cargo test --doc` calls of `log`.
fn doc_calls(log: &str) -> Vec<&str> {
    log.lines().filter(|l| l.starts_with("cargo: ") && l.contains(" --doc")).collect()
}

fn mutation<'a>(r: &'a Value, name: &str) -> &'a Value {
    let targets = r["targets"].as_array().unwrap();
    let t = targets.iter().find(|t| t["name"] == name).unwrap_or_else(|| panic!("{r:#}"));
    &t["mutation"]
}

#[test]
fn a_run_compiles_each_dependency_once_and_the_next_run_only_the_changed_crate() {
    let (tmp, dir) = support::project("onebuild");
    let log = tmp.path().join("cargo.log");
    let cargo = logging_cargo(tmp.path(), &log);
    let args = ["--offline", "-p", "onebuild-app", "--all", "--pairs", "200"];
    let o = abex(&dir, &[("CARGO", &cargo)], &args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let first = std::fs::read_to_string(&log).unwrap();
    // The harness, the test binaries (with the feature the tests turn on), the doc-tests (a
    // survivor of `limit` meets them) and the suggested tests' build share one compilation.
    assert_eq!(compiled(&first, "onebuild-dep"), 1, "{first}");
    // The doc-tests were compiled once, merged into one program; the survivor `>` of `limit`
    // ran the kept program, which killed it, and its output named the doc-test that failed.
    let doc_runs = doc_calls(&first);
    assert_eq!(doc_runs.len(), 1, "{first}");
    assert!(doc_runs[0].contains("--merge-doctests=yes"), "{first}");
    // The harness came first (resolved as the tests are: `--examples`), its tests after.
    let calls: Vec<&str> = first.lines().filter(|l| l.starts_with("cargo: build")).collect();
    assert!(calls[0].contains("--bin __abex_harness --examples"), "{first}");
    assert!(calls[1].contains("--bin __abex_harness --tests"), "{first}");
    let r = report(&dir);
    let limit = mutation(&r, "limit");
    let mutants = limit["mutants"].as_array().unwrap();
    let doc_kill = mutants.iter().find(|m| m["replacement"] == "x > onebuild_dep::base()");
    // (The line is the scratch copy's, where the switched crate root has two lines more.)
    let killer = doc_kill.unwrap()["killed_by"].as_str().unwrap();
    assert!(killer.starts_with("app/src/lib.rs - limit (line "), "{limit:#}");
    assert!(mutation(&r, "twice")["counts"]["killed"].as_u64().unwrap() >= 1, "{r:#}");

    // The next push changes one function: the dependency is not compiled again.
    let lib = dir.join("app/src/lib.rs");
    let text = std::fs::read_to_string(&lib).unwrap().replace("x * 2", "2 * x");
    std::fs::write(&lib, text).unwrap();
    support::git(&dir, &["commit", "-q", "-am", "twice: 2 * x"]);
    std::fs::write(&log, "").unwrap();
    let o = abex(&dir, &[("CARGO", &cargo)], &args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let second = std::fs::read_to_string(&log).unwrap();
    assert_eq!(compiled(&second, "onebuild-dep"), 0, "{second}");
    assert!(compiled(&second, "onebuild-app") >= 1, "{second}");
}

#[test]
fn doc_tests_that_fail_merged_are_recorded_again_one_program_each_and_still_kill() {
    // `name_of`'s doc-test names its own crate, `rust_out` where each doc-test is a program of
    // its own (as the user's `cargo test` runs it, edition 2021), not where rustdoc merges them.
    let (_tmp, dir, text) = logged_run("docsalone", &["--offline", "--all", "--pairs", "100"]);
    // The recordings go through the runtool; a mutant built alone runs `cargo test --doc`.
    let doc_runs: Vec<&str> =
        doc_calls(&text).into_iter().filter(|l| l.contains("runtool")).collect();
    assert_eq!(doc_runs.len(), 2, "{text}");
    assert!(doc_runs[0].contains("--merge-doctests=yes"), "{text}");
    assert!(!doc_runs[1].contains("--merge-doctests"), "{text}");
    // `x >= 10` made `x > 10` passes the unit test; `large`'s doc-test, kept one program per
    // doc-test, kills it.
    let r = report(&dir);
    let large = mutation(&r, "large");
    let mutants = large["mutants"].as_array().unwrap();
    let gt = mutants
        .iter()
        .find(|m| m["replacement"] == "x > 10")
        .unwrap_or_else(|| panic!("{large:#}"));
    assert_eq!(gt["status"], "killed", "{large:#}");
    assert_eq!(gt["killed_by"], "doc-tests", "{large:#}");
    // `sibling`'s first `&&` made `||` survives the doc-test as the switched build holds it,
    // `(len > 0 || len == other) && inside`, and its diff says so, parentheses included.
    let sibling = mutation(&r, "sibling");
    let or = sibling["mutants"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| {
            m["original"] == "len > 0 && len == other"
                && m["replacement"].as_str().is_some_and(|t| t.contains("||"))
        })
        .unwrap_or_else(|| panic!("{sibling:#}"));
    assert_eq!(or["replacement"], "(len > 0 || len == other)", "{or:#}");
    assert_eq!(or["status"], "survived", "{or:#}");
    assert!(or["witness"].is_object(), "{or:#}");
    assert!(
        or["diff"].as_str().unwrap().contains("+    (len > 0 || len == other) && inside"),
        "{or:#}"
    );
    // `prefix` is a `const fn`: its mutants are built alone, and meet the doc-tests there.
    // `32` made `33` passes the unit test; the doc-test kills it. `>` made `>=` is a gap.
    let prefix = mutation(&r, "prefix");
    let of = |original: &str, replacement: &str| {
        let all = prefix["mutants"].as_array().unwrap();
        let m = all.iter().find(|m| m["original"] == original && m["replacement"] == replacement);
        m.unwrap_or_else(|| panic!("{prefix:#}")).clone()
    };
    let bound = of("32", "33");
    assert_eq!(bound["status"], "killed", "{bound:#}");
    assert_eq!(bound["killed_by"], "doc-tests", "{bound:#}");
    let ge = of("len > 32", "len >= 32");
    assert_eq!(ge["status"], "survived", "{ge:#}");
    assert!(ge["witness"].is_object(), "{ge:#}");
}

#[test]
fn a_crate_whose_tests_an_earlier_crate_of_the_run_built_builds_harness_and_tests_in_one_call() {
    // `ws-core`'s tests build compiles `ws-app`'s too (it depends on `ws-core`): `ws-app`'s
    // unit then has nothing to explore while dependencies compile, and builds at once.
    let (_tmp, dir, text) = logged_run("ws", &["--offline", "--all", "--pairs", "100"]);
    let calls = |package: &str| -> Vec<&str> {
        let p = format!("--profile test -p {package} ");
        text.lines().filter(|l| l.starts_with("cargo: build") && l.contains(&p)).collect()
    };
    let (core, app) = (calls("ws-core"), calls("ws-app"));
    assert!(core[0].contains("--bin __abex_harness --examples"), "{text}");
    assert!(core[1].contains("--bin __abex_harness --tests") && core[1].contains("-p ws-app"));
    assert_eq!(app.len(), 1, "{text}");
    assert!(app[0].contains("--bin __abex_harness --tests"), "{text}");
    let r = report(&dir);
    for t in r["targets"].as_array().unwrap() {
        assert!(t["mutation"]["counts"]["total"].as_u64().unwrap() >= 1, "{t:#}");
    }
    let packages: Vec<&Value> =
        r["targets"].as_array().unwrap().iter().map(|t| &t["package"]).collect();
    assert!(packages.contains(&&Value::from("ws-app")), "{packages:?}");
}

#[test]
fn a_mutant_runs_only_the_tests_that_reach_its_function() {
    let (tmp, dir) = support::project("onebuild");
    let runs = tmp.path().join("runs.log");
    let args = ["--offline", "-p", "onebuild-app", "--function", "app/src/lib.rs::limit"];
    // The tests' own variable, named for abex's allowlisted children.
    let pass = [("ONEBUILD_RUNS", runs.as_path()), ("ABEX_PASS_ENV", Path::new("ONEBUILD_RUNS"))];
    let o = abex(&dir, &pass, &args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let r = report(&dir);
    let limit = mutation(&r, "limit");
    let killed = limit["counts"]["killed"].as_u64().unwrap();
    assert!(killed >= 2, "{limit:#}");
    let by_limits = limit["mutants"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["killed_by"] == "tests::limits")
        .count();
    assert!(by_limits >= 2, "{limit:#}");
    let ran = std::fs::read_to_string(&runs).unwrap();
    let times = |test: &str| ran.lines().filter(|l| *l == test).count();
    // `doubles` never calls `limit`: it ran once, in the baseline.
    assert_eq!(times("doubles"), 1, "{ran}");
    assert!(times("limits") > 1, "{ran}");
}

#[test]
fn the_tests_of_a_dependent_package_run_in_its_own_folder() {
    let (_tmp, dir) = support::project("onebuild");
    // `base` of `onebuild-dep` is tested by the tests of `onebuild-app`, one of which reads
    // its own `Cargo.toml`.
    let args = ["--offline", "-p", "onebuild-dep", "--all", "--test-scope", "dependents"];
    let o = abex(&dir, &[], &args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let r = report(&dir);
    let base = mutation(&r, "base");
    assert!(base["counts"]["killed"].as_u64().unwrap() >= 1, "{base:#}");
}

#[test]
fn tests_that_do_not_build_after_the_harness_did_fail_the_run_as_a_crate_that_does_not_build() {
    let (_tmp, dir) = support::project("onebuild");
    std::fs::write(dir.join("app/tests/broken.rs"), "#[test]\nfn t() { let x: u8 = \"no\"; }\n")
        .unwrap();
    support::git(&dir, &["add", "-A"]);
    support::git(&dir, &["commit", "-q", "-m", "a test that does not build"]);
    let args = ["--offline", "-p", "onebuild-app", "--function", "app/src/lib.rs::limit"];
    let o = abex(&dir, &[], &args);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("does not build") && err.contains("mismatched types"), "{err}");
}

#[test]
fn mutants_whose_own_code_does_not_compile_are_unviable_without_a_build_of_their_own() {
    // A one-line function's body replacements share its line; the compiler's columns tell
    // which one does not compile.
    let (tmp, dir) = support::project("unviable");
    let log = tmp.path().join("cargo.log");
    let cargo = logging_cargo(tmp.path(), &log);
    let o = abex(&dir, &[("CARGO", &cargo)], &["--offline", "--all"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let r = report(&dir);
    let status = |name: &str, replacement: &str| {
        let mutants = mutation(&r, name)["mutants"].as_array().unwrap().clone();
        let m = mutants.iter().find(|m| m["replacement"] == replacement);
        let m = m.unwrap_or_else(|| panic!("no `{replacement}` in {mutants:#?}")).clone();
        (
            m["status"].as_str().unwrap().to_string(),
            m["killed_by"].as_str().unwrap_or("").to_string(),
        )
    };
    // Body values the crate's sources rule out are unviable without a build's round: the
    // compiler reports an ambiguity (E0283) only once the other errors are gone, so these
    // alone would cost two failed builds.
    let refused = [
        ("last_or", "{ Default::default() }", "E0277"),
        ("into_inner", "{ Default::default() }", "E0277"),
        ("digit", "{ Parsed::new() }", "E0599"),
        ("keep", "{ Kept::new() }", "E0599"),
        ("keep", "{ Kept::from_iter([Default::default()]) }", "E0599"),
        ("keep", "{ Kept::from(Default::default()) }", "E0283"),
        ("digit", "{ Parsed::from_iter([0]) }", "E0277"),
        ("digit", "{ Parsed::from(0) }", "E0277"),
        ("quoting", "{ (0, Default::default()) }", "E0277"),
    ];
    for (function, replacement, code) in refused {
        let (s, why) = status(function, replacement);
        assert_eq!(s, "unviable", "{function}: {replacement}");
        assert!(why.contains(code) && why.contains("without a build"), "{why}");
    }
    // Edition 2021's prelude has `FromIterator`: `BTreeSet::from_iter` builds, and is tested.
    let (s, _) = status("digit_set", "{ BTreeSet::from_iter([0]) }");
    assert_eq!(s, "killed");
    // The radix mutants of the same line are viable and tested.
    let (s, _) = status("digit", "11");
    assert_eq!(s, "survived");
    // Of `v * u`'s replacements, `/` does not exist for `f64` and `Unit`: it alone is unviable,
    // and `+`, switched at the same place, is tested in the switched build (its probes kept).
    let (s, why) = status("bytes", "v / u");
    assert_eq!(s, "unviable");
    assert!(why.contains("E0277") && why.contains("cannot divide"), "{why}");
    let (s, why) = status("bytes", "v + u");
    assert_eq!((s.as_str(), why.as_str()), ("killed", "tests::kilobytes"));
    let text = std::fs::read_to_string(&log).unwrap();
    // One failed build named every unviable mutant at once (the probes around `v / u` were
    // not blamed for its error first, at the cost of a build).
    assert_eq!(text.matches("error: could not compile").count(), 1, "{text}");
    // No mutant was built alone (in the copy of its own, `…-single`).
    assert!(!text.lines().any(|l| l.starts_with("cwd: ") && l.contains("-single")), "{text}");
    assert!(text.lines().any(|l| l.starts_with("cwd: ") && l.contains("unviable-lib")), "{text}");
}

#[test]
fn an_impl_trait_function_keeps_its_mutants_switched_and_its_gaps_proven() {
    // textwrap 0.16.1's `Word::break_apart` returns `impl Iterator`: a switched body of another
    // type failed the build, and every mutant of the function, its self-check among them, was
    // built alone (28 builds); the self-check alone does not compile (a panic is no iterator),
    // so whether the tests reach it was not known, and a real gap went unproven, under a
    // warning that the time budget ran out where none was set.
    let (tmp, dir) = support::project("opaque");
    let log = tmp.path().join("cargo.log");
    let cargo = logging_cargo(tmp.path(), &log);
    let o = abex(&dir, &[("CARGO", &cargo)], &["--offline", "--all"]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{stderr}");
    assert!(!stderr.contains("time budget"), "{stderr}");
    let r = report(&dir);
    assert_eq!(r["complete"], true);
    let m = mutation(&r, "short_words");
    assert_eq!(m["self_check_killed"], true, "{m:#}");
    let mutants = m["mutants"].as_array().unwrap();
    let lt = mutants.iter().find(|m| m["replacement"] == "w.len() < width").unwrap();
    assert_eq!(lt["status"], "survived", "{lt:#}");
    assert!(lt["witness"].is_object(), "{lt:#}");
    // Only the body values of another type were built alone, each once, and the switched
    // build built at its first try.
    let text = std::fs::read_to_string(&log).unwrap();
    let bodies = mutants.iter().filter(|m| m["operator"] == "replace_body").count();
    let alone = text.lines().filter(|l| l.starts_with("cwd: ") && l.contains("-single")).count();
    assert!(bodies > 0 && alone == bodies, "{bodies} bodies, {alone} builds alone\n{text}");
    assert!(!text.contains("error: could not compile"), "{text}");
}

#[test]
fn from_iter_in_an_edition_2018_crate_that_cannot_see_from_iterator_is_unviable_without_a_build() {
    // url 2.5.8 (edition 2018): a `from_iter` body failed the first round of the switched build
    // on every run, since the 2018 prelude has no `FromIterator`.
    let (tmp, dir) = support::project("unviable");
    let manifest = dir.join("Cargo.toml");
    let text = std::fs::read_to_string(&manifest).unwrap();
    std::fs::write(&manifest, text.replace("edition = \"2021\"", "edition = \"2018\"")).unwrap();
    support::git(&dir, &["commit", "-q", "-am", "edition 2018"]);
    let log = tmp.path().join("cargo.log");
    let cargo = logging_cargo(tmp.path(), &log);
    let o = abex(&dir, &[("CARGO", &cargo)], &["--offline", "--all"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let r = report(&dir);
    let mutants = mutation(&r, "digit_set")["mutants"].as_array().unwrap().clone();
    let m = mutants
        .iter()
        .find(|m| m["replacement"] == "{ BTreeSet::from_iter([0]) }")
        .unwrap_or_else(|| panic!("{mutants:#?}"));
    assert_eq!(m["status"], "unviable", "{m:#}");
    let why = m["killed_by"].as_str().unwrap();
    assert!(why.contains("E0599") && why.contains("FromIterator"), "{why}");
    assert!(why.contains("without a build"), "{why}");
    // Its other body values compile there and are tested.
    let empty = mutants.iter().find(|m| m["replacement"] == "{ BTreeSet::new() }").unwrap();
    assert_eq!(empty["status"], "killed", "{empty:#}");
}

#[test]
fn the_tests_build_and_run_in_the_crates_own_test_profile() {
    // `[profile.test] overflow-checks = false`, as `cargo test` honours it: the tests of
    // `fnv1a` pass only where its multiplication wraps.
    let (_tmp, dir) = support::project("testprofile");
    let o = abex(&dir, &[], &["--offline", "--all"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let r = report(&dir);
    let fnv = mutation(&r, "fnv1a");
    let total = fnv["counts"]["total"].as_u64().unwrap();
    assert!(total >= 5 && fnv["counts"]["killed"].as_u64() == Some(total), "{fnv:#}");
    // The harness is built in the same profile: `fnv1a` and `verify` (which calls it) return a
    // checksum for every input they were given, never an overflow's panic.
    for t in r["targets"].as_array().unwrap() {
        // (A cell without a boundary has no group.)
        let groups: Vec<&str> = t["exploration"]["cells"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|c| c["group"].as_str())
            .collect();
        assert!(!groups.is_empty(), "{t:#}");
        assert!(groups.iter().all(|g| *g == "VV"), "{}: {groups:?}", t["name"]);
    }
}
