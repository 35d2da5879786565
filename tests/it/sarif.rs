//! `abex.sarif` and the Actions annotations, rendered from the frozen reports of
//! `tests/data/reports/`: validated against the SARIF 2.1.0 JSON schema (vendored in
//! `tests/data/sarif/`, read from disk: no network), pinned by snapshots, and checked for what
//! code scanning needs (stable rule ids, fingerprints without line numbers, paths from the
//! repository root).

use std::path::Path;

use abex::render::{annotations, sarif};
use abex::report::Report;
use serde_json::Value as Json;

fn report(name: &str) -> Report {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/reports").join(name);
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).expect("a frozen report")
}

fn schema_errors(log: &Json) -> Vec<String> {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/sarif/sarif-2.1.0-rtm.5.json");
    // The published schema's `run.language` pattern has an unescaped `]`, which ECMAScript
    // reads as a literal and the validator's meta-schema check refuses: escaped here, in memory.
    let text = std::fs::read_to_string(path).unwrap().replace("{2}]?$", "{2}\\\\]?$");
    let schema: Json = serde_json::from_str(&text).unwrap();
    let validator = jsonschema::draft4::new(&schema).expect("the SARIF schema compiles");
    validator.iter_errors(log).map(|e| format!("{e} at {}", e.instance_path())).collect()
}

fn results(log: &Json) -> &Vec<Json> {
    log["runs"][0]["results"].as_array().unwrap()
}

#[test]
fn the_sarif_of_both_demos_validates_against_the_sarif_2_1_0_schema_and_is_pinned() {
    for name in ["demo", "python-demo"] {
        let r = report(&format!("{name}.json"));
        let log = sarif::render(&r);
        assert_eq!(schema_errors(&log), Vec::<String>::new(), "{name}");
        let (gaps, unreached) = (r.totals().gaps, r.totals().unreached);
        assert!(gaps > 0 && results(&log).len() == gaps + unreached, "{name}: {gaps} gaps");
        let text = serde_json::to_string_pretty(&log).unwrap();
        insta::assert_snapshot!(format!("{}_sarif", name.replace('-', "_")), text);
    }
}

#[test]
fn the_schema_catches_a_broken_log() {
    let mut log = sarif::render(&report("demo.json"));
    log["runs"][0]["results"][0]["level"] = "severe".into();
    log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]["startLine"] =
        0.into();
    assert_eq!(schema_errors(&log).len(), 2, "{:?}", schema_errors(&log));
}

#[test]
fn each_result_names_its_operator_s_rule_its_witness_and_its_suggested_test() {
    let r = report("demo.json");
    let log = sarif::render(&r);
    let rules: Vec<&str> = log["runs"][0]["tool"]["driver"]["rules"]
        .as_array()
        .unwrap()
        .iter()
        .map(|rule| rule["id"].as_str().unwrap())
        .collect();
    let gaps = r.gaps("");
    // The gaps, then one note per function no test reaches.
    let (notes, found): (Vec<&Json>, Vec<&Json>) =
        results(&log).iter().partition(|res| res["ruleId"] == "abex/not-reached");
    assert_eq!(found.len(), gaps.len());
    let unreached = r.unreached("");
    assert_eq!(notes.len(), unreached.len());
    assert!(!notes.is_empty(), "demo.json has a function no test reaches");
    for (res, u) in notes.iter().zip(&unreached) {
        assert_eq!(res["level"], "note");
        assert_eq!(rules[res["ruleIndex"].as_u64().unwrap() as usize], "abex/not-reached");
        assert_eq!(res["partialFingerprints"][sarif::NOT_REACHED_KEY], u.fingerprint.as_str());
        let text = res["message"]["text"].as_str().unwrap();
        assert!(text.starts_with("not reached by any test:"), "{text}");
        assert!(text.contains(&u.target.target.qualified_name), "{text}");
    }
    for (res, gap) in found.iter().zip(&gaps) {
        let rule = format!("abex/{}", gap.mutant.operator.name());
        assert_eq!(res["ruleId"], rule.as_str());
        assert_eq!(rules[res["ruleIndex"].as_u64().unwrap() as usize], rule);
        let text = res["message"]["text"].as_str().unwrap();
        let w = gap.mutant.witness.as_ref().unwrap();
        assert!(text.contains(&abex::value::stringify_input(&w.input)), "{text}");
        assert_eq!(res["partialFingerprints"][sarif::FINGERPRINT_KEY], gap.fingerprint.as_str());
        if let Some(name) = &gap.mutant.suggested_test {
            let code = &r.targets.iter().find_map(|t| {
                t.mutation.as_ref()?.suggested_tests.iter().find(|s| &s.name == name)
            });
            let inserted = res["fixes"][0]["artifactChanges"][0]["replacements"][0]
                ["insertedContent"]["text"]
                .as_str()
                .unwrap();
            assert!(inserted.contains(code.unwrap().code.trim()), "{inserted}");
        }
    }
}

#[test]
fn a_gap_keeps_its_fingerprint_when_its_line_moves() {
    let r = report("demo.json");
    let mut moved = r.clone();
    for t in &mut moved.targets {
        for m in &mut t.mutation.as_mut().unwrap().mutants {
            m.line += 7;
        }
    }
    let fps = |r: &Report| -> Vec<Json> {
        results(&sarif::render(r)).iter().map(|x| x["partialFingerprints"].clone()).collect()
    };
    assert_eq!(fps(&r), fps(&moved));
    let lines = |r: &Report| -> Vec<Json> {
        results(&sarif::render(r))
            .iter()
            .map(|x| x["locations"][0]["physicalLocation"]["region"]["startLine"].clone())
            .collect()
    };
    assert_ne!(lines(&r), lines(&moved));
}

#[test]
fn a_project_in_a_subfolder_gets_paths_from_the_repository_root() {
    let mut r = report("demo.json");
    r.repo_prefix = "examples/demo".into();
    let log = sarif::render(&r);
    assert_eq!(schema_errors(&log), Vec::<String>::new());
    let loc = &results(&log)[0]["locations"][0]["physicalLocation"]["artifactLocation"];
    assert_eq!(loc["uri"], "examples/demo/src/date.rs");
    assert_eq!(log["runs"][0]["originalUriBaseIds"]["%SRCROOT%"]["uri"], "file:///project/");
    assert!(annotations::render(&r).starts_with("::warning file=examples/demo/src/date.rs,"));
    // A prefix that would leave the repository (an untrusted artifact) is ignored.
    r.repo_prefix = "../../etc".into();
    let log = sarif::render(&r);
    let loc = &results(&log)[0]["locations"][0]["physicalLocation"];
    assert_eq!(loc["artifactLocation"]["uri"], "src/date.rs");
}

#[test]
fn annotations_are_one_warning_per_gap_and_one_notice_per_function_not_reached_and_pinned() {
    for name in ["demo", "python-demo"] {
        let r = report(&format!("{name}.json"));
        let text = annotations::render(&r);
        let n = r.totals();
        let warnings = text.lines().filter(|l| l.starts_with("::warning file=")).count();
        let notices = text.lines().filter(|l| l.starts_with("::notice file=")).count();
        assert_eq!((warnings, notices), (n.gaps, n.unreached), "{text}");
        assert!(text.lines().all(|l| l.contains(",line=")));
        insta::assert_snapshot!(format!("{}_annotations", name.replace('-', "_")), text);
    }
}
