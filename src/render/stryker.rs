//! The run's mutants as a Stryker mutation-testing report (`mutation-report.json`), so the
//! mutation-testing-elements HTML viewer and the Stryker dashboard can show them.
//!
//! The document follows the JSON schema of the npm package `mutation-testing-report-schema`
//! (report [`SCHEMA_VERSION`] 2; the tests validate against a vendored copy of version 3.8.4 in
//! `tests/data/stryker/`). It is derived from the [`Report`] alone, plus the text of each mutated
//! file, which the viewer needs to place the mutants; files that cannot be read are left out.
//! The output folder writes it beside `report.json` (`OutDir::write_all`):
//!
//! ```ignore
//! let doc = abex::render::stryker::mutation_report(&report, &|p| std::fs::read_to_string(p).ok());
//! out.write(abex::render::stryker::FILE_NAME, &serde_json::to_vec_pretty(&doc)?)?;
//! ```
//!
//! How abex's outcomes map onto the schema's statuses:
//!
//! | abex            | Stryker        | `statusReason`                                       |
//! |-----------------|----------------|------------------------------------------------------|
//! | `killed`        | `Killed`       | `killed by <test>` (and `killedBy: [<test>]`)         |
//! | `survived`      | `Survived`     | `witness: <input> → original <o1>, mutant <o2>`, or `no witness found: <the stage the search never passed>` (only a masked one reads "probably equivalent"), or `no witness found: possibly equivalent` in a report without stages |
//! | `timeout`       | `Timeout`      | the tests ran past the time limit                    |
//! | `unviable`      | `CompileError` | does not build                                       |
//! | `not_exercised` | `Ignored`      | not compiled under the current features              |
//! | `not_tested`    | `Ignored`      | not tested: the run stopped first (its reason)       |
//! | `not_reached`   | `NoCoverage`   | no test reaches its function                         |
//!
//! `Ignored` keeps the last two out of the viewer's mutation score, as they should be: no test
//! was run against them. Columns are counted in UTF-16 code units, as the viewer (JavaScript)
//! indexes the source; abex's own report counts characters.

use std::collections::{BTreeMap, HashSet};
use std::path::{Component, Path};

use serde_json::{json, Map, Value as Json};

use crate::report::{MutantReport, MutantStatus, Report};
use crate::value::Value;

/// The report schema version written (`schemaVersion`).
pub const SCHEMA_VERSION: &str = "2";

/// The file name in the output folder.
pub const FILE_NAME: &str = "mutation-report.json";

/// Mutation score (%) at or above which the viewer colours a file green.
const THRESHOLD_HIGH: u8 = 80;

/// Mutation score (%) below which the viewer colours a file red.
const THRESHOLD_LOW: u8 = 60;

/// The Stryker mutation-testing-report-schema document for a run's report.
///
/// `read_source` is given `project_root.join(file)` once per mutated file and returns its text;
/// a file for which it returns `None` is left out with its mutants.
pub fn mutation_report(report: &Report, read_source: &dyn Fn(&Path) -> Option<String>) -> Json {
    let mut files: BTreeMap<String, FileMutants> = BTreeMap::new();
    let mut unreadable: HashSet<String> = HashSet::new();
    for target in &report.targets {
        let Some(mutation) = &target.mutation else { continue };
        for mutant in &mutation.mutants {
            let key = relative_key(&report.project_root, &mutant.file);
            if unreadable.contains(&key) {
                continue;
            }
            if !files.contains_key(&key) {
                match read_source(&report.project_root.join(&mutant.file)) {
                    Some(source) => {
                        let language = target.target.language.as_str();
                        let entry =
                            FileMutants { language, source, ids: HashSet::new(), list: vec![] };
                        files.insert(key.clone(), entry);
                    }
                    None => {
                        unreadable.insert(key);
                        continue;
                    }
                }
            }
            let Some(file) = files.get_mut(&key) else { continue };
            // The schema wants the mutants of a file unique, and the viewer keys them by id.
            if file.ids.insert(mutant.id.as_str()) {
                file.list.push(mutant);
            }
        }
    }

    // Why mutants were left untested: the run stopped before their tests.
    let stopped = report.stopped_because();
    let files: Map<String, Json> = files
        .into_iter()
        .map(|(key, file)| {
            let lines: Vec<&str> = file.source.split('\n').collect();
            let mutants: Vec<Json> =
                file.list.iter().map(|m| mutant_json(m, &lines, stopped)).collect();
            let entry = json!({
                "language": file.language,
                "source": file.source,
                "mutants": mutants,
            });
            (key, entry)
        })
        .collect();

    let mut config = Map::new();
    config.insert("selection".into(), json!(report.selection));
    if let Some(base) = &report.base {
        config.insert("base".into(), serde_json::to_value(base).unwrap_or(Json::Null));
    }
    if let Ok(Json::Object(settings)) = serde_json::to_value(&report.settings) {
        config.extend(settings);
    }

    json!({
        "schemaVersion": SCHEMA_VERSION,
        "thresholds": { "high": THRESHOLD_HIGH, "low": THRESHOLD_LOW },
        "projectRoot": report.project_root.to_string_lossy(),
        "files": files,
        "framework": { "name": "abex", "version": report.abex_version },
        "config": config,
    })
}

/// The mutants of one file, in report order, while the document is gathered.
struct FileMutants<'r> {
    language: &'r str,
    source: String,
    ids: HashSet<&'r str>,
    list: Vec<&'r MutantReport>,
}

/// One `MutantResult`; `lines` is the file's text split at `\n`.
fn mutant_json(m: &MutantReport, lines: &[&str], stopped: &str) -> Json {
    let (status, reason) = status_and_reason(m, stopped);
    let mut out = Map::new();
    out.insert("id".into(), json!(m.id));
    out.insert("mutatorName".into(), json!(mutator_name(m.operator.name())));
    out.insert("replacement".into(), json!(m.replacement));
    out.insert("description".into(), json!(m.description));
    out.insert("location".into(), location(m, lines));
    out.insert("status".into(), json!(status));
    if let Some(reason) = reason {
        out.insert("statusReason".into(), json!(reason));
    }
    if let (MutantStatus::Killed, Some(test)) = (m.status, &m.killed_by) {
        out.insert("killedBy".into(), json!([test]));
    }
    if matches!(m.status, MutantStatus::Killed | MutantStatus::Survived | MutantStatus::Timeout) {
        out.insert("duration".into(), json!(m.time_ms));
    }
    Json::Object(out)
}

/// The schema status and the sentence that explains it (`stopped`: why the run stopped early,
/// for the mutants it left untested).
fn status_and_reason(m: &MutantReport, stopped: &str) -> (&'static str, Option<String>) {
    match m.status {
        MutantStatus::Killed => (
            "Killed",
            Some(m.killed_by.as_ref().map_or("a test failed".into(), |t| format!("killed by {t}"))),
        ),
        MutantStatus::Survived => {
            let mut reason = match (&m.witness, m.possibly_equivalent) {
                (Some(w), _) => format!(
                    "witness: {} → original {}, mutant {}",
                    Value::List(w.input.clone()).to_json(),
                    w.original,
                    w.mutant
                ),
                // Only a masked survivor reads as equivalent: an unreached site is unproven.
                (None, true) => match &m.unwitnessed {
                    Some(u) => format!("no witness found: {}", u.describe()),
                    None => "no witness found: possibly equivalent".into(),
                },
                (None, false) => "every test passed".into(),
            };
            if let Some(test) = &m.suggested_test {
                reason.push_str(&format!("; suggested test: {test}"));
            }
            ("Survived", Some(reason))
        }
        MutantStatus::Timeout => ("Timeout", Some("the tests ran past the time limit".into())),
        MutantStatus::Unviable => ("CompileError", Some("does not build".into())),
        MutantStatus::NotExercised => {
            ("Ignored", Some("not compiled under the current features".into()))
        }
        MutantStatus::NotTested => {
            ("Ignored", Some(format!("not tested: the run stopped first ({stopped})")))
        }
        MutantStatus::NotReached => ("NoCoverage", Some("no test reaches its function".into())),
    }
}

/// Start (inclusive) and end (exclusive) of the replaced text, 1-based, the end following the
/// last line of `original` when it spans several.
fn location(m: &MutantReport, lines: &[&str]) -> Json {
    // A line or column of 0 would break the schema's minimum of 1 and the whole document with it.
    let line = m.line.max(1);
    let column = m.column.max(1);
    let end_line = line + m.original.matches('\n').count();
    let end_column = match m.original.rfind('\n') {
        Some(i) => m.original[i + 1..].chars().count() + 1,
        None => column + m.original.chars().count(),
    };
    let text = |l: usize| lines.get(l - 1).copied().unwrap_or("");
    json!({
        "start": { "line": line, "column": utf16_column(text(line), column) },
        "end": { "line": end_line, "column": utf16_column(text(end_line), end_column) },
    })
}

/// The 1-based UTF-16 column of the 1-based character `column` of `line`; past the end of the
/// line (a file changed since the run), each missing character counts as one unit.
fn utf16_column(line: &str, column: usize) -> usize {
    let want = column.saturating_sub(1);
    let (mut units, mut seen) = (0, 0);
    for c in line.chars().take(want) {
        units += c.len_utf16();
        seen += 1;
    }
    units + (want - seen) + 1
}

/// Stryker's PascalCase mutator name from abex's snake_case operator name:
/// `comparison_boundary` → `ComparisonBoundary`.
fn mutator_name(snake: &str) -> String {
    snake
        .split('_')
        .map(|word| {
            let mut chars = word.chars();
            chars.next().map_or(String::new(), |first| first.to_uppercase().chain(chars).collect())
        })
        .collect()
}

/// The file's key: its path relative to the project root, with `/` separators (the viewer builds
/// its folder tree from them).
fn relative_key(root: &Path, file: &Path) -> String {
    let relative = file.strip_prefix(root).unwrap_or(file);
    relative
        .components()
        .filter_map(|c| match c {
            Component::Normal(part) => Some(part.to_string_lossy().into_owned()),
            Component::ParentDir => Some("..".to_string()),
            Component::CurDir | Component::RootDir | Component::Prefix(_) => None,
        })
        .collect::<Vec<_>>()
        .join("/")
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;
    use crate::mutate::{Operator, Origin};
    use crate::report::{MutantCounts, MutationReport, Settings, TargetReport, Witness};
    use crate::targets::{Drive, Span, Target};
    use crate::value::Outcome;

    const CLAMP: &str = "\
/// Clamps `x` to `lo..=hi`.
pub fn clamp(x: i32, lo: i32, hi: i32) -> i32 {
    if x < lo {
        return lo;
    }
    if x > hi { hi } else { x }
}
";

    fn mutant(
        id: &str,
        operator: Operator,
        line: usize,
        column: usize,
        original: &str,
    ) -> MutantReport {
        MutantReport {
            id: id.into(),
            peer_name: None,
            origin: Origin::Rules,
            operator,
            description: format!("replace `{original}`"),
            file: PathBuf::from("src/clamp.rs"),
            line,
            column,
            original: original.into(),
            replacement: String::new(),
            diff: String::new(),
            status: MutantStatus::Survived,
            killed_by: None,
            failure: None,
            witness: None,
            possibly_equivalent: false,
            unwitnessed: None,
            search_ms: None,
            suggested_test: None,
            time_ms: 0,
        }
    }

    fn target(file: &str, mutants: Vec<MutantReport>) -> TargetReport {
        TargetReport {
            target: Target {
                language: "rust".into(),
                package: "demo".into(),
                file: PathBuf::from(file),
                span: Span { start_line: 1, end_line: 7 },
                name: "clamp".into(),
                qualified_name: "clamp".into(),
                signature: "pub fn clamp(x: i32, lo: i32, hi: i32) -> i32".into(),
                params: vec![],
                doc: String::new(),
                changed_lines: vec![3],
                drive: Drive::Supported,
                source: String::new(),
            },
            exploration: None,
            mutation: Some(MutationReport {
                self_check_killed: Some(true),
                reached_by: None,
                test_tool: "cargo test".into(),
                counts: MutantCounts::default(),
                mutants,
                unpinned: vec![],
                suggested_tests: vec![],
            }),
        }
    }

    fn report(targets: Vec<TargetReport>) -> Report {
        Report {
            format: "abex-report".into(),
            version: crate::report::REPORT_VERSION,
            abex_version: "0.1.0".into(),
            language: "rust".into(),
            project_root: PathBuf::from("/work/demo"),
            repo_prefix: String::new(),
            base: None,
            selection: "diff".into(),
            settings: Settings {
                engine: "offline".into(),
                pairs: 200,
                time_budget_s: None,
                seed: 7,
                call_timeout_ms: 1000,
                shard: None,
            },
            complete: true,
            interrupted: None,
            exhausted: None,
            unfinished: None,
            reused: Default::default(),
            targets,
            llm: None,
            origins: Vec::new(),
        }
    }

    /// One target on `src/clamp.rs` with a mutant of every outcome, and one on a file that cannot
    /// be read.
    fn sample() -> Report {
        let mut killed = mutant("k1", Operator::ComparisonBoundary, 3, 10, "<");
        killed.replacement = "<=".into();
        killed.status = MutantStatus::Killed;
        killed.killed_by = Some("tests::clamps_below".into());
        killed.time_ms = 120;

        let mut witnessed = mutant("s1", Operator::NegateCondition, 6, 8, "x > hi");
        witnessed.replacement = "!(x > hi)".into();
        witnessed.witness = Some(Witness {
            input: vec![Value::Int(7), Value::Int(0), Value::Int(5)],
            original: Outcome::Ok { value: "5".into() },
            mutant: Outcome::Ok { value: "7".into() },
            found_by: "archive".into(),
            shrunk_from: None,
        });
        witnessed.suggested_test = Some("clamp_holds_above_hi".into());
        witnessed.time_ms = 90;

        let mut equivalent = mutant("s2", Operator::ComparisonBoundary, 6, 10, ">");
        equivalent.replacement = ">=".into();
        equivalent.possibly_equivalent = true;
        // Behind a guard no input passed: unproven, not "possibly equivalent".
        let mut unreached = mutant("s3", Operator::ComparisonBoundary, 6, 12, ">");
        unreached.replacement = ">=".into();
        unreached.possibly_equivalent = true;
        unreached.unwitnessed = Some(crate::report::Unwitnessed::NeverReached {
            missed_guards: 1,
            branch_distance: Some(1.0),
        });

        // Spans lines 3–5: `if x < lo {` … `}`.
        let mut unviable =
            mutant("u1", Operator::Rewrite, 3, 5, "if x < lo {\n        return lo;\n    }");
        unviable.origin = Origin::Model;
        unviable.replacement = "if x < lo { lo }".into();
        unviable.status = MutantStatus::Unviable;

        let mut timeout = mutant("t1", Operator::Rewrite, 4, 9, "return lo");
        timeout.replacement = "loop {}".into();
        timeout.status = MutantStatus::Timeout;
        timeout.time_ms = 20_000;

        let mut not_exercised = mutant("n1", Operator::DeleteMatchArm, 6, 17, "hi");
        not_exercised.status = MutantStatus::NotExercised;

        let mut not_tested = mutant("n2", Operator::ReplaceBody, 6, 29, "x");
        not_tested.status = MutantStatus::NotTested;

        let mut gone = mutant("g1", Operator::ReplaceBody, 1, 1, "x");
        gone.file = PathBuf::from("src/gone.rs");

        report(vec![
            target(
                "src/clamp.rs",
                vec![
                    witnessed,
                    equivalent,
                    unreached,
                    killed,
                    unviable,
                    timeout,
                    not_exercised,
                    not_tested,
                ],
            ),
            target("src/gone.rs", vec![gone]),
        ])
    }

    fn read_clamp(path: &Path) -> Option<String> {
        (path == Path::new("/work/demo/src/clamp.rs")).then(|| CLAMP.to_string())
    }

    fn by_id<'a>(doc: &'a Json, id: &str) -> &'a Json {
        doc["files"]["src/clamp.rs"]["mutants"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["id"] == id)
            .unwrap_or_else(|| panic!("no mutant {id}"))
    }

    fn loc(m: &Json) -> [u64; 4] {
        let l = &m["location"];
        [&l["start"]["line"], &l["start"]["column"], &l["end"]["line"], &l["end"]["column"]]
            .map(|v| v.as_u64().unwrap())
    }

    fn validator() -> jsonschema::Validator {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data/stryker/mutation-testing-report-schema.json");
        let text = std::fs::read_to_string(&path).unwrap();
        jsonschema::draft7::new(&serde_json::from_str(&text).unwrap()).unwrap()
    }

    fn schema_errors(doc: &Json) -> Vec<String> {
        validator().iter_errors(doc).map(|e| format!("{} at {}", e, e.instance_path())).collect()
    }

    #[test]
    fn the_document_carries_the_header_fields() {
        let doc = mutation_report(&sample(), &read_clamp);
        assert_eq!(doc["schemaVersion"], "2");
        assert_eq!(doc["thresholds"], json!({"high": 80, "low": 60}));
        assert_eq!(doc["projectRoot"], "/work/demo");
        assert_eq!(doc["framework"], json!({"name": "abex", "version": "0.1.0"}));
        assert_eq!(doc["config"]["selection"], "diff");
        assert_eq!(doc["config"]["seed"], 7);
    }

    #[test]
    fn only_readable_mutated_files_appear_with_their_full_source() {
        let doc = mutation_report(&sample(), &read_clamp);
        let files = doc["files"].as_object().unwrap();
        assert_eq!(files.keys().collect::<Vec<_>>(), ["src/clamp.rs"]);
        assert_eq!(files["src/clamp.rs"]["language"], "rust");
        assert_eq!(files["src/clamp.rs"]["source"], CLAMP);
        let ids: Vec<&str> = files["src/clamp.rs"]["mutants"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["id"].as_str().unwrap())
            .collect();
        assert_eq!(ids, ["s1", "s2", "s3", "k1", "u1", "t1", "n1", "n2"]);
    }

    #[test]
    fn each_outcome_maps_to_its_stryker_status_and_reason() {
        let doc = mutation_report(&sample(), &read_clamp);

        let killed = by_id(&doc, "k1");
        assert_eq!(killed["status"], "Killed");
        assert_eq!(killed["killedBy"], json!(["tests::clamps_below"]));
        assert_eq!(killed["statusReason"], "killed by tests::clamps_below");
        assert_eq!(killed["mutatorName"], "ComparisonBoundary");
        assert_eq!(killed["replacement"], "<=");
        assert_eq!(killed["description"], "replace `<`");
        assert_eq!(killed["duration"], 120);

        let witnessed = by_id(&doc, "s1");
        assert_eq!(witnessed["status"], "Survived");
        assert_eq!(
            witnessed["statusReason"],
            "witness: [7,0,5] → original 5, mutant 7; suggested test: clamp_holds_above_hi"
        );
        assert!(witnessed.get("killedBy").is_none());

        let equivalent = by_id(&doc, "s2");
        assert_eq!(equivalent["status"], "Survived");
        assert_eq!(equivalent["statusReason"], "no witness found: possibly equivalent");
        let unreached = by_id(&doc, "s3");
        assert_eq!(
            unreached["statusReason"],
            "no witness found: site never reached (closest approach: 1 guard missed, branch \
             distance 1)"
        );

        assert_eq!(by_id(&doc, "u1")["status"], "CompileError");
        assert_eq!(by_id(&doc, "u1")["mutatorName"], "Rewrite");
        assert!(by_id(&doc, "u1").get("duration").is_none());
        assert_eq!(by_id(&doc, "t1")["status"], "Timeout");
        assert_eq!(by_id(&doc, "t1")["duration"], 20_000);
        assert_eq!(by_id(&doc, "n1")["status"], "Ignored");
        assert_eq!(by_id(&doc, "n1")["statusReason"], "not compiled under the current features");
        assert_eq!(by_id(&doc, "n2")["status"], "Ignored");
        assert_eq!(
            by_id(&doc, "n2")["statusReason"],
            "not tested: the run stopped first (the time budget ran out)"
        );
        // After Ctrl-C, the same mutant says so.
        let mut interrupted = sample();
        interrupted.interrupted = Some(crate::report::Interrupted {
            signal: "SIGINT".into(),
            reason: "interrupted by SIGINT".into(),
        });
        let doc = mutation_report(&interrupted, &read_clamp);
        assert_eq!(
            by_id(&doc, "n2")["statusReason"],
            "not tested: the run stopped first (interrupted by SIGINT)"
        );
    }

    #[test]
    fn locations_are_one_based_with_an_exclusive_end_on_the_last_line_of_the_original() {
        let doc = mutation_report(&sample(), &read_clamp);
        assert_eq!(loc(by_id(&doc, "k1")), [3, 10, 3, 11]);
        assert_eq!(loc(by_id(&doc, "s1")), [6, 8, 6, 14]);
        assert_eq!(loc(by_id(&doc, "u1")), [3, 5, 5, 6]);
        assert_eq!(loc(by_id(&doc, "t1")), [4, 9, 4, 18]);
        // Each location really covers its original text in the source.
        let lines: Vec<&str> = CLAMP.split('\n').collect();
        for (id, original) in [("k1", "<"), ("s1", "x > hi"), ("t1", "return lo")] {
            let [l, c, _, e] = loc(by_id(&doc, id)).map(|v| v as usize);
            assert_eq!(&lines[l - 1][c - 1..e - 1], original, "{id}");
        }
    }

    #[test]
    fn columns_count_utf16_units_as_the_viewer_does() {
        // `🙂` is one character but two UTF-16 units; `é` is one of each.
        let line = "let s = \"🙂é\"; a < b";
        let char_column = line.chars().position(|c| c == '<').unwrap() + 1;
        assert_eq!(utf16_column(line, char_column), char_column + 1);
        assert_eq!(utf16_column("ab", 3), 3);
        assert_eq!(utf16_column("ab", 5), 5);
    }

    #[test]
    fn operator_names_become_pascal_case_mutator_names() {
        assert_eq!(mutator_name(Operator::ConstantPlusOne.name()), "ConstantPlusOne");
        assert_eq!(mutator_name(Operator::Rewrite.name()), "Rewrite");
    }

    #[test]
    fn file_keys_are_relative_with_forward_slashes() {
        let root = Path::new("/work/demo");
        assert_eq!(relative_key(root, Path::new("src/a/b.rs")), "src/a/b.rs");
        assert_eq!(relative_key(root, Path::new("/work/demo/src/b.rs")), "src/b.rs");
        assert_eq!(relative_key(root, Path::new("./src/b.rs")), "src/b.rs");
    }

    #[test]
    fn a_mutant_listed_twice_appears_once() {
        let mut r = sample();
        let again = r.targets[0].clone();
        r.targets.push(again);
        let doc = mutation_report(&r, &read_clamp);
        assert_eq!(doc["files"]["src/clamp.rs"]["mutants"].as_array().unwrap().len(), 8);
    }

    #[test]
    fn the_document_validates_against_the_stryker_schema() {
        let doc = mutation_report(&sample(), &read_clamp);
        assert_eq!(schema_errors(&doc), Vec::<String>::new());
        let empty = mutation_report(&report(vec![]), &read_clamp);
        assert_eq!(empty["files"], json!({}));
        assert_eq!(schema_errors(&empty), Vec::<String>::new());
    }

    /// A change that makes a valid document invalid.
    type Breakage = fn(&mut Json);

    #[test]
    fn the_schema_check_rejects_broken_documents() {
        let good = mutation_report(&sample(), &read_clamp);
        let breakages: [(&str, Breakage); 4] = [
            ("unknown status", |d| {
                d["files"]["src/clamp.rs"]["mutants"][0]["status"] = json!("Bogus")
            }),
            ("no schemaVersion", |d| {
                d.as_object_mut().unwrap().remove("schemaVersion");
            }),
            ("0-based column", |d| {
                d["files"]["src/clamp.rs"]["mutants"][0]["location"]["start"]["column"] = json!(0)
            }),
            ("no source", |d| {
                d["files"]["src/clamp.rs"].as_object_mut().unwrap().remove("source");
            }),
        ];
        for (what, breakage) in breakages {
            let mut doc = good.clone();
            breakage(&mut doc);
            assert!(!schema_errors(&doc).is_empty(), "{what}: accepted by the schema");
        }
    }
}
