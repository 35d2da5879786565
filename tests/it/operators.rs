//! abex's rule-based Rust mutants are a superset of cargo-mutants' list: on examples/demo, every
//! mutant `cargo mutants --list --json` names in a function abex analyses, abex makes too, under
//! the same name (`peer_name`). With cargo-mutants installed, its list is made afresh and must
//! also equal the committed copy (`tests/data/cargo-mutants/demo.json`, made by cargo-mutants
//! 27.1.0), so that the copy cannot go stale; without it, the committed copy is the oracle, so
//! the check never passes for want of the tool.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use abex::pipeline::{FrontEnd, LanguageOptions, RunConfig, RustOptions, Selection};
use abex::rust::RustFront;

/// A name with its whitespace dropped: cargo-mutants spaces the types and values it prints
/// its own way (`-> Result<(i32, u32), String>`), abex keeps the source's.
fn key(name: &str) -> String {
    name.chars().filter(|c| !c.is_whitespace()).collect()
}

/// `(name, function)` of each mutant in cargo-mutants' `--list --json` output.
fn listed(json: &serde_json::Value) -> BTreeSet<(String, String)> {
    json.as_array()
        .expect("a list of mutants")
        .iter()
        .map(|m| {
            let name = m["name"].as_str().expect("a name").to_string();
            let f = m["function"]["function_name"].as_str().unwrap_or_default().to_string();
            (name, f)
        })
        .collect()
}

fn demo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/demo")
}

/// cargo-mutants' list for examples/demo: made afresh when cargo-mutants 27 is installed (and
/// then checked against the committed copy), otherwise the committed copy.
fn cargo_mutants_list() -> BTreeSet<(String, String)> {
    let copy_path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/cargo-mutants/demo.json");
    let copy: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&copy_path).expect("the committed list"))
            .expect("the committed list is JSON");
    let committed: BTreeSet<(String, String)> = copy["mutants"]
        .as_array()
        .expect("mutants")
        .iter()
        .map(|m| {
            (m["name"].as_str().unwrap().to_string(), m["function"].as_str().unwrap().to_string())
        })
        .collect();
    let version = Command::new("cargo").args(["mutants", "--version"]).output();
    let installed = version.as_ref().is_ok_and(|o| {
        o.status.success() && String::from_utf8_lossy(&o.stdout).contains("cargo-mutants 27.")
    });
    if !installed {
        eprintln!("cargo-mutants 27 is not installed: comparing with {}", copy_path.display());
        return committed;
    }
    let out = Command::new("cargo")
        .args(["mutants", "--list", "--json", "--dir"])
        .arg(demo())
        .output()
        .expect("cargo mutants runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let live = listed(&serde_json::from_slice(&out.stdout).expect("cargo mutants prints JSON"));
    assert_eq!(
        live, committed,
        "the committed copy of cargo-mutants' list is stale: make it again"
    );
    live
}

#[test]
fn abex_makes_every_mutant_cargo_mutants_lists_for_the_functions_it_analyses() {
    let peers = cargo_mutants_list();
    let mut cfg = RunConfig::new(LanguageOptions::Rust(RustOptions {
        manifest_path: Some(demo().join("Cargo.toml")),
        ..RustOptions::default()
    }));
    cfg.selection = Selection::All;
    let front = RustFront::load(&cfg).expect("examples/demo loads");
    let mut ours = BTreeSet::new();
    let mut analysed = BTreeSet::new();
    for i in 0..front.targets().len() {
        let t = &front.targets()[i];
        analysed.insert(t.qualified_name.clone());
        for m in front.rule_mutants(i) {
            if let Some(n) = &m.peer_name {
                ours.insert(key(n));
            }
        }
    }
    // cargo-mutants names a function by its `impl` and inline modules, abex by its module path:
    // `Thermostat::mode` is `range::Thermostat::mode`.
    let is_analysed = |f: &str| analysed.iter().any(|q| q == f || q.ends_with(&format!("::{f}")));
    let compared: Vec<&(String, String)> = peers.iter().filter(|(_, f)| is_analysed(f)).collect();
    let missing: Vec<&String> =
        compared.iter().map(|(n, _)| n).filter(|n| !ours.contains(&key(n))).collect();
    assert!(
        missing.is_empty(),
        "abex does not make {} of cargo-mutants' mutants: {missing:#?}",
        missing.len()
    );
    // Every function cargo-mutants mutates is one abex analyses, and the list is not empty.
    assert_eq!(
        compared.len(),
        peers.len(),
        "{:?}",
        peers.iter().filter(|(_, f)| !is_analysed(f)).collect::<Vec<_>>()
    );
    assert!(compared.len() >= 150, "{}", compared.len());
    // The real gap cargo-mutants found after abex's tests: `>` → `==` in distance_from_band.
    assert!(ours
        .contains(&key("src/range.rs:76:26: replace > with == in Thermostat::distance_from_band")));
}
