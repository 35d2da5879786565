//! Readable witnesses (issue 29), as a scan of a whole report: no reported witness or suggested
//! test holds a character outside printable ASCII that a simpler witness could replace, and a
//! string witness at a length bound is one repeated character. A character outside ASCII may
//! stay only with the suggested test's comment saying shrinking settled and no simpler input
//! tells the mutant apart (the shrinker tried `a`, `0` and a space in its place and none did).
//! The scan runs on `examples/demo` and on the `shrink` fixture (whose witnesses need a
//! character outside ASCII); with `ABEX_SHRINK=off` in the environment both fail. The ignored
//! test scans the reports named by `ABEX_SCAN_REPORTS`, for a run on a real crate by hand.

use std::sync::LazyLock;

use regex::Regex;
use serde_json::Value;

use crate::support;
use crate::witness::strings_in;

/// What a suggested test's comment says when shrinking settled.
const SETTLED: &str = "no simpler input tells them apart";

/// A length compared with a constant in a mutant's source, with the name whose length it is:
/// `s.len() > 64`, `name.chars().count() <= 3`, `64 < s.len()`.
static LENGTH_BOUND: LazyLock<Regex> = LazyLock::new(|| {
    let len = r"(\w+)(?:\.chars\(\))?\.(?:len|count)\(\)";
    let op = r"\s*(?:[<>]=?|[!=]=)\s*";
    Regex::new(&format!(r"{len}{op}(\d+)|(\d+){op}{len}")).unwrap()
});

/// What in report `r` a person would not write, one line each, and how many witnesses it read.
pub fn unreadable(r: &Value) -> (Vec<String>, usize) {
    let mut found = Vec::new();
    let mut read = 0;
    for t in r["targets"].as_array().unwrap() {
        let tests = t["mutation"]["suggested_tests"].as_array().cloned().unwrap_or_default();
        for test in &tests {
            let code = test["code"].as_str().unwrap_or_default();
            let odd: Vec<char> =
                code.chars().filter(|&c| c != '\n' && !abex::witness::typable(c)).collect();
            if !odd.is_empty() {
                found.push(format!("{:?} raw in the suggested test {}", odd, test["name"]));
            }
        }
        for m in t["mutation"]["mutants"].as_array().unwrap() {
            let Some(w) = m["witness"].as_object() else { continue };
            read += 1;
            let at = format!("{} line {} {}", t["name"], m["line"], m["description"]);
            let mut strings = Vec::new();
            strings_in(&w["input"], &mut strings);
            // The tests that kill it, where its comment explains what the witness holds.
            let comments: Vec<&str> = tests
                .iter()
                .filter(|x| {
                    x["name"] == m["suggested_test"]
                        || x["kills"].as_array().is_some_and(|k| k.contains(&m["id"]))
                })
                .filter_map(|x| x["code"].as_str())
                .collect();
            for c in strings.iter().flat_map(|s| s.chars()).filter(|c| !(' '..='~').contains(c)) {
                let name = format!("U+{:04X}", u32::from(c));
                let explained = comments
                    .iter()
                    .any(|code| code.lines().any(|l| l.contains(&name) && l.contains(SETTLED)));
                if !explained {
                    found.push(format!(
                        "{at}: the witness holds {name} unexplained: {}",
                        w["input"]
                    ));
                }
            }
            let Some((name, k)) = length_bound(m["original"].as_str().unwrap_or_default()) else {
                continue;
            };
            // The argument of that name, else the only string argument.
            let params = t["params"].as_array().cloned().unwrap_or_default();
            let named = params.iter().position(|p| p["name"] == name.as_str());
            let bounded: Vec<String> = match named {
                Some(i) => w["input"][i].as_str().map(String::from).into_iter().collect(),
                None => strings.clone(),
            };
            if let [s] = bounded.as_slice() {
                let n = s.chars().count() as i128;
                let one = s.chars().all(|c| s.starts_with(c));
                if n >= 2 && ((n - k).abs() > 1 || !one) {
                    found.push(format!(
                        "{at}: at the length bound {k} the witness is {s:?}, not one character \
                         repeated at the bound"
                    ));
                }
            }
        }
    }
    (found, read)
}

/// What has its length compared with a constant in `source`, and the constant, when it is one.
fn length_bound(source: &str) -> Option<(String, i128)> {
    let c = LENGTH_BOUND.captures(source)?;
    let (name, k) = match c.get(1) {
        Some(name) => (name, c.get(2)?),
        None => (c.get(4)?, c.get(3)?),
    };
    Some((name.as_str().to_string(), k.as_str().parse().ok()?))
}

#[test]
fn length_bounds_are_read_from_a_mutants_source() {
    assert_eq!(length_bound("s.chars().count() > 64"), Some(("s".into(), 64)));
    assert_eq!(length_bound("part.len() > 1"), Some(("part".into(), 1)));
    assert_eq!(length_bound("a.len() < 2 || b.len() < 2"), Some(("a".into(), 2)));
    assert_eq!(length_bound("3 <= name.len()"), Some(("name".into(), 3)));
    assert_eq!(length_bound("last < domain.len() - 1"), None);
}

/// `cargo abex --offline ARGS --seed 1` on a copy of `examples/<name>` (`example`) or of
/// `tests/fixtures/<name>`: the report and its text.
fn report_of(dir: &std::path::Path, args: &[&str]) -> (Value, String) {
    let bin = env!("CARGO_BIN_EXE_cargo-abex");
    let mut all = vec!["--offline", "--seed", "1"];
    all.extend_from_slice(args);
    support::abex_report(bin, dir, &all)
}

/// On examples/demo no witness holds a character outside printable ASCII, and the survivor of
/// `part.len() > 1` in `parse_component` is witnessed by `"00"` (found as `"00657"`).
#[test]
fn no_witness_on_the_demo_holds_what_a_simpler_witness_could_replace() {
    let (_tmp, dir) = support::example("demo");
    let (r, text) = report_of(&dir, &["--all"]);
    let (found, read) = unreadable(&r);
    assert!(read >= 40, "{read} witnesses: {text}");
    assert!(found.is_empty(), "{}", found.join("\n"));
}

/// The `shrink` fixture's `label_width` is told apart only by a character outside ASCII: its
/// witnesses keep one (`é`), and each suggested test's comment says why.
#[test]
fn a_character_outside_ascii_stays_only_with_the_reason_in_its_test() {
    let (_tmp, dir) = support::project("shrink");
    let (r, text) = report_of(&dir, &["--function", "src/lib.rs::label_width"]);
    let (found, read) = unreadable(&r);
    assert!(read >= 1, "{text}");
    assert!(found.is_empty(), "{}", found.join("\n"));
    assert!(text.contains("U+00E9, a character outside ASCII: no simpler input"), "{text}");
}

/// Scans the reports named by `ABEX_SCAN_REPORTS` (paths separated by `:`), from runs on real
/// crates by hand: `ABEX_SCAN_REPORTS=/path/.abex/out/report.json cargo test -p cargo-abex
/// --test it readable::scan -- --ignored --nocapture`.
#[test]
#[ignore = "needs reports from runs by hand (ABEX_SCAN_REPORTS)"]
fn scan_the_reports_named_by_abex_scan_reports() {
    let paths = std::env::var("ABEX_SCAN_REPORTS").expect("ABEX_SCAN_REPORTS");
    let mut all = Vec::new();
    for path in paths.split(':').filter(|p| !p.is_empty()) {
        let text = std::fs::read_to_string(path).unwrap();
        let (found, read) = unreadable(&serde_json::from_str(&text).unwrap());
        println!("{path}: {read} witnesses, {} unreadable", found.len());
        for f in &found {
            println!("  {f}");
        }
        all.extend(found);
    }
    assert!(all.is_empty(), "{}", all.join("\n"));
}
