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
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_cargo-abex"));
    cmd.args(["abex", "--offline", "--function", "src/lib.rs::classify", "--pairs", "300"])
        .current_dir(dir)
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
