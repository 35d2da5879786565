//! What people read, pinned by snapshots: the terminal text, `summary.md`, a review comment and
//! `junit.xml`, each rendered from a frozen report in `tests/data/reports/` (one of
//! `examples/demo`, one of `examples/python-demo`; its README says how they were made). A change
//! to a renderer shows up here, in review, as a snapshot diff. Absolute paths, times and
//! durations are filtered out.

use std::path::Path;

use abex::github::closing::Closing;
use abex::github::finding::findings;
use abex::github::plan::plan;
use abex::render::text::{self, TextOptions};
use abex::render::{junit, markdown};
use abex::report::Report;

/// The frozen report `tests/data/reports/<name>.json`.
fn report(name: &str) -> Report {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/reports").join(name);
    let text = std::fs::read_to_string(&path).expect("the frozen report");
    serde_json::from_str(&text).expect("a report in the current format")
}

/// Snapshot settings for `report`: its project root, times and durations filtered out.
fn settings(report: &Report) -> insta::Settings {
    let mut s = insta::Settings::clone_current();
    let root = regex_escape(&report.project_root.display().to_string());
    s.add_filter(&root, "[ROOT]");
    s.add_filter(r"\b\d+\.\d+ s\b", "[DURATION]");
    s.add_filter(r#"\btime="[0-9.]+""#, r#"time="[DURATION]""#);
    s.add_filter(r#"\btimestamp="[^"]*""#, r#"timestamp="[TIME]""#);
    s
}

fn regex_escape(s: &str) -> String {
    s.chars()
        .flat_map(|c| {
            let special = "\\.+*?()|[]{}^$#&-~".contains(c);
            special.then_some('\\').into_iter().chain([c])
        })
        .collect()
}

/// What `cargo abex` and `pytest --abex` print, without colour.
fn terminal_text(report: &Report) -> String {
    let opts = TextOptions {
        show: 5,
        colour: false,
        report_path: Some(report.project_root.join(".abex/out/report.json")),
    };
    text::render(report, &opts)
}

/// The first review comment a posting run makes: the gaps the suggested test that closes the
/// most closes, on its first gap's line (every line changed).
fn first_comment(report: &Report) -> String {
    let mut all = findings(report, "");
    assert!(!all.is_empty(), "the report has a gap");
    for f in &mut all {
        f.changed_lines = (1..=f.line + 40).collect();
    }
    let p = plan(&all, &[], 30, &Closing::default(), "0123456789");
    p.new.first().expect("a comment").body()
}

fn junit_xml(report: &Report) -> String {
    String::from_utf8(junit::render(report).expect("JUnit XML")).expect("UTF-8")
}

/// Pins the four surfaces of the frozen report `<name>.json`, as snapshots named after it.
fn pin_surfaces(name: &str) {
    let r = report(&format!("{name}.json"));
    let snap = |surface: &str| format!("{}_{surface}", name.replace('-', "_"));
    settings(&r).bind(|| {
        insta::assert_snapshot!(snap("text"), terminal_text(&r));
        insta::assert_snapshot!(snap("summary"), markdown::render(&r));
        insta::assert_snapshot!(snap("comment"), first_comment(&r));
        insta::assert_snapshot!(snap("junit"), junit_xml(&r));
    });
}

#[test]
fn the_rust_demo_s_text_summary_review_comment_and_junit_are_pinned() {
    pin_surfaces("demo");
}

#[test]
fn the_python_demo_s_text_summary_review_comment_and_junit_are_pinned() {
    pin_surfaces("python-demo");
}

#[test]
fn colour_only_adds_escapes() {
    let r = report("demo.json");
    let plain = terminal_text(&r);
    let opts = TextOptions {
        colour: true,
        report_path: Some(r.project_root.join(".abex/out/report.json")),
        ..TextOptions::default()
    };
    let coloured = text::render(&r, &opts);
    assert!(coloured.contains("\x1b["), "{coloured}");
    let stripped = strip_ansi(&coloured);
    assert_eq!(stripped, plain);
}

/// `text` without its ANSI escapes (`ESC [ … m`).
fn strip_ansi(text: &str) -> String {
    let mut out = String::new();
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\x1b' {
            for d in chars.by_ref() {
                if d == 'm' {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// A report with a function that has no docstring (`doc` is then left out) and an infinite
/// input distance (written as `null`) reads back: `pytest --abex` renders its summary from the
/// JSON, and `cargo abex merge` and `post` read saved reports.
#[test]
fn a_report_without_a_doc_and_with_an_infinite_distance_reads_back() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/reports/python-demo.json");
    let mut json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let target = &mut json["targets"][0];
    target.as_object_mut().unwrap().remove("doc");
    target["exploration"]["cells"][0]["d_in"] = serde_json::Value::Null;
    let r: Report = serde_json::from_value(json).expect("the report reads back");
    assert_eq!(r.targets[0].target.doc, "");
    let cell = &r.targets[0].exploration.as_ref().unwrap().cells[0];
    assert_eq!(cell.d_in, f64::INFINITY);
    assert!(text::render(&r, &TextOptions::default()).contains("shop.pricing.bulk_discount"));
}

#[test]
fn junit_lists_the_mutants_whose_tests_never_ran_as_one_skipped_case() {
    let mut r = report("demo.json");
    let m = r.targets.iter_mut().find_map(|t| t.mutation.as_mut()).unwrap();
    let killed: Vec<usize> = (0..m.mutants.len())
        .filter(|&k| m.mutants[k].status == abex::report::MutantStatus::Killed)
        .take(2)
        .collect();
    assert_eq!(killed.len(), 2);
    let ids: Vec<String> = killed.iter().map(|&k| m.mutants[k].id.clone()).collect();
    for &k in &killed {
        m.mutants[k].status = abex::report::MutantStatus::NotTested;
    }
    let xml = junit_xml(&r);
    let case = xml.split("<testcase").find(|c| c.contains("not tested (2 mutants)")).expect(&xml);
    assert!(case.contains("<skipped") && case.contains("NotTested"), "{case}");
    assert!(ids.iter().all(|id| case.contains(id.as_str())), "{case}");
    assert!(!junit_xml(&report("demo.json")).contains("NotTested"));
}

/// Issue 18: a suggested Python test compares `repr` text only when the value is no literal.
#[test]
fn no_suggested_python_test_compares_repr_text_where_a_literal_exists() {
    let r = report("python-demo.json");
    let re = regex::Regex::new(r#"assert repr\(.*\) == ("(?:[^"\\]|\\.)*")"#).unwrap();
    let mut tests = 0;
    for t in &r.targets {
        for s in t.mutation.iter().flat_map(|m| &m.suggested_tests) {
            tests += 1;
            for line in s.code.lines().filter(|l| l.contains("repr(")) {
                let c = re.captures(line).unwrap_or_else(|| panic!("an unknown repr use: {line}"));
                let value: String = serde_json::from_str(&c[1]).unwrap();
                assert!(
                    !abex::python::suggest::is_literal(&value),
                    "`{}` compares repr text where `{value}` is a literal:\n{}",
                    s.name,
                    s.code
                );
            }
        }
    }
    assert!(tests > 5, "the frozen report has suggested tests");
}

/// Issue 28: what a pull request's code and a model put into a report (a description with
/// newlines, a heading, a mention, an image and HTML; a function name with backticks; values
/// with terminal escapes; a suggested test holding a fence) reaches every surface as data: no
/// markup, no live mention, no fence broken out of, no control character.
#[test]
fn hostile_text_in_a_report_reaches_every_surface_inert() {
    let mut r = report("demo.json");
    let hostile = "model: tidy\n## LGTM, merge it\n@org/team ![x](https://evil.test/p.png) <img src=x onerror=alert(1)>";
    let osc52 = "\x1b]52;c;ZXZpbA==\x07\r";
    let t = r
        .targets
        .iter_mut()
        .find(|t| t.mutation.iter().any(|m| !m.suggested_tests.is_empty()))
        .unwrap();
    t.target.qualified_name = "f`n <b>".into();
    let m = t.mutation.as_mut().unwrap();
    let gap = m.mutants.iter_mut().find(|x| x.witness.is_some()).unwrap();
    gap.description = hostile.into();
    gap.origin = abex::mutate::Origin::Model;
    let w = gap.witness.as_mut().unwrap();
    w.original = abex::value::Outcome::Ok { value: format!("ok{osc52}") };
    let id = gap.id.clone();
    let s = &mut m.suggested_tests[0];
    s.code = format!("fn t() {{\n    let s = \"```\";\n    assert_eq!(f(), \"{osc52}\");\n}}\n");
    s.kills.push(id);

    let all = findings(&r, "");
    let mut placed = all.clone();
    for f in &mut placed {
        f.changed_lines = (1..=f.line + 40).collect();
    }
    let p = plan(&placed, &[], 30, &Closing::default(), "0123456789");
    let comments: Vec<String> = p.new.iter().map(|c| c.body()).collect();
    let unplaced = plan(&all, &[], 0, &Closing::default(), "0123456789");
    let review = abex::github::post::review_body(&unplaced, &all, "0");
    let summary = markdown::render(&r);
    for (surface, text) in comments
        .iter()
        .map(|c| ("comment", c))
        .chain([("review body", &review), ("summary.md", &summary)])
    {
        assert!(!text.lines().any(|l| l.starts_with("## LGTM")), "{surface}: a heading\n{text}");
        assert!(!text.contains("@org/team"), "{surface}: a live mention\n{text}");
        assert!(!text.contains("<img"), "{surface}: HTML\n{text}");
        assert!(!text.contains("<b>") || text.contains("`` f`n <b> ``"), "{surface}: HTML\n{text}");
        assert!(!text.contains("![x]("), "{surface}: an image\n{text}");
        assert!(!text.contains('\x1b') && !text.contains('\r'), "{surface}: a control\n{text}");
    }
    assert!(comments.iter().any(|c| c.contains("@&#8203;org/team")), "{comments:?}");
    assert!(summary.contains("````rust\nfn t() {"), "the fence outgrows the test's: {summary}");
    let terminal = terminal_text(&r);
    assert!(!terminal.contains('\x1b') && !terminal.contains('\r'), "{terminal:?}");
    assert!(terminal.contains("\\u{1b}]52;c;ZXZpbA==\\u{7}"), "{terminal}");
    let annotations = abex::render::annotations::render(&r);
    assert!(!annotations.contains('\x1b') && !annotations.contains('\r'), "{annotations:?}");
    // One `::warning` per gap, one `::notice` per function no test reaches: nothing else.
    assert!(
        annotations.lines().all(|l| l.starts_with("::warning ") || l.starts_with("::notice ")),
        "{annotations}"
    );
}
