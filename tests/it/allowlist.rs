//! The hostile corpus (`tests/data/hostile/{rust,python}/`): model answers that would create a
//! marker file if they ever ran, by every route a blocklist misses (aliases, names the file
//! imports, `__import__`, `getattr(__builtins__, …)`, `importlib`, `std::mem::transmute`,
//! `asm!`, inline `extern`, look-alike identifiers, nested functions and closures doing I/O,
//! characters two parsers read differently as a line end, attribute arguments such as
//! `#[doc = include_str!(…)]`, paths inside macro bodies).
//! Each is refused by the front end's validation, with a reason; a set of honest mutants passes.
//! The end-to-end runs that prove none of them ran are `cargo-abex/tests/it/llm.rs` and
//! `pytest-abex/tests/test_model.py`.

use std::path::Path;

use abex::python::cpython::same_reading;
use abex::python::model_check::validate_python;
use abex::rust::model_check::validate_rust;

const RUST_ORIGINAL: &str = "/// \"negative\" below 0, \"zero\" at 0, \"small\" from 1 to 99, \"large\" from 100.\npub fn classify(n: i64) -> &'static str {\n    if n < 0 {\n        \"negative\"\n    } else if n == 0 {\n        \"zero\"\n    } else if n < 100 {\n        \"small\"\n    } else {\n        \"large\"\n    }\n}";

const PYTHON_ORIGINAL: &str = "def bulk_discount(quantity: int) -> float:\n    \"\"\"15% from 100 items, 5% from 10.\"\"\"\n    if quantity < 0:\n        raise ValueError(\"quantity must not be negative\")\n    if quantity >= 100:\n        return 0.15\n    if quantity >= 10:\n        return 0.05\n    return 0.0\n";

/// The corpus of one language: (file name, answer with `MARKER` replaced by a path).
fn corpus(language: &str) -> Vec<(String, String)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/hostile").join(language);
    let mut files: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    files
        .into_iter()
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().to_string();
            let text = std::fs::read_to_string(&p).unwrap().replace("MARKER", "/tmp/abex-marker");
            (name, text)
        })
        .collect()
}

fn all_refused(
    language: &str,
    validate: impl Fn(&str) -> Result<String, String>,
) -> Vec<(String, String)> {
    let c = corpus(language);
    assert!(c.len() >= 30, "{language}: {} hostile answers", c.len());
    let mut reasons = Vec::new();
    let mut accepted = Vec::new();
    for (name, answer) in c {
        match validate(&answer) {
            Ok(_) => accepted.push(name),
            Err(why) => reasons.push((name, why)),
        }
    }
    assert!(accepted.is_empty(), "{language}: accepted {accepted:?}");
    for (name, why) in &reasons {
        println!("{name}: {why}");
    }
    reasons
}

#[test]
fn every_hostile_rust_answer_is_refused_with_a_reason() {
    let reasons = all_refused("rust", |a| validate_rust(RUST_ORIGINAL, a));
    // Refused for what they reach, not because they fail to parse.
    let unparsed: Vec<_> = reasons.iter().filter(|(_, w)| w.contains("parse")).collect();
    assert!(unparsed.is_empty(), "{unparsed:?}");
}

#[test]
fn every_hostile_python_answer_is_refused_with_a_reason() {
    let reasons = all_refused("python", |a| validate_python(PYTHON_ORIGINAL, a));
    let unparsed: Vec<_> = reasons.iter().filter(|(_, w)| w.contains("parse")).collect();
    assert!(unparsed.is_empty(), "{unparsed:?}");
}

/// Behind the character check, the project's interpreter refuses the carriage-return cases on
/// its own: tree-sitter reads their statement after the `\r` as part of a comment, CPython as
/// code, so the two readings differ.
#[test]
fn the_interpreter_s_reading_refuses_the_carriage_return_cases_without_the_character_check() {
    let cases: Vec<_> = corpus("python").into_iter().filter(|(n, _)| n.contains("_cr")).collect();
    assert_eq!(cases.len(), 3);
    for (name, answer) in cases {
        let refused = validate_python(PYTHON_ORIGINAL, &answer).unwrap_err();
        assert!(refused.contains("carriage return"), "{name}: {refused}");
        let e = same_reading(Path::new("python3"), &answer).unwrap_err();
        assert!(e.contains("reads it differently"), "{name}: {e}");
    }
}

#[test]
fn honest_mutants_pass_the_allowlist() {
    let rust = [
        "if n <= 0 { \"negative\" } else if n == 0 { \"zero\" } else if n < 100 { \"small\" } else { \"large\" }",
        "if n < 0 { \"negative\" } else if n == 0 { \"zero\" } else if n <= 100 { \"small\" } else { \"large\" }",
        "let m = n.saturating_sub(1); if m < 0 { \"negative\" } else if m < 100 { \"small\" } else { \"large\" }",
        "match n { i64::MIN..=-1 => \"negative\", 0 => \"zero\", 1..=99 => \"small\", _ => \"large\" }",
        "if n.abs() < 100 { if n == 0 { \"zero\" } else { \"small\" } } else { \"large\" }",
    ];
    for b in rust {
        let m = format!("pub fn classify(n: i64) -> &'static str {{\n    {b}\n}}");
        assert!(
            validate_rust(RUST_ORIGINAL, &m).is_ok(),
            "{b}: {:?}",
            validate_rust(RUST_ORIGINAL, &m)
        );
    }
    let python = [
        "    if quantity < 0:\n        raise ValueError(\"quantity must not be negative\")\n    if quantity > 100:\n        return 0.15\n    return 0.05 if quantity >= 10 else 0.0\n",
        "    tiers = [(100, 0.15), (11, 0.05)]\n    for limit, rate in tiers:\n        if quantity >= limit:\n            return rate\n    return 0.0\n",
        "    return min(0.15, max(0.0, round(quantity / 1000, 2)))\n",
    ];
    for b in python {
        let m = format!("def bulk_discount(quantity: int) -> float:\n{b}");
        assert!(
            validate_python(PYTHON_ORIGINAL, &m).is_ok(),
            "{b}: {:?}",
            validate_python(PYTHON_ORIGINAL, &m)
        );
        assert_eq!(same_reading(Path::new("python3"), &m), Ok(()), "{b}");
    }
}
