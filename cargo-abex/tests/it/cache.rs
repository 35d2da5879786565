//! The results cache end to end (issue 27): the real `cargo abex` on the `limit` fixture, whose
//! `classify` reads a module constant through a helper. A change to anything its result
//! depends on (the constant, the helper, the lock file, a knob) makes the next run analyse it
//! again and report the fresh witness; an entry git tracks is never read; a cached suggested
//! test that no longer kills its mutant is caught before it is reported.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

use crate::support;

fn abex(dir: &Path, env: &[(&str, &str)]) -> Output {
    abex_on(dir, env, &["src/lib.rs::classify"])
}

/// `cargo abex` on the `functions` of the fixture in `dir`.
fn abex_on(dir: &Path, env: &[(&str, &str)], functions: &[&str]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_cargo-abex"));
    cmd.args(["abex", "--offline", "--pairs", "300"]);
    for f in functions {
        cmd.args(["--function", f]);
    }
    cmd.current_dir(dir)
        .env_remove("GITHUB_BASE_REF")
        .env_remove("ABEX_API_KEY")
        .env_remove("OPENAI_API_KEY")
        .env_remove("ABEX_SHRINK")
        .env("NO_COLOR", "1");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let o = cmd.output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    o
}

fn report(dir: &Path) -> Value {
    let text = std::fs::read_to_string(dir.join(".abex/out/report.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// How many whole results the run took from the cache.
fn reused(r: &Value) -> u64 {
    r["reused"]["functions"].as_u64().unwrap_or(0)
}

/// The witness input of `classify`'s `<` → `<=` mutant, and the code of the suggested tests.
fn boundary(r: &Value) -> (String, String) {
    let m = &r["targets"][0]["mutation"];
    let mutant = m["mutants"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["replacement"].as_str().unwrap().contains("<="))
        .unwrap_or_else(|| panic!("no `<=` mutant: {m:#}"));
    let input = mutant["witness"]["input"].to_string();
    let tests = m["suggested_tests"].as_array().unwrap();
    (input, tests.iter().map(|t| t["code"].as_str().unwrap()).collect())
}

fn edit(dir: &Path, file: &str, from: &str, to: &str) {
    let path = dir.join(file);
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains(from), "{from} not in {file}");
    std::fs::write(path, text.replacen(from, to, 1)).unwrap();
}

/// The cache entry files of the results cache (not the partial work).
fn entries(dir: &Path) -> Vec<PathBuf> {
    let results = dir.join(".abex/cache/results");
    let mut out: Vec<PathBuf> = std::fs::read_dir(&results)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    out.sort();
    out
}

#[test]
fn a_change_to_what_a_result_depends_on_is_analysed_again_and_a_cache_entry_is_checked_before_use()
{
    let (_tmp, dir) = support::project("limit");
    abex(&dir, &[]);
    let first = report(&dir);
    assert_eq!(reused(&first), 0);
    let (input, tests) = boundary(&first);
    assert_eq!(input, "[100]");
    assert!(tests.contains("classify(100)"), "{tests}");

    // Nothing changed: the result is reused, once its suggested test was checked again.
    abex(&dir, &[]);
    let again = report(&dir);
    assert_eq!(reused(&again), 1, "{again:#}");
    assert_eq!(boundary(&again), (input, tests));

    // The constant the function reads (not its own text): the fresh witness.
    edit(&dir, "src/lib.rs", "const LIMIT: i64 = 100;", "const LIMIT: i64 = 10;");
    let o = abex(&dir, &[]);
    // Missed by the key, the stale entry would be caught only by its test's check: not here.
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(!stderr.contains("reused from the results cache"), "{stderr}");
    let r = report(&dir);
    assert_eq!(reused(&r), 0, "{r:#}");
    let (input, tests) = boundary(&r);
    assert_eq!(input, "[10]");
    assert!(tests.contains("classify(10)") && !tests.contains("classify(100)"), "{tests}");

    // The helper it calls.
    edit(&dir, "src/lib.rs", "    LIMIT\n", "    LIMIT * 2\n");
    let o = abex(&dir, &[]);
    assert!(!String::from_utf8_lossy(&o.stderr).contains("reused from the results cache"));
    let r = report(&dir);
    assert_eq!((reused(&r), boundary(&r).0), (0, "[20]".to_string()), "{r:#}");

    // The lock file.
    edit(&dir, "Cargo.lock", "version = 4", "version = 4\n# resolved again");
    abex(&dir, &[]);
    assert_eq!(reused(&report(&dir)), 0);
    abex(&dir, &[]);
    assert_eq!(reused(&report(&dir)), 1, "and then reused");

    // A knob that changes results.
    abex(&dir, &[("ABEX_SHRINK", "off")]);
    assert_eq!(reused(&report(&dir)), 0);

    // A cached suggested test that no longer kills its mutant (a change no key can see, here
    // made by hand in the entry) is caught: the function is analysed again.
    abex(&dir, &[]);
    for path in &entries(&dir) {
        let text = std::fs::read_to_string(path).unwrap();
        std::fs::write(path, text.replace("classify(20)", "classify(500)")).unwrap();
    }
    let o = abex(&dir, &[]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(
        stderr.contains("reused from the results cache, no longer kills its mutant"),
        "{stderr}"
    );
    let r = report(&dir);
    assert_eq!(reused(&r), 0, "{r:#}");
    let (input, tests) = boundary(&r);
    assert_eq!(input, "[20]");
    assert!(tests.contains("classify(20)") && !tests.contains("classify(500)"), "{tests}");

    // A pull request that commits a cache entry under the key of this very code, with a false
    // witness: git tracks it, so it is never read.
    for path in entries(&dir) {
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::write(
            &path,
            text.replace("[20]", "[999]").replace("classify(20)", "classify(999)"),
        )
        .unwrap();
    }
    support::git(&dir, &["add", "-f", ".abex/cache/results"]);
    support::git(&dir, &["commit", "-q", "-m", "a planted cache entry"]);
    abex(&dir, &[]);
    let r = report(&dir);
    assert_eq!(reused(&r), 0, "{r:#}");
    assert_eq!(boundary(&r).0, "[20]");
    assert!(!r.to_string().contains("classify(999)"), "{r:#}");
    // Nor written over: the files git tracks stay as they were committed.
    assert_eq!(support::git(&dir, &["status", "--porcelain", "--", ".abex/cache"]), "");
}

/// `cargo abex` on both functions of `limit`, and its report.
fn abex_both(dir: &Path) -> Value {
    abex_on(dir, &[], &["src/lib.rs::classify", "src/lib.rs::limit"]);
    report(dir)
}

/// How many mutants' results the run took from an earlier one.
fn kept(r: &Value) -> u64 {
    r["reused"]["mutants"].as_u64().unwrap_or(0)
}

/// Each mutant's status, by function and id.
fn statuses(r: &Value) -> Vec<(String, String, String)> {
    let mut out = Vec::new();
    for t in r["targets"].as_array().unwrap() {
        for m in t["mutation"]["mutants"].as_array().unwrap() {
            let name = t["name"].as_str().unwrap().to_string();
            out.push((name, m["id"].to_string(), m["status"].to_string()));
        }
    }
    out.sort();
    out
}

#[test]
fn the_next_push_keeps_the_kills_of_what_it_did_not_change_and_tests_every_survivor_again() {
    let (_tmp, dir) = support::project("limit");
    let first = abex_both(&dir);
    assert_eq!(kept(&first), 0, "{first:#}");
    // `classify`'s mutants that were killed, timed out or did not build.
    let kills = |r: &Value| -> u64 {
        let t = r["targets"].as_array().unwrap().iter().find(|t| t["name"] == "classify");
        let c = &t.unwrap()["mutation"]["counts"];
        ["killed", "timeout", "unviable"].iter().map(|k| c[k].as_u64().unwrap()).sum()
    };
    let survived = |r: &Value| -> Vec<String> {
        let t = r["targets"].as_array().unwrap().iter().find(|t| t["name"] == "classify");
        let ms = t.unwrap()["mutation"]["mutants"].as_array().unwrap();
        let alive = ms.iter().filter(|m| m["status"] == "survived" && m["witness"].is_object());
        alive.map(|m| m["id"].to_string()).collect()
    };
    assert!(kills(&first) > 0 && !survived(&first).is_empty(), "{first:#}");

    // The next push changes `limit`'s body alone: `classify`'s kills are kept (its tests are
    // not run again on them), its survivor is tested and proven again, and each of its
    // mutants has the first run's status (`limit`'s have new ids: its text moved).
    edit(&dir, "src/lib.rs", "    LIMIT\n", "    // reviewed\n    LIMIT\n");
    let push = abex_both(&dir);
    assert_eq!(kept(&push), kills(&first), "{push:#}");
    let of_classify = |r: &Value| -> Vec<(String, String, String)> {
        statuses(r).into_iter().filter(|(f, ..)| f == "classify").collect()
    };
    assert_eq!(of_classify(&push), of_classify(&first));
    assert_eq!(survived(&push), survived(&first));

    // A change to the tests (here one more assertion) keeps nothing: a test removed or
    // weakened may let a mutant live.
    edit(
        &dir,
        "src/lib.rs",
        "assert_eq!(classify(5), \"small\");",
        "assert_eq!(classify(5), \"small\");\n        assert_eq!(classify(6), \"small\");",
    );
    let r = abex_both(&dir);
    assert_eq!(kept(&r), 0, "{r:#}");
    // Nor does a change to `classify`'s own text.
    edit(&dir, "src/lib.rs", "        \"small\"\n", "        // small\n        \"small\"\n");
    let r = abex_both(&dir);
    // `limit`'s kills only (its text and everything outside the bodies are as last run).
    let limit = r["targets"].as_array().unwrap().iter().find(|t| t["name"] == "limit").unwrap();
    let c = &limit["mutation"]["counts"];
    let limit_kills: u64 =
        ["killed", "timeout", "unviable"].iter().map(|k| c[k].as_u64().unwrap()).sum();
    assert_eq!(kept(&r), limit_kills, "{r:#}");
}
