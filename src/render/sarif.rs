//! `abex.sarif`: the run's gaps as SARIF 2.1.0, for GitHub code scanning
//! (`github/codeql-action/upload-sarif`) and SARIF viewers. One result per gap (a survivor with a
//! witness), with:
//!
//! - a rule per mutation operator (`abex/comparison_boundary`, ...), stable across runs;
//! - the witness in the message: the input on which the original and the mutant differ;
//! - the location of the mutant, its path from the repository root (the report's
//!   `repo_prefix`), under the base id `%SRCROOT%`, the repository root;
//! - the suggested test, when there is one, as a fix: inserted after the function;
//! - `partialFingerprints.abexGap/v1`: the gap's fingerprint (no line numbers, the one review
//!   comments carry), so code scanning tracks a gap across pushes.
//!
//!
//! A function no test reaches is one result of its own (rule `abex/not-reached`, level `note`,
//! at the function's first line, `partialFingerprints.abexNotReached/v1`), never a result per
//! mutant: its mutants are untested, not gaps.
//!
//! GitHub keeps at most 25,000 results per run; more are cut, which the run's properties say.

use serde_json::{json, Value as Json};

use crate::report::{Gap, Report, Unreached};
use crate::value::stringify_input;

/// File name of the SARIF log in the output folder.
pub const FILE_NAME: &str = "abex.sarif";

/// GitHub code scanning's limit of results per run.
pub const MAX_RESULTS: usize = 25_000;

/// The key of abex's fingerprint in `partialFingerprints`.
pub const FINGERPRINT_KEY: &str = "abexGap/v1";

/// The key of a function-not-reached note's fingerprint in `partialFingerprints`.
pub const NOT_REACHED_KEY: &str = "abexNotReached/v1";

/// The rule of the notes on functions no test reaches.
const NOT_REACHED_RULE: &str = "abex/not-reached";

/// The base id of every location: the repository root.
const SRCROOT: &str = "%SRCROOT%";

/// Renders `report` as a SARIF 2.1.0 log.
pub fn render(report: &Report) -> Json {
    let gaps = report.gaps(report.safe_prefix());
    let mut operators: Vec<&'static str> = gaps.iter().map(|g| g.mutant.operator.name()).collect();
    operators.sort_unstable();
    operators.dedup();
    let mut rules: Vec<Json> = operators.iter().map(|op| rule(op)).collect();
    let mut results: Vec<Json> = gaps
        .iter()
        .take(MAX_RESULTS)
        .map(|g| {
            let index = operators.binary_search(&g.mutant.operator.name()).unwrap_or(0);
            result(report, g, index)
        })
        .collect();
    let unreached = report.unreached(report.safe_prefix());
    if !unreached.is_empty() {
        rules.push(not_reached_rule());
        let index = rules.len() - 1;
        let room = MAX_RESULTS.saturating_sub(results.len());
        results.extend(unreached.iter().take(room).map(|u| not_reached(u, index)));
    }
    json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "abex",
                "version": report.abex_version,
                "semanticVersion": report.abex_version,
                "rules": rules,
            }},
            "originalUriBaseIds": {SRCROOT: {
                "uri": file_uri(&repository_root(report)),
                "description": {"text": "The root of the repository."},
            }},
            "results": results,
            "properties": {
                "complete": report.complete,
                "gaps": gaps.len(),
                "not_reached": unreached.len(),
                "cut": (gaps.len() + unreached.len()).saturating_sub(MAX_RESULTS),
            },
        }],
    })
}

/// The rule of a mutation operator.
fn rule(operator: &str) -> Json {
    let what = operator.replace('_', " ");
    json!({
        "id": format!("abex/{operator}"),
        "name": camel(operator),
        "shortDescription": {"text": format!("Untested change: {what}")},
        "fullDescription": {"text": format!(
            "A mutant made by `{operator}` passes every test, yet abex found an input on which it \
             behaves differently from the original: the tests do not pin this behaviour down."
        )},
        "help": {
            "text": "Add a test that fails on the mutant: the result names one, checked to pass \
                     on the original and fail on the mutant.",
            "markdown": "Add a test that fails on the mutant. abex suggests one per gap, checked \
                         to pass on the original and fail on the mutant: it is in the result's \
                         fix, the pull-request review comment and `.abex/out/report.json`.",
        },
        "defaultConfiguration": {"level": "warning"},
        "properties": {"tags": ["tests", "mutation-testing"]},
    })
}

/// The rule of the notes on functions no test reaches.
fn not_reached_rule() -> Json {
    json!({
        "id": NOT_REACHED_RULE,
        "name": "NotReached",
        "shortDescription": {"text": "Function not reached by any test"},
        "fullDescription": {"text":
            "No test fails when the function's body is replaced by a raise or a panic: the tests \
             do not reach it, so its mutants were not judged by any test (untested, not gaps)."
        },
        "help": {"text": "Add a test that calls the function and checks what it returns."},
        "defaultConfiguration": {"level": "note"},
        "properties": {"tags": ["tests", "mutation-testing"]},
    })
}

/// One function no test reaches as a result, at its first line.
fn not_reached(u: &Unreached<'_>, rule_index: usize) -> Json {
    let t = &u.target.target;
    let text = crate::render::reach::note(u.target).unwrap_or_default();
    json!({
        "ruleId": NOT_REACHED_RULE,
        "ruleIndex": rule_index,
        "level": "note",
        "message": {"text": text},
        "locations": [{
            "physicalLocation": {
                "artifactLocation": {"uri": uri_path(&u.path), "uriBaseId": SRCROOT},
                "region": {"startLine": t.span.start_line.max(1)},
            },
            "logicalLocations": [{"fullyQualifiedName": t.qualified_name, "kind": "function"}],
        }],
        "partialFingerprints": {NOT_REACHED_KEY: u.fingerprint},
        "properties": {"untested": u.untested},
    })
}

/// One gap of `report` as a result.
fn result(report: &Report, g: &Gap<'_>, rule_index: usize) -> Json {
    let (t, m) = (g.target, g.mutant);
    let function = &t.target.qualified_name;
    let test = report.suggested_test(m);
    let message = message(g);
    let mut out = json!({
        "ruleId": format!("abex/{}", m.operator.name()),
        "ruleIndex": rule_index,
        "level": "warning",
        "message": {"text": message},
        "locations": [{
            "physicalLocation": {
                "artifactLocation": {"uri": uri_path(&g.path), "uriBaseId": SRCROOT},
                "region": {"startLine": m.line.max(1), "startColumn": m.column.max(1)},
            },
            "logicalLocations": [{"fullyQualifiedName": function, "kind": "function"}],
        }],
        "partialFingerprints": {FINGERPRINT_KEY: g.fingerprint},
        "properties": {"mutant": m.id, "origin": m.origin, "diff": m.diff},
    });
    if let Some(s) = test {
        // After the function's last line: where a test beside it goes (its own test module, or
        // a test file, is the reviewer's choice).
        let after = t.target.span.end_line + 1;
        let code = format!("\n{}\n", s.code.trim_end());
        out["fixes"] = json!([{
            "description": {"text": format!(
                "Add the suggested test `{}` (passes on the original, fails on the mutant).",
                s.name
            )},
            "artifactChanges": [{
                "artifactLocation": {"uri": uri_path(&g.path), "uriBaseId": SRCROOT},
                "replacements": [{
                    "deletedRegion": {"startLine": after, "startColumn": 1, "endLine": after, "endColumn": 1},
                    "insertedContent": {"text": code},
                }],
            }],
        }]);
    }
    out
}

/// What a gap is, in one paragraph: the mutant, the witness on which it differs from the
/// original, the suggested test that closes it (SARIF results and Actions annotations).
pub fn message(g: &Gap<'_>) -> String {
    let (t, m) = (g.target, g.mutant);
    let function = &t.target.qualified_name;
    let mut message =
        format!("Mutant {} ({}) in `{function}` passes every test", m.id, m.description);
    if let Some(w) = &m.witness {
        message.push_str(&format!(
            ", yet on input {} the original gives {} and the mutant {}.",
            stringify_input(&w.input),
            w.original.stringify(),
            w.mutant.stringify()
        ));
    }
    if let Some(name) = &m.suggested_test {
        message.push_str(&format!(" The suggested test `{name}` closes it."));
    }
    message
}

/// The repository root: the project root without its `repo_prefix`.
fn repository_root(report: &Report) -> std::path::PathBuf {
    let mut root = report.project_root.clone();
    for _ in report.safe_prefix().split('/').filter(|p| !p.is_empty()) {
        root.pop();
    }
    root
}

/// `snake_case` as `CamelCase` (a rule's name).
fn camel(s: &str) -> String {
    s.split('_')
        .map(|w| {
            let mut c = w.chars();
            c.next().map(|f| f.to_uppercase().chain(c).collect::<String>()).unwrap_or_default()
        })
        .collect()
}

/// A relative path as a URI reference: every byte but unreserved ones and `/` percent-encoded.
fn uri_path(path: &str) -> String {
    let mut out = String::new();
    for b in path.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// An absolute folder as a `file:` URI ending in `/`.
fn file_uri(dir: &std::path::Path) -> String {
    let path = dir.to_string_lossy().replace('\\', "/");
    let path = path.trim_end_matches('/');
    let lead = if path.starts_with('/') { "" } else { "/" };
    format!("file://{lead}{}/", uri_path(path))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uris_are_percent_encoded_and_folders_end_in_a_slash() {
        assert_eq!(uri_path("src/my file#1.rs"), "src/my%20file%231.rs");
        assert_eq!(file_uri(std::path::Path::new("/work/my repo")), "file:///work/my%20repo/");
        assert_eq!(camel("comparison_boundary"), "ComparisonBoundary");
    }
}
