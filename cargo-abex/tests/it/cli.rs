//! `cargo abex` end to end: the real binary on fixture crates copied into temp dirs and made git
//! repositories, checking the targets it picks, the report it writes, its exit codes and that
//! the user's tree is left exactly as it was.

use std::path::Path;
use std::process::{Command, Output};

use abex::pipeline::Defaults;
use serde_json::Value;

use crate::support;

fn abex(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cargo-abex"))
        .arg("abex")
        .args(args)
        .current_dir(dir)
        .env_remove("GITHUB_BASE_REF")
        .env_remove("ABEX_API_KEY")
        .env_remove("OPENAI_API_KEY")
        .env("NO_COLOR", "1")
        .output()
        .unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn report(dir: &Path) -> Value {
    let text = std::fs::read_to_string(dir.join(".abex/out/report.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

fn target<'a>(r: &'a Value, qualified: &str) -> &'a Value {
    r["targets"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["qualified_name"] == qualified)
        .unwrap_or_else(|| panic!("no target {qualified} in {r:#}"))
}

fn has_pair(t: &Value, a: &str, b: &str) -> bool {
    t["exploration"]["cells"].as_array().unwrap().iter().any(|c| {
        let i = &c["strings"]["inputs"];
        (i[0] == a && i[1] == b) || (i[0] == b && i[1] == a)
    })
}

#[test]
fn a_named_function_is_explored_and_its_real_boundaries_are_reported() {
    let (_tmp, dir) = support::project("simple");
    let before = support::snapshot(&dir);
    let args = ["--offline", "--function", "src/lib.rs::classify", "--pairs", "500", "--seed", "7"];
    let o = abex(&dir, &args);
    assert!(o.status.success(), "{}", stderr(&o));
    let r = report(&dir);
    assert_eq!(r["format"], "abex-report");
    assert_eq!(r["version"], 2);
    // The defaults are the core's, the same for `pytest --abex` (pytest-abex's tests check its side).
    let defaults = &r["settings"];
    assert_eq!(defaults["call_timeout_ms"], Defaults::CALL_TIMEOUT.as_millis() as u64);
    assert_eq!(r["complete"], true);
    assert_eq!(r["selection"], "function");
    assert_eq!(r["targets"].as_array().unwrap().len(), 1);
    let t = target(&r, "classify");
    assert_eq!(t["file"], "src/lib.rs");
    assert_eq!(t["signature"], "fn classify(n: i64) -> &'static str");
    assert!(t["span"]["start_line"].as_u64().unwrap() < t["span"]["end_line"].as_u64().unwrap());
    let x = &t["exploration"];
    assert_eq!(x["pairs_evaluated"], 500);
    assert!(x["qd_score"].as_f64().unwrap() > 0.0);
    assert!(x["bc_count"].as_u64().unwrap() >= 3);
    // The three thresholds of `classify`, refined to adjacent inputs.
    assert!(has_pair(t, "[-1]", "[0]"), "{x:#}");
    assert!(has_pair(t, "[0]", "[1]"), "{x:#}");
    assert!(has_pair(t, "[99]", "[100]"), "{x:#}");
    let cell = &x["cells"][0];
    assert!(cell["descriptor"].as_array().unwrap().len() == 4 && cell["group"] == "VV", "{cell:#}");
    assert!(cell["inputs"][0].is_array() && cell["outcomes"][0]["kind"] == "ok");
    // The same seed gives the same result.
    let first = x.clone();
    let o = abex(&dir, &args);
    assert!(o.status.success(), "{}", stderr(&o));
    let again = report(&dir);
    assert_eq!(target(&again, "classify")["exploration"]["cells"], first["cells"]);
    // The terminal shows the function and its boundaries.
    let err = stderr(&o);
    assert!(err.contains("classify") && err.contains("VV") && err.contains("PD"), "{err}");
    assert_eq!(support::snapshot(&dir), before, "the user's tree changed");
}

#[test]
fn the_diff_against_the_base_branch_chooses_the_changed_function_only() {
    let (_tmp, dir) = support::project("simple");
    support::git(&dir, &["checkout", "-q", "-b", "feature"]);
    let path = dir.join("src/text.rs");
    let text = std::fs::read_to_string(&path).unwrap();
    let edited = text.replace("'a' | 'e' | 'i' | 'o' | 'u'", "'a' | 'e' | 'i' | 'o' | 'u' | 'y'");
    assert_ne!(edited, text);
    std::fs::write(&path, edited).unwrap();
    let before = support::snapshot(&dir);
    let o = abex(&dir, &["--offline", "--pairs", "200"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let r = report(&dir);
    assert_eq!(r["selection"], "diff");
    assert_eq!(r["base"]["reference"], "main");
    let names: Vec<&str> = r["targets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["qualified_name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["text::count_vowels"]);
    assert!(!target(&r, "text::count_vowels")["changed_lines"].as_array().unwrap().is_empty());
    assert_eq!(support::snapshot(&dir), before, "the user's tree changed");
}

#[test]
fn a_clean_branch_has_nothing_to_analyse_and_says_so() {
    let (_tmp, dir) = support::project("simple");
    let o = abex(&dir, &["--offline"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("no function to analyse"), "{}", stderr(&o));
    assert!(stderr(&o).contains("not a clean pass"), "{}", stderr(&o));
}

#[test]
fn functions_that_cannot_be_driven_are_listed_with_a_reason() {
    let (_tmp, dir) = support::project("unsupported");
    let o = abex(&dir, &["--offline", "--all", "--pairs", "100"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let r = report(&dir);
    let reason = |n: &str| target(&r, n)["drive"]["reason"].as_str().unwrap_or("").to_string();
    assert!(reason("largest").contains("generic"), "{}", reason("largest"));
    assert!(reason("apply").contains("impl Trait"), "{}", reason("apply"));
    assert!(reason("takes_custom").contains("cannot build `Point`"), "{}", reason("takes_custom"));
    assert!(
        reason("Counter::get").contains("cannot build `Counter`"),
        "{}",
        reason("Counter::get")
    );
    assert!(reason("opaque").contains("`NoDebug` implements neither"), "{}", reason("opaque"));
    assert!(reason("aliased").contains("Debug"), "{}", reason("aliased"));
    let inc = target(&r, "inc");
    assert!(inc["exploration"]["bc_count"].as_u64().unwrap() >= 1);
    assert!(has_pair(inc, "[254]", "[255]") || has_pair(inc, "[255]", "[0]"), "{inc:#}");
}

#[test]
fn hangs_crashes_and_panics_show_up_as_outcomes() {
    let (_tmp, dir) = support::project("hang");
    let o = abex(&dir, &["--offline", "--all", "--call-timeout", "200ms"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let r = report(&dir);
    let kinds = |n: &str| -> Vec<String> {
        target(&r, n)["exploration"]["cells"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|c| c["outcomes"].as_array().unwrap().iter())
            .map(|o| o["kind"].as_str().unwrap().to_string())
            .collect()
    };
    assert!(kinds("spin").contains(&"timeout".to_string()), "{:?}", kinds("spin"));
    assert!(kinds("deep").contains(&"crash".to_string()), "{:#}", target(&r, "deep"));
    assert!(kinds("boom").contains(&"panic".to_string()), "{:?}", kinds("boom"));
    let boom = target(&r, "boom");
    assert!(has_pair(boom, "[4]", "[5]") || has_pair(boom, "[5]", "[6]"), "{boom:#}");
}

#[test]
fn binary_crates_and_workspace_members_are_targets_too() {
    let (_tmp, dir) = support::project("binonly");
    let o = abex(&dir, &["--offline", "--all", "--pairs", "200"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let r = report(&dir);
    assert!(target(&r, "calc::add_checked")["exploration"]["bc_count"].as_u64().unwrap() >= 1);

    let (_tmp, dir) = support::project("ws");
    support::git(&dir, &["checkout", "-q", "-b", "feature"]);
    let path = dir.join("core/src/lib.rs");
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, text + "\n/// New.\npub fn half(x: u32) -> u32 {\n    x / 2\n}\n")
        .unwrap();
    let before = support::snapshot(&dir);
    let o = abex(&dir, &["--offline", "--pairs", "100"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let r = report(&dir);
    let t = target(&r, "half");
    assert_eq!(t["package"], "ws-core");
    assert_eq!(t["file"], "core/src/lib.rs");
    assert_eq!(r["targets"].as_array().unwrap().len(), 1);
    let o = abex(&dir, &["--offline", "--all", "-p", "ws-app", "--pairs", "100"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let r = report(&dir);
    assert!(!r["targets"].as_array().unwrap().is_empty());
    assert!(r["targets"].as_array().unwrap().iter().all(|t| t["package"] == "ws-app"));
    assert_eq!(support::snapshot(&dir), before, "the user's tree changed");
}

#[test]
fn a_library_built_as_cdylib_and_rlib_is_a_target() {
    // slug 0.1.6's `crate-type = ["cdylib", "rlib"]`: its function was "no function" before.
    let (_tmp, dir) = support::project("cdylib");
    support::git(&dir, &["checkout", "-q", "-b", "feature"]);
    let path = dir.join("src/lib.rs");
    let text = std::fs::read_to_string(&path).unwrap();
    let text =
        text.replace("    let mut dash = true;\n", "    // reviewed\n    let mut dash = true;\n");
    std::fs::write(&path, text).unwrap();
    let o = abex(&dir, &["--offline", "--pairs", "200"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let r = report(&dir);
    let t = target(&r, "slug");
    assert!(t["exploration"]["bc_count"].as_u64().unwrap() >= 1, "{t:#}");
    // A string exactly `limit` bytes long: no test tries one.
    let gaps: Vec<&serde_json::Value> = t["mutation"]["mutants"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["status"] == "survived" && !m["witness"].is_null())
        .collect();
    assert!(gaps.iter().any(|m| m["description"] == "replace `>` with `>=`"), "{t:#}");
}

#[test]
fn bad_input_is_a_clear_error_with_exit_code_2() {
    let empty = tempfile::tempdir().unwrap();
    let o = abex(empty.path(), &["--offline"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("cargo metadata") && stderr(&o).contains("hint:"),
        "{}",
        stderr(&o)
    );

    let (_tmp, dir) = support::project("simple");
    let o = abex(&dir, &["--offline", "--function", "src/lib.rs::nope"]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(err.contains("no function `nope`") && err.contains("classify"), "{err}");

    let o = abex(&dir, &["--offline", "--base", "no-such-branch"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("no-such-branch"), "{}", stderr(&o));

    let (_tmp, dir) = support::project("broken");
    let o = abex(&dir, &["--offline", "--all"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(err.contains("does not build") && err.contains("mismatched types"), "{err}");
}

#[test]
fn a_test_that_cannot_pass_here_fails_the_baseline_until_it_is_skipped() {
    // glob 0.3.1's `test_iteration_errors` expects `/root` to be unreadable, and abex ran as
    // root; mime 0.3.17 has a test that fails upstream. Each stopped the run at the baseline.
    let (_tmp, dir) = support::project("simple");
    let lib = dir.join("src/lib.rs");
    let text = std::fs::read_to_string(&lib).unwrap().replace(
        "    #[test]\n    fn doubles() {",
        "    #[test]\n    fn needs_the_network() {\n        panic!(\"no network here\");\n    }\n\n    #[test]\n    fn doubles() {",
    );
    std::fs::write(&lib, text).unwrap();
    support::git(&dir, &["commit", "-q", "-am", "a test that needs the network"]);
    let args = ["--offline", "--function", "src/lib.rs::classify", "--pairs", "200"];
    let o = abex(&dir, &args);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(err.contains("tests::needs_the_network"), "{err}");
    assert!(err.contains("--skip-test tests::needs_the_network"), "{err}");

    let o = abex(&dir, &[&args[..], &["--skip-test", "tests::needs_the_network"]].concat());
    assert!(o.status.success(), "{}", stderr(&o));
    let r = report(&dir);
    let classify = &target(&r, "classify")["mutation"];
    assert!(classify["counts"]["killed"].as_u64().unwrap() >= 1, "{classify:#}");
    let killers: Vec<&str> = classify["mutants"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|m| m["killed_by"].as_str())
        .collect();
    assert!(killers.iter().all(|k| !k.contains("needs_the_network")), "{killers:?}");
}

#[test]
fn an_out_folder_holding_a_user_file_is_refused_and_the_file_stays_run_after_run() {
    let (_tmp, dir) = support::project("simple");
    std::fs::create_dir_all(dir.join("docs")).unwrap();
    std::fs::write(dir.join("docs/guide.md"), "my guide\n").unwrap();
    for _ in 0..2 {
        let o = abex(&dir, &["--offline", "--function", "src/lib.rs::classify", "--out", "docs"]);
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        let err = stderr(&o);
        assert!(
            err.contains("guide.md") && err.contains("`--out`") && err.contains("hint:"),
            "{err}"
        );
        assert_eq!(std::fs::read_to_string(dir.join("docs/guide.md")).unwrap(), "my guide\n");
        assert!(!dir.join("docs.old").exists(), "nothing was moved aside");
        assert_eq!(std::fs::read_dir(dir.join("docs")).unwrap().count(), 1, "nothing was added");
    }
    // A folder abex made is its own to replace: twice in a row, the previous run kept as `.old`.
    for _ in 0..2 {
        let o = abex(&dir, &["--offline", "--function", "src/lib.rs::classify", "--out", "mine"]);
        assert!(o.status.success(), "{}", stderr(&o));
    }
    assert!(dir.join("mine/.abex-out").is_file() && dir.join("mine.old/report.json").is_file());
}

#[test]
fn more_jobs_than_the_machine_s_memory_holds_at_the_memory_limit_are_lowered_and_said() {
    let (_tmp, dir) = support::project("simple");
    let o = abex(&dir, &["--offline", "--function", "src/lib.rs::classify", "--jobs", "100000"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(err.contains("100000 jobs at once with a memory limit of 4096 MiB each"), "{err}");
    assert!(err.contains("abex runs ") && err.contains("hint:"), "{err}");
    let o = abex(&dir, &["--offline", "--function", "src/lib.rs::classify", "--jobs", "1"]);
    assert!(!stderr(&o).contains("jobs at once"), "{}", stderr(&o));
}

/// The numbers of `line` that are not inside backticks (values a function took or gave are in
/// backticks in `summary.md`; the rest are figures).
fn figures_of(line: &str) -> Vec<f64> {
    let prose: String = line.split('`').step_by(2).collect::<Vec<_>>().join(" ");
    let number = regex::Regex::new(r"[0-9][0-9.]*(e[+-]?[0-9]+)?").unwrap();
    number.find_iter(&prose).filter_map(|m| m.as_str().trim_end_matches('.').parse().ok()).collect()
}

#[test]
fn the_demo_s_figures_are_shares_that_add_up_per_function_and_never_astronomical() {
    let (_tmp, dir) = support::example("demo");
    let o = abex(&dir, &["--offline", "--all", "--no-mutants", "--seed", "1", "--pairs", "400"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let summary = std::fs::read_to_string(dir.join(".abex/out/summary.md")).unwrap();
    let share = regex::Regex::new(r"(\w[\w ]*) (\d+)% / (\d+)%").unwrap();
    let mut functions = 0;
    let mut several = 0;
    for line in summary.lines().filter(|l| l.contains("share of its QD-score")) {
        let shares: Vec<(u32, u32)> = share
            .captures_iter(line)
            .map(|c| (c[2].parse().unwrap(), c[3].parse().unwrap()))
            .collect();
        assert_eq!(shares.iter().map(|s| s.0).sum::<u32>(), 100, "{line}");
        assert_eq!(shares.iter().map(|s| s.1).sum::<u32>(), 100, "{line}");
        functions += 1;
        several += usize::from(shares.len() > 1);
    }
    assert!(functions >= 10 && several >= 1, "{summary}");
    let run_line =
        summary.lines().find(|l| l.starts_with("By origin (mean share")).expect(&summary);
    let means: Vec<u32> = share.captures_iter(run_line).map(|c| c[2].parse().unwrap()).collect();
    assert_eq!(means.iter().sum::<u32>(), 100, "{run_line}");
    // No statistic a person reads is astronomical: not in summary.md (values in backticks
    // aside), not in the terminal's figures (its boundary lists show values).
    let terminal = stderr(&o);
    let pd = regex::Regex::new(r" PD (\S+) ").unwrap();
    let pds: Vec<String> = pd.captures_iter(&terminal).map(|c| c[1].to_string()).collect();
    assert!(pds.len() >= 10, "{terminal}");
    let stats = summary
        .lines()
        .chain(terminal.lines().filter(|l| l.contains("boundaries")))
        .chain(pds.iter().map(String::as_str));
    for line in stats {
        for x in figures_of(line) {
            assert!(x <= 1e6, "{x} in `{line}`");
        }
    }
    assert!(!summary.contains("QD 2.") && !terminal.contains("QD-score 2."), "{summary}");
}

/// Validates a JUnit file against `tests/data/junit/junit-10.xsd` with `xmllint`, and checks that
/// the validator rejects a broken file, so the check can fail.
fn assert_valid_junit(file: &Path) {
    let xsd = support::fixtures().parent().unwrap().join("data/junit/junit-10.xsd");
    let lint = |f: &Path| {
        Command::new("xmllint").args(["--noout", "--schema"]).arg(&xsd).arg(f).output().unwrap_or_else(|e| {
            panic!("xmllint is needed to validate JUnit files ({e}); install libxml2-utils (.ci/run does)")
        })
    };
    let o = lint(file);
    assert!(
        o.status.success(),
        "junit.xml does not validate: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    let broken = file.with_file_name("broken-junit.xml");
    std::fs::write(&broken, "<testsuites><testsuite><testcase/></testsuite></testsuites>").unwrap();
    assert!(
        !lint(&broken).status.success(),
        "xmllint accepted a suite without its required attributes"
    );
    std::fs::remove_file(broken).unwrap();
}

/// Copies fixture `name` into a fresh temp dir (no git) for an independent `cargo test`.
fn cargo_test_in(dir: &Path) -> bool {
    let target = dir.join("target-check");
    Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .args(["test", "-q"])
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", &target)
        .output()
        .unwrap()
        .status
        .success()
}

#[test]
fn survivors_with_witnesses_are_gaps_with_suggested_tests_that_kill_them() {
    let (_tmp, dir) = support::project("gaps");
    let before = support::snapshot(&dir);
    let o = Command::new(env!("CARGO_BIN_EXE_cargo-abex"))
        .args(["abex", "--offline", "--all", "--test-timeout", "2s", "--pairs", "500"])
        .current_dir(&dir)
        .env("NO_COLOR", "1")
        // The fixture's own test fails if any of these reaches the tests of a mutant.
        .env("GITHUB_TOKEN", "ghp_secret")
        .env("OPENAI_API_KEY", "sk-secret")
        .env("ABEX_TEST_API_KEY", "secret")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let r = report(&dir);

    // `shipping`: the untested threshold at 50 is a gap, proven by a witness.
    let m = &target(&r, "shipping")["mutation"];
    assert_eq!(m["self_check_killed"], true);
    let mutants = m["mutants"].as_array().unwrap();
    let gt = mutants
        .iter()
        .find(|x| x["original"] == "total >= 50" && x["replacement"] == "total > 50")
        .unwrap();
    assert_eq!(gt["status"], "survived");
    assert_eq!(gt["witness"]["input"], serde_json::json!([50]));
    assert_eq!(gt["witness"]["original"]["value"], "0");
    assert_eq!(gt["witness"]["mutant"]["value"], "5");
    assert!(mutants.iter().any(|x| x["status"] == "killed"
        && x["killed_by"].as_str().is_some_and(|t| t.contains("shipping"))));
    assert!(!m["unpinned"].as_array().unwrap().is_empty());
    // The fixture denies warnings: a body replaced by a constant leaves `total` unused, which
    // must not make the mutant unviable (lints are capped, as cargo-mutants does).
    assert_eq!(m["counts"]["unviable"], 0, "{m:#}");
    let tests = m["suggested_tests"].as_array().unwrap();
    assert!(!tests.is_empty());
    let suggested = tests
        .iter()
        .find(|t| t["kills"].as_array().unwrap().contains(&gt["id"]))
        .expect("a test kills `>`");

    // Independently: the suggested test passes on the original and fails on the mutant.
    let check = tempfile::tempdir().unwrap();
    let copy = check.path().join("gaps");
    std::fs::create_dir_all(copy.join("src")).unwrap();
    std::fs::copy(dir.join("Cargo.toml"), copy.join("Cargo.toml")).unwrap();
    let lib = std::fs::read_to_string(dir.join("src/lib.rs")).unwrap();
    let test_mod = format!(
        "\n#[cfg(test)]\nmod abex_check {{\n    use super::*;\n{}}}\n",
        suggested["code"].as_str().unwrap()
    );
    std::fs::write(copy.join("src/lib.rs"), format!("{lib}{test_mod}")).unwrap();
    assert!(cargo_test_in(&copy), "the suggested test fails on the original");
    let mutated = lib.replacen("total >= 50", "total > 50", 1);
    std::fs::write(copy.join("src/lib.rs"), format!("{mutated}{test_mod}")).unwrap();
    assert!(!cargo_test_in(&copy), "the suggested test passes on the mutant");

    // `cap`: changing the 20 cannot matter; those survivors have no witness and are no finding.
    let cap = &target(&r, "cap")["mutation"];
    let equivalent: Vec<&Value> =
        cap["mutants"].as_array().unwrap().iter().filter(|x| x["status"] == "survived").collect();
    assert!(!equivalent.is_empty(), "{cap:#}");
    assert!(
        equivalent.iter().all(|x| x["possibly_equivalent"] == true && x["witness"].is_null()),
        "{cap:#}"
    );
    assert_eq!(cap["counts"]["witnessed"], 0);
    let summary = std::fs::read_to_string(dir.join(".abex/out/summary.md")).unwrap();
    assert!(summary.contains("**Gap**") && summary.contains("replace `>=` with `>`"), "{summary}");
    assert!(!summary.contains("x.min(10).min(20)"), "{summary}");

    // `double`: a mutant that never ends is timed out, and the others were still tested.
    let double = &target(&r, "double")["mutation"];
    let statuses: Vec<&str> = double["mutants"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["status"].as_str().unwrap())
        .collect();
    assert!(statuses.contains(&"timeout"), "{statuses:?}");
    assert!(statuses.iter().filter(|s| **s == "killed").count() >= 3, "{statuses:?}");

    // `key_of`: deleting the match arm as text breaks type inference on another line; switched
    // (the arm kept, its guard failing while the mutant is active) it builds with the others,
    // behaves as the deletion would, and the tests kill it.
    let key_of = &target(&r, "key_of")["mutation"]["mutants"];
    let arm =
        key_of.as_array().unwrap().iter().find(|x| x["operator"] == "delete_match_arm").unwrap();
    assert_eq!(arm["status"], "killed", "{arm:#}");
    assert_eq!(arm["killed_by"], "tests::keys", "{arm:#}");

    // `extra` is not compiled under the default features: not exercised, never survived.
    let extra = target(&r, "extra");
    assert!(extra["drive"]["reason"].as_str().unwrap().contains("not compiled"), "{extra:#}");
    let extra_statuses: Vec<&Value> =
        extra["mutation"]["mutants"].as_array().unwrap().iter().map(|x| &x["status"]).collect();
    assert!(!extra_statuses.is_empty(), "{extra:#}");
    assert!(extra_statuses.iter().all(|s| *s == "not_exercised"), "{extra:#}");

    // junit.xml: one failure per gap, valid against the JUnit schema common reporters use.
    let junit = std::fs::read_to_string(dir.join(".abex/out/junit.xml")).unwrap();
    assert!(junit.contains("SurvivedMutant") && junit.contains("abex shipping"), "{junit}");
    assert!(junit.contains("no gap"), "a function without gaps is a passing case: {junit}");
    assert_valid_junit(&dir.join(".abex/out/junit.xml"));

    let stryker: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join(".abex/out/mutation-report.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(stryker["schemaVersion"], "2");

    // report.html: a section per function, and as many gaps shown as the report has.
    let page = std::fs::read_to_string(dir.join(".abex/out/report.html")).unwrap();
    let targets = r["targets"].as_array().unwrap();
    assert_eq!(page.matches("<section class=\"function\"").count(), targets.len());
    let gaps: u64 =
        targets.iter().filter_map(|t| t["mutation"]["counts"]["witnessed"].as_u64()).sum();
    assert!(gaps > 0);
    assert_eq!(page.matches("data-gap=\"true\"").count() as u64, gaps);
    assert_eq!(support::snapshot(&dir), before, "the user's tree changed");
}

#[test]
fn an_interrupted_run_leaves_the_tree_alone_and_a_valid_report() {
    let (_tmp, dir) = support::project("gaps");
    let before = support::snapshot(&dir);
    let mut child = Command::new(env!("CARGO_BIN_EXE_cargo-abex"))
        .args(["abex", "--offline", "--all", "--test-timeout", "2s"])
        .current_dir(&dir)
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Interrupt once the first report has been written (or after a few seconds).
    let report_path = dir.join(".abex/out/report.json");
    let start = std::time::Instant::now();
    while !report_path.exists() && start.elapsed() < std::time::Duration::from_secs(20) {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    std::thread::sleep(std::time::Duration::from_millis(1500));
    Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap();
    child.wait().unwrap();
    let r = report(&dir);
    assert_eq!(r["format"], "abex-report");
    assert!(r["targets"].is_array());
    assert_eq!(support::snapshot(&dir), before, "the user's tree changed");
}

#[test]
fn a_rerun_reuses_cached_results_and_a_change_to_one_body_keeps_only_the_other_s_kills() {
    let (_tmp, dir) = support::project("gaps");
    let args = [
        "--offline",
        "--function",
        "src/lib.rs::shipping",
        "--function",
        "src/lib.rs::cap",
        "--pairs",
        "300",
    ];
    let o = abex(&dir, &args);
    assert!(o.status.success(), "{}", stderr(&o));
    let first = report(&dir);
    let o = abex(&dir, &args);
    assert!(o.status.success(), "{}", stderr(&o));
    let second = report(&dir);
    // Both taken from the cache: `shipping`'s suggested test was checked again (in a build),
    // nothing was explored or tested again (same timings).
    assert_eq!(second["reused"]["functions"], 2, "{}", stderr(&o));
    assert!(!stderr(&o).contains("Testing"), "{}", stderr(&o));
    for name in ["shipping", "cap"] {
        assert_eq!(
            target(&first, name)["mutation"]["mutants"],
            target(&second, name)["mutation"]["mutants"]
        );
        assert_eq!(target(&first, name)["exploration"], target(&second, name)["exploration"]);
    }
    // A change to `cap`'s body: no result is reused whole (a result depends on the whole
    // package's code: constants, helpers, types) and `cap` is analysed again. `shipping`'s own
    // text and everything but the two bodies being the same, its killed mutants are kept (the
    // next push of a pull request, docs/design.md); its survivors are tested again.
    let lib = dir.join("src/lib.rs");
    let text = std::fs::read_to_string(&lib).unwrap();
    std::fs::write(&lib, text.replace("x.min(10).min(20)", "x.min(10).min(30)")).unwrap();
    let o = abex(&dir, &args);
    assert!(o.status.success(), "{}", stderr(&o));
    let third = report(&dir);
    assert_eq!(third["reused"]["functions"].as_u64().unwrap_or(0), 0, "{third:#}");
    let counts = &target(&first, "shipping")["mutation"]["counts"];
    let kills: u64 =
        ["killed", "timeout", "unviable"].iter().map(|k| counts[k].as_u64().unwrap()).sum();
    assert_eq!(third["reused"]["mutants"].as_u64().unwrap_or(0), kills, "{third:#}");
    assert_eq!(
        target(&first, "shipping")["mutation"]["counts"],
        target(&third, "shipping")["mutation"]["counts"]
    );
    let cap = target(&third, "cap")["mutation"]["mutants"].as_array().unwrap().clone();
    assert!(cap.iter().any(|m| m["original"] == "30"), "cap was re-analysed: {cap:?}");
}

/// A mutant as compared across runs: id, status, witness input.
type Finding = (String, String, String);

/// The findings of a report: per function, its mutants' ids with status and witness input.
fn findings(r: &Value) -> Vec<(String, Vec<Finding>)> {
    r["targets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            let mutants = t["mutation"]["mutants"].as_array().cloned().unwrap_or_default();
            let mut m: Vec<Finding> = mutants
                .iter()
                .map(|x| {
                    (
                        x["id"].to_string(),
                        x["status"].to_string(),
                        x["witness"]["input"].to_string(),
                    )
                })
                .collect();
            m.sort();
            (t["qualified_name"].as_str().unwrap().to_string(), m)
        })
        .collect()
}

#[test]
fn shards_merged_give_the_same_findings_as_one_run() {
    let (_tmp, whole) = support::project("gaps");
    let (_tmp2, sharded) = support::project("gaps");
    let common = ["--offline", "--all", "--pairs", "300", "--test-timeout", "2s"];
    let o = abex(&whole, &common);
    assert!(o.status.success(), "{}", stderr(&o));
    for (k, out) in [("1/2", ".abex/s1"), ("2/2", ".abex/s2")] {
        let mut args = common.to_vec();
        args.extend(["--shard", k, "--out", out]);
        let o = abex(&sharded, &args);
        assert!(o.status.success(), "{}", stderr(&o));
    }
    let s1: Value = serde_json::from_str(
        &std::fs::read_to_string(sharded.join(".abex/s1/report.json")).unwrap(),
    )
    .unwrap();
    let s2: Value = serde_json::from_str(
        &std::fs::read_to_string(sharded.join(".abex/s2/report.json")).unwrap(),
    )
    .unwrap();
    let (n1, n2) =
        (s1["targets"].as_array().unwrap().len(), s2["targets"].as_array().unwrap().len());
    assert!(n1 > 0 && n2 > 0, "both shards have work: {n1} and {n2}");
    assert_eq!(s1["settings"]["shard"], "1/2");
    let o = abex(
        &sharded,
        &["merge", ".abex/s1/report.json", ".abex/s2/report.json", "--out", ".abex/merged"],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let merged: Value = serde_json::from_str(
        &std::fs::read_to_string(sharded.join(".abex/merged/report.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(merged["targets"].as_array().unwrap().len(), n1 + n2);
    assert_eq!(findings(&merged), findings(&report(&whole)));
    // The per-origin figures are of every shard's functions.
    let mutants = |r: &Value| -> u64 {
        r["origins"].as_array().unwrap().iter().map(|o| o["mutants"].as_u64().unwrap()).sum()
    };
    assert_eq!(mutants(&merged), mutants(&report(&whole)), "{:#}", merged["origins"]);
    assert!(sharded.join(".abex/merged/summary.md").exists());
    assert!(sharded.join(".abex/merged/mutation-report.json").exists());
    // A file that is not a report is a clear error.
    let o = abex(&sharded, &["merge", "Cargo.toml"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("Cargo.toml"), "{}", stderr(&o));
}

#[test]
fn a_function_no_test_reaches_is_one_note_and_none_of_its_survivors_is_a_gap() {
    let (_tmp, dir) = support::project("gaps");
    let lib = dir.join("src/lib.rs");
    let text = std::fs::read_to_string(&lib).unwrap();
    let lonely = "\n/// No test calls it.\npub fn lonely(x: u8) -> u8 {\n    if x > 9 {\n        9\n    } else {\n        x\n    }\n}\n";
    std::fs::write(&lib, format!("{text}{lonely}")).unwrap();
    let o = abex(
        &dir,
        &[
            "--offline",
            "--function",
            "src/lib.rs::lonely",
            "--pairs",
            "200",
            "--fail-on",
            "finding",
        ],
    );
    // Not a gap, so `--fail-on finding` does not fail the run.
    assert!(o.status.success(), "{}", stderr(&o));
    let r = report(&dir);
    let m = &target(&r, "lonely")["mutation"];
    assert_eq!(m["self_check_killed"], false, "{m:#}");
    let mutants = m["mutants"].as_array().unwrap();
    assert!(!mutants.is_empty());
    assert!(
        mutants.iter().all(|x| x["status"] == "not_reached" && x["witness"].is_null()),
        "{m:#}"
    );
    assert_eq!(m["counts"]["not_reached"], mutants.len());
    assert_eq!(
        (m["counts"]["survived"].as_u64(), m["counts"]["witnessed"].as_u64()),
        (Some(0), Some(0))
    );
    assert!(m["suggested_tests"].as_array().unwrap().is_empty(), "{m:#}");
    let err = stderr(&o);
    assert_eq!(
        err.matches("not reached by any test: no test fails when `lonely` panics").count(),
        1,
        "{err}"
    );
    assert!(!err.contains("GAP"), "{err}");
    let summary = std::fs::read_to_string(dir.join(".abex/out/summary.md")).unwrap();
    assert_eq!(summary.matches("**Not reached by any test**").count(), 1, "{summary}");
    assert!(!summary.contains("**Gap**"), "{summary}");
    let sarif: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join(".abex/out/abex.sarif")).unwrap())
            .unwrap();
    let results = sarif["runs"][0]["results"].as_array().unwrap();
    assert_eq!(results.len(), 1, "{results:#?}");
    assert_eq!(results[0]["ruleId"], "abex/not-reached");
    let junit = std::fs::read_to_string(dir.join(".abex/out/junit.xml")).unwrap();
    assert!(junit.contains("NotReached") && !junit.contains("SurvivedMutant"), "{junit}");
    assert!(!junit.contains("no gap"), "a function no test reaches is no pass: {junit}");
    assert_valid_junit(&dir.join(".abex/out/junit.xml"));
}

#[test]
fn mutants_past_the_time_budget_are_listed_as_not_tested_and_the_run_says_so() {
    let (_tmp, dir) = support::project("gaps");
    // Building the scratch copy alone takes longer than this budget.
    let o =
        abex(&dir, &["--offline", "--function", "src/lib.rs::shipping", "--time-budget", "300ms"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let r = report(&dir);
    let m = &target(&r, "shipping")["mutation"];
    assert!(m["counts"]["not_tested"].as_u64().unwrap() > 0, "{m:#}");
    assert!(m["mutants"].as_array().unwrap().iter().any(|x| x["status"] == "not_tested"));
    assert!(
        stderr(&o).contains("not a clean pass") || stderr(&o).contains("not tested (budget)"),
        "{}",
        stderr(&o)
    );
    // The self-check did not run either: no claim that the tests do not reach the function.
    assert!(m["self_check_killed"].is_null(), "{m:#}");
    assert!(!stderr(&o).contains("the tests do not reach it"), "{}", stderr(&o));
    let summary = std::fs::read_to_string(dir.join(".abex/out/summary.md")).unwrap();
    assert!(summary.contains("not tested (the run stopped first)"), "{summary}");
    assert!(summary.contains("*(the time budget ran out: "), "{summary}");
    assert_eq!(
        (&r["complete"], &r["exhausted"]),
        (&Value::Bool(false), &Value::from("time budget"))
    );
}

#[test]
fn the_help_states_the_cores_defaults() {
    let o =
        Command::new(env!("CARGO_BIN_EXE_cargo-abex")).args(["abex", "--help"]).output().unwrap();
    let help = String::from_utf8_lossy(&o.stdout);
    let secs = Defaults::CALL_TIMEOUT.as_secs();
    for expected in [
        format!("[default: {}]", Defaults::PAIRS),
        format!("[default: {}]", Defaults::WITNESS_EVALS),
        format!("[default: {}]", Defaults::MEMORY_LIMIT_MIB),
        format!("[default: {secs}s]"),
    ] {
        assert!(help.contains(&expected), "`{expected}` not in:\n{help}");
    }
}

#[test]
fn an_invalid_exclude_re_is_a_warning_that_names_the_file() {
    let (_tmp, dir) = support::project("simple");
    std::fs::create_dir_all(dir.join(".cargo")).unwrap();
    std::fs::write(dir.join(".cargo/mutants.toml"), "exclude_re = [\"f(x\"]\n").unwrap();
    let args = ["--offline", "--function", "src/lib.rs::classify", "--pairs", "50", "--no-mutants"];
    let o = abex(&dir, &args);
    assert!(o.status.success(), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(err.contains("warning:") && err.contains("`f(x`"), "{err}");
    assert!(err.contains(".cargo/mutants.toml") && err.contains("hint:"), "{err}");
}

#[test]
fn a_function_abex_cannot_call_is_proven_through_a_caller_and_the_rest_says_why() {
    let (_tmp, dir) = support::project("callers");
    let o = abex(&dir, &["--offline", "--all", "--pairs", "400", "--seed", "3"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let r = report(&dir);
    let tier = target(&r, "tier");
    assert_eq!(tier["drive"]["status"], "via", "{:#}", tier["drive"]);
    assert_eq!(tier["drive"]["caller"], "rate");
    assert!(tier["exploration"]["bc_count"].as_u64().unwrap() > 0, "explored through `rate`");
    // `score >= 90` → `> 90` survives the tests; `rate(90)` tells it apart.
    let m = &tier["mutation"];
    assert_eq!(m["counts"]["survived"], m["counts"]["witnessed"], "every survivor proven: {m:#}");
    let at_90 = m["mutants"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["original"] == "score >= 90" && x["replacement"] == "score > 90")
        .unwrap_or_else(|| panic!("no `>=` → `>` mutant at 90 in {m:#}"));
    assert_eq!(at_90["status"], "survived");
    assert_eq!(at_90["witness"]["input"], serde_json::json!([90]), "{at_90:#}");
    let name = at_90["suggested_test"].as_str().expect("a suggested test");
    let test = m["suggested_tests"].as_array().unwrap().iter().find(|t| t["name"] == name).unwrap();
    assert!(test["code"].as_str().unwrap().contains("rate(90"), "{test:#}");
    // `twice` has no caller abex can call: its survivors are not proven, and say why.
    let twice = target(&r, "twice");
    assert_eq!(twice["drive"]["status"], "unsupported");
    let left: Vec<&Value> = twice["mutation"]["mutants"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|x| x["status"] == "survived")
        .collect();
    assert!(!left.is_empty(), "{twice:#}");
    for x in left {
        assert_eq!(x["unwitnessed"]["stage"], "not_callable", "{x:#}");
        assert_eq!(x["possibly_equivalent"], false);
    }
    assert!(stderr(&o).contains("driven through"), "{}", stderr(&o));
}

#[test]
fn a_function_whose_value_cannot_be_shown_is_proven_through_a_caller() {
    // glob 0.3.1's `Pattern::matches_from` returns `MatchResult`, an enum with neither `Debug`
    // nor `Display`: its harness part failed the build, it went unexplored and its survivors
    // unproven. The sources show it, so it is driven through `matches`, which calls it.
    let (_tmp, dir) = support::project("callers");
    let o = abex(&dir, &["--offline", "--function", "src/lib.rs::standing"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let r = report(&dir);
    let standing = target(&r, "standing");
    assert_eq!(standing["drive"]["status"], "via", "{:#}", standing["drive"]);
    assert_eq!(standing["drive"]["caller"], "passes");
    let why = standing["drive"]["reason"].as_str().unwrap();
    assert!(why.contains("`Standing` implements neither `Debug` nor `Display`"), "{why}");
    let m = &standing["mutation"];
    let at_70 = m["mutants"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["original"] == "score >= 70" && x["replacement"] == "score > 70")
        .unwrap_or_else(|| panic!("no `>=` → `>` mutant at 70 in {m:#}"));
    assert_eq!(at_70["status"], "survived");
    assert_eq!(at_70["witness"]["input"], serde_json::json!([70]), "{at_70:#}");
    assert_eq!(m["counts"]["survived"], m["counts"]["witnessed"], "every survivor proven: {m:#}");
}

#[test]
fn feature_flags_reach_every_build_and_a_function_under_a_feature_is_analysed() {
    let (_tmp, dir) = support::project("features");
    let args = ["--offline", "--function", "src/lib.rs::bulk_discount", "--pairs", "200"];
    // Without the feature, the function is not compiled: said, and nothing is tested.
    let o = abex(&dir, &args);
    assert!(o.status.success(), "{}", stderr(&o));
    let t = target(&report(&dir), "bulk_discount").clone();
    assert_eq!(t["drive"]["reason"], "not compiled under the current features", "{t:#}");
    assert_eq!(t["mutation"]["counts"]["killed"], 0);
    // With it (cargo's `-F`, and `-o` for the output folder): explored, and its mutants tested
    // against the test that exists only under the feature too (it kills some).
    let o = abex(&dir, &[&args[..], &["-F", "bulk", "-o", ".abex/bulk"]].concat());
    assert!(o.status.success(), "{}", stderr(&o));
    let text = std::fs::read_to_string(dir.join(".abex/bulk/report.json")).unwrap();
    let r: Value = serde_json::from_str(&text).unwrap();
    let t = target(&r, "bulk_discount");
    assert!(t["exploration"]["bc_count"].as_u64().unwrap() > 0, "{t:#}");
    let counts = &t["mutation"]["counts"];
    assert!(counts["killed"].as_u64().unwrap() > 0 && counts["witnessed"].as_u64().unwrap() > 0);
    // `--all-features` does the same; `--no-default-features` alone does not.
    let o = abex(&dir, &[&args[..], &["--all-features", "--no-mutants"]].concat());
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(target(&report(&dir), "bulk_discount")["exploration"].is_object());
    let o = abex(&dir, &[&args[..], &["--no-default-features", "--no-mutants"]].concat());
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(target(&report(&dir), "bulk_discount")["exploration"].is_null());
    // `--workspace` is every package, so it cannot go with `-p`; `--color` as cargo's.
    let o = abex(&dir, &["--workspace", "-p", "features"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let o =
        abex(&dir, &[&args[..], &["--workspace", "--no-mutants", "--color", "always"]].concat());
    assert!(o.status.success() && stderr(&o).contains("\x1b["), "{}", stderr(&o));
    let o = abex(&dir, &[&args[..], &["--no-mutants", "--color", "never"]].concat());
    assert!(o.status.success() && !stderr(&o).contains("\x1b["), "{}", stderr(&o));
}

#[test]
fn in_diff_takes_the_changed_functions_from_a_diff_file() {
    let (tmp, dir) = support::project("review");
    // A diff (without git's prefixes, as other tools write them) that touches `discount` only.
    let diff = "--- src/lib.rs\n+++ src/lib.rs\n@@ -13 +13 @@\n-    if total >= 100 {\n+    if total >= 100 {\n";
    let file = tmp.path().join("pr.diff");
    std::fs::write(&file, diff).unwrap();
    let o = abex(&dir, &["--offline", "--no-mutants", "--in-diff", file.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let r = report(&dir);
    let names: Vec<&str> =
        r["targets"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["discount"]);
    assert_eq!(r["selection"], "diff");
    // Not a diff, or no file: a usage error (exit 2) that says why.
    std::fs::write(&file, "hello\n").unwrap();
    let o = abex(&dir, &["--offline", "--in-diff", file.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("not a unified diff"), "{}", stderr(&o));
    let o = abex(&dir, &["--offline", "--in-diff", "missing.diff", "--base", "main"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
}

/// The ids of the mutants the report's suggested tests kill, per function.
fn killed_by_suggested(r: &Value) -> Vec<String> {
    let mut ids = Vec::new();
    for t in r["targets"].as_array().unwrap() {
        for s in t["mutation"]["suggested_tests"].as_array().into_iter().flatten() {
            ids.extend(
                s["kills"].as_array().unwrap().iter().map(|k| k.as_str().unwrap().to_string()),
            );
        }
    }
    // Two tests of the smallest set may both kill one mutant.
    ids.sort();
    ids.dedup();
    ids
}

/// Where a crate's tests are `rstest` tables (the `tables` fixture, `rstest` among its
/// dev-dependencies), the gaps of one function are closed by one `#[rstest]` test with a case
/// per witness: `band`'s four gaps at its two thresholds (500 and 501, 2000 and 2001). The
/// patch applies, the crate's tests pass with it, and a second run sees every mutant it lists
/// killed.
#[test]
fn where_the_crate_uses_rstest_a_function_s_cases_are_one_table_that_kills_what_it_lists() {
    let (_tmp, dir) = support::project("tables");
    let args = ["--offline", "--seed", "1", "--function", "src/lib.rs::band"];
    let o = abex(&dir, &args);
    assert!(o.status.success(), "{}", stderr(&o));
    let r = report(&dir);
    let tests = r["targets"][0]["mutation"]["suggested_tests"].as_array().unwrap();
    let table = tests
        .iter()
        .find(|t| t["code"].as_str().unwrap().contains("    #[rstest::rstest]\n"))
        .unwrap_or_else(|| panic!("no table: {tests:#?}"));
    let code = table["code"].as_str().unwrap();
    let cases: Vec<&str> = code.lines().filter(|l| l.starts_with("    #[case(")).collect();
    assert!(cases.len() >= 2, "{code}");
    assert!(
        code.contains("(#[case] grams: u32, #[case] expected: &'static str) {\n        assert_eq!(band(grams), expected);\n"),
        "{code}"
    );
    let listed: Vec<String> =
        table["kills"].as_array().unwrap().iter().map(|k| k.as_str().unwrap().into()).collect();
    assert!(listed.len() >= cases.len(), "{table:#}");
    let patch = dir.join(".abex/out/suggested-tests.patch");
    support::git(&dir, &["apply", patch.to_str().unwrap()]);
    assert!(cargo_test_in(&dir), "the crate's tests fail with the table");
    let o = abex(&dir, &args);
    assert!(o.status.success(), "{}", stderr(&o));
    let again = report(&dir);
    let statuses: Vec<(&str, &str)> = again["targets"][0]["mutation"]["mutants"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| (m["id"].as_str().unwrap(), m["status"].as_str().unwrap()))
        .collect();
    for id in &listed {
        assert!(statuses.contains(&(id.as_str(), "killed")), "{id} in {statuses:?}");
    }
}

#[test]
fn the_suggested_tests_patch_applies_passes_and_kills_its_mutants_and_write_tests_applies_it() {
    let (_tmp, dir) = support::example("demo");
    let before = support::snapshot(&dir);
    let args = [
        "--offline",
        "--function",
        "src/date.rs::is_leap_year",
        "--function",
        "src/parse.rs::parse_port",
        "--function",
        "src/range.rs::bucket",
        "--seed",
        "1",
    ];
    let o = abex(&dir, &args);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(support::snapshot(&dir), before, "without --write-tests the tree is untouched");
    let r = report(&dir);
    let killed = killed_by_suggested(&r);
    assert!(killed.len() >= 4, "{killed:?}");
    let patch = dir.join(".abex/out/suggested-tests.patch");
    let text = std::fs::read_to_string(&patch).unwrap();
    assert!(text.contains("+    fn is_leap_year_is_false_for_"), "{text}");
    // A boundary's two sides are one test (`bucket`'s ages 12 and 13, 17 and 18, 64 and 65).
    let pair = regex::Regex::new(
        r"\+    fn bucket_at_(\d+)_and_(\d+)\(\) \{\n\+        assert_eq!\(bucket\((\d+)\), \x22\w+\x22\);\n\+        assert_eq!\(bucket\((\d+)\), \x22\w+\x22\);\n",
    )
    .unwrap();
    let pairs: Vec<_> = pair.captures_iter(&text).collect();
    assert!(pairs.len() >= 2, "{text}");
    for c in &pairs {
        let [a, b, x, y] = [1, 2, 3, 4].map(|k| c[k].parse::<u32>().unwrap());
        assert_eq!((a + 1, x, y), (b, a, b), "{}", &c[0]);
    }
    let bucket = r["targets"].as_array().unwrap().iter().find(|t| t["name"] == "bucket").unwrap();
    let joined = bucket["mutation"]["suggested_tests"].as_array().unwrap();
    assert!(
        joined.iter().any(|t| t["name"].as_str().unwrap().starts_with("bucket_at_")
            && t["kills"].as_array().unwrap().len() >= 2),
        "{joined:#?}"
    );
    assert!(!text.contains("format!(\"{:?}\""), "a literal comparison exists for each: {text}");
    support::git(&dir, &["apply", "--check", patch.to_str().unwrap()]);
    support::git(&dir, &["apply", patch.to_str().unwrap()]);
    assert!(cargo_test_in(&dir), "the project's tests fail with the suggested tests");
    let patched = support::snapshot(&dir);

    // Run again on the patched tree: the mutants the tests were chosen for are killed now.
    let o = abex(&dir, &args);
    assert!(o.status.success(), "{}", stderr(&o));
    let again = report(&dir);
    for t in again["targets"].as_array().unwrap() {
        for m in t["mutation"]["mutants"].as_array().unwrap() {
            if killed.iter().any(|k| m["id"] == k.as_str()) {
                assert_eq!(m["status"], "killed", "{m:#}");
            }
        }
    }
    let seen: usize = again["targets"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|t| t["mutation"]["mutants"].as_array().unwrap())
        .filter(|m| killed.iter().any(|k| m["id"] == k.as_str()))
        .count();
    assert_eq!(seen, killed.len(), "every listed mutant was tested again: {killed:?} in {again:#}");

    // `--write-tests` on a fresh copy writes the same files as the patch.
    let (_tmp2, fresh) = support::example("demo");
    let o = abex(&fresh, &[&args[..], &["--write-tests"]].concat());
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("Wrote"), "{}", stderr(&o));
    let mut written = support::snapshot(&fresh);
    let mut expected = patched;
    // The first copy's test build (its folder, its lock file) is not part of the project.
    let ours = |p: &Path| !p.starts_with("target-check") && p != Path::new("Cargo.lock");
    expected.retain(|p, _| ours(p));
    written.retain(|p, _| ours(p));
    assert_eq!(written, expected);
}
