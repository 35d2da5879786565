use std::path::Path;

use super::*;
use crate::mutate::rust_rules::{mutants_of, SkipRules};
use crate::rust::harness::switch::switch_probed;

const DATE: &str = "pub fn check(year: i64, month: u32, day: u32) -> Result<u32, String> {
    if year < 1812 || year > 9999 {
        return Err(\"year\".into());
    }
    if month == 0 || month > 12 {
        return Err(\"month\".into());
    }
    if day < 1 {
        return Err(\"day\".into());
    }
    let bmi = (2 * day * 10_000 + month * month) / (2 * month * month);
    if bmi < 185 { Ok(bmi) } else { Ok(day + 1) }
}
";

/// The function's item and body ranges (the whole text is one function).
fn spans(text: &str) -> ((usize, usize), (usize, usize)) {
    let end = text.trim_end().len();
    ((0, end), (text.find('{').unwrap(), end))
}

fn mutants(text: &str) -> Vec<Mutant> {
    let (item, _) = spans(text);
    mutants_of(text, Path::new("src/lib.rs"), "check", item, &SkipRules::default())
}

fn find<'a>(ms: &'a [Mutant], original: &str, replacement: &str) -> (u32, &'a Mutant) {
    let i = ms
        .iter()
        .position(|m| m.original == original && m.replacement == replacement)
        .unwrap_or_else(|| panic!("no mutant {original} -> {replacement}"));
    (i as u32 + 1, &ms[i])
}

/// The mutants of `DATE` and their probes.
fn planned() -> (Vec<Mutant>, FnProbes) {
    let ms = mutants(DATE);
    let numbered: Vec<(u32, &Mutant)> =
        ms.iter().enumerate().map(|(i, m)| (i as u32 + 1, m)).collect();
    let (_, body) = spans(DATE);
    let p = plan(DATE, body, &numbered, 10_000);
    (ms, p)
}

fn spec(p: &FnProbes, n: u32) -> serde_json::Value {
    serde_json::from_str(&p.specs[&n]).unwrap()
}

#[test]
fn a_guarded_comparison_mutant_reports_from_its_arm_with_the_guards_before_it() {
    let (ms, p) = planned();
    let (n, _) = find(&ms, "day < 1", "day <= 1");
    let s = spec(&p, n);
    assert_eq!(s["site"], serde_json::json!({ "arm": true }));
    let guards = s["guards"].as_array().unwrap();
    assert_eq!(guards.len(), 2, "{s:#}");
    assert!(guards.iter().all(|g| g["want"] == false));
    assert!(guards[0]["cond"]["or"].is_array(), "{s:#}");
    let arm = &p.arms[&n].text;
    assert!(
        arm.contains("*__abex_a <= *__abex_b") && arm.contains("*__abex_a < *__abex_b"),
        "{arm}"
    );
    assert!(arm.contains("cmp_alt(b'l', b'<'"), "{arm}");
}

#[test]
fn a_constant_under_integer_arithmetic_is_probed_at_its_comparison() {
    let (ms, p) = planned();
    let (n, _) = find(&ms, "185", "186");
    let s = spec(&p, n);
    assert_eq!(s["site"]["op"], "<");
    assert_eq!(s["site"]["l"], "a");
    assert_eq!(s["site"]["r"], serde_json::json!({ "n": "185" }));
    assert_eq!(s["guards"].as_array().unwrap().len(), 3, "{s:#}");
    // The `+` of the numerator: both operands tapped in its arm, the rest of the way tapped in
    // the original code; the `let` is tapped, and `bmi < 185` compares the original's value.
    let (n, _) = find(&ms, "2 * day * 10_000 + month * month", "2 * day * 10_000 - month * month");
    let s = spec(&p, n);
    let alt = &s["site"]["alt"];
    assert_eq!(alt["op"], "/", "{s:#}");
    assert_eq!(alt["l"]["op"], "+");
    assert!(alt["l"]["l"]["t"].is_u64() && alt["l"]["r"]["t"].is_u64() && alt["r"]["t"].is_u64());
    assert_eq!(s["site"]["then"][0]["side"], "a", "{s:#}");
    assert!(p.arms[&n].text.contains(" - "), "{}", p.arms[&n].text);
    // `day + 1` in a returned value: its own value against the original's.
    let (n, _) = find(&ms, "day + 1", "day - 1");
    let s = spec(&p, n);
    assert!(s["site"]["value"].is_u64(), "{s:#}");
    assert_eq!(s["site"]["alt"]["op"], "+");
    // `1` of `day + 1` is outside any comparison: every run of it infects.
    let (n, m) = ms
        .iter()
        .enumerate()
        .rev()
        .find(|(_, m)| m.original == "1" && m.replacement == "2")
        .map(|(i, m)| (i as u32 + 1, m))
        .unwrap();
    assert!(m.span.0 > DATE.find("day + 1").unwrap());
    assert!(p.arms[&n].infects);
}

#[test]
fn logical_operators_assignments_and_bodies_have_no_infection_probe() {
    let (ms, p) = planned();
    let (n, _) = find(&ms, "year < 1812 || year > 9999", "year < 1812 && year > 9999");
    assert!(spec(&p, n)["site"]["none"].as_str().unwrap().contains("logical"));
    let body = ms.iter().position(|m| m.operator == Operator::ReplaceBody).unwrap() as u32 + 1;
    assert!(spec(&p, body)["site"]["none"].is_string());
}

#[test]
fn the_switched_and_probed_function_is_still_rust() {
    let (ms, p) = planned();
    let numbered: Vec<(u32, &Mutant)> =
        ms.iter().enumerate().map(|(i, m)| (i as u32 + 1, m)).collect();
    let s = switch_probed(DATE, &numbered, &[(0, &p)]);
    assert!(s.rejected.is_empty(), "{:?}", s.rejected);
    let mut out = DATE.to_string();
    for e in s.edits.iter().rev() {
        out.replace_range(e.start..e.end, &e.text);
    }
    syn::parse_file(&out).unwrap_or_else(|e| panic!("{e}:\n{out}"));
    assert!(out.contains("crate::__abex_harness::cond("), "{out}");
    assert!(out.contains("crate::__abex_harness::tap("), "{out}");
    assert!(out.contains("crate::__abex_harness::reach(false);"), "{out}");
    assert!(s.edits.iter().any(|e| e.probes == [0]));
    // Without probes, the same switches.
    let plain = switch_probed(DATE, &numbered, &[]);
    assert!(plain.edits.iter().all(|e| e.probes.is_empty()));
    assert!(!plain.edits.iter().any(|e| e.text.contains("__abex_harness::cmp")));
}

/// `text` (one function) with its mutants `ms` switched and probed by `p`, and the runtime: a
/// crate's source.
fn probed_lib(text: &str, ms: &[Mutant], p: &FnProbes) -> String {
    let numbered: Vec<(u32, &Mutant)> =
        ms.iter().enumerate().map(|(i, m)| (i as u32 + 1, m)).collect();
    let s = switch_probed(text, &numbered, &[(0, p)]);
    let mut lib = text.to_string();
    for e in s.edits.iter().rev() {
        lib.replace_range(e.start..e.end, &e.text);
    }
    format!(
        "{lib}\n{}\n#[allow(warnings)]\npub mod __abex_harness {{\n{}\n}}\n",
        crate::rust::harness::switch::SWITCH_MODULE,
        crate::rust::harness::RUNTIME
    )
}

/// Compiles `lib` as a library on each of `editions`, and once more as a `#![no_std]` crate
/// that links std itself (as `url` does: only core's prelude; the crate's own code imports
/// what it uses, abex's code must need nothing of it), and fails the test on an error.
fn assert_builds(lib: &str, editions: &[&str]) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("lib.rs"), format!("#![allow(unused_parens)]\n{lib}")).unwrap();
    let no_std = format!(
        "#![no_std]\n#![allow(unused_parens)]\nextern crate std;\nuse std::{{format, string::String}};\n{lib}"
    );
    std::fs::write(dir.path().join("no_std.rs"), no_std).unwrap();
    let builds = editions.iter().map(|&e| (e, "lib.rs"));
    for (edition, file) in builds.chain([("2021", "no_std.rs")]) {
        let out = std::process::Command::new(std::env::var_os("RUSTC").unwrap_or("rustc".into()))
            .args(["--edition", edition, "--crate-type", "lib", "--crate-name", "probed"])
            .args(["--emit", "metadata", "--cap-lints", "warn", "-o"])
            .arg(dir.path().join(format!("{file}{edition}.rmeta")))
            .arg(dir.path().join(file))
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "edition {edition}, {file}:\n{}\n{lib}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

#[test]
fn the_probed_switches_and_the_runtime_build_on_every_edition_and_without_the_std_prelude() {
    let (ms, p) = planned();
    assert_builds(&probed_lib(DATE, &ms, &p), &["2015", "2018", "2021", "2024"]);
}

/// `unwrap_or(0)` → `unwrap_or(1)` on a field differs only where the field is `None`: a probe
/// that said every run infects sent the directed search around inputs where the field held a
/// number (the `fields` fixture's `req.patch.unwrap_or(0)`, unwitnessed on seed 4).
#[test]
fn the_default_of_unwrap_or_on_a_place_infects_only_where_the_place_is_empty() {
    let text = "pub fn patch(r: &(u8, Option<u64>), e: Result<u32, ()>, v: &[u64]) -> u64 {\n    r.1.unwrap_or(0) + u64::from(e.unwrap_or(7)) + v.first().copied().unwrap_or(5)\n}\n";
    let (item, body) = spans(text);
    let ms = mutants_of(text, Path::new("src/lib.rs"), "patch", item, &SkipRules::default());
    let numbered: Vec<(u32, &Mutant)> =
        ms.iter().enumerate().map(|(i, m)| (i as u32 + 1, m)).collect();
    let p = plan(text, body, &numbered, 10_000);
    let arm = |original: &str, replacement: &str| {
        let (n, _) = find(&ms, original, replacement);
        (spec(&p, n), p.arms.get(&n).map(|a| (a.text.clone(), a.infects)))
    };
    for (k, place) in [("0", "r . 1"), ("7", "e")] {
        let (s, a) = arm(k, &(k.parse::<u32>().unwrap() + 1).to_string());
        let (text, infects) = a.expect("an arm of its own");
        assert_eq!(s["site"]["arm"], true, "{s:#}");
        assert!(!infects, "{text}");
        assert!(text.contains(&format!("infects_if(({place}).__abex_defaulted())")), "{text}");
    }
    // The receiver of the third is a call, which must not run twice: every run infects.
    let (_, a) = arm("5", "6");
    assert_eq!(a.map(|a| a.1), Some(true));
    assert_builds(&probed_lib(text, &ms, &p), &["2015", "2021"]);
}

#[test]
fn the_left_operand_of_a_logical_operator_guards_a_site_on_its_right() {
    // `year > 9999` runs only when `year < 1812` does not hold; `day < 1` of the same shape
    // under `&&` only when the left operand holds.
    let (ms, p) = planned();
    let (n, _) = find(&ms, "year > 9999", "year >= 9999");
    let s = spec(&p, n);
    let guards = s["guards"].as_array().unwrap();
    assert_eq!(guards.len(), 1, "{s:#}");
    assert_eq!(guards[0]["want"], false);
    assert!(guards[0]["cond"]["c"].is_u64(), "{s:#}");
    let text = "pub fn check(a: u32, b: u32) -> bool {\n    a > 3 && b < 7\n}\n";
    let ms = mutants(text);
    let numbered: Vec<(u32, &Mutant)> =
        ms.iter().enumerate().map(|(i, m)| (i as u32 + 1, m)).collect();
    let p = plan(text, spans(text).1, &numbered, 10_000);
    let (n, _) = find(&ms, "b < 7", "b <= 7");
    let s = spec(&p, n);
    assert_eq!(s["guards"][0]["want"], true, "{s:#}");
}
