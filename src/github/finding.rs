//! Findings as review comments: which parts of a report become comments (witnessed survivors
//! only), their stable fingerprints, the Markdown of a comment, and the hidden marker that lets
//! a later run find, update or close the comment it posted.
//!
//! A fingerprint hashes what identifies a gap independently of where the code sits: the file,
//! the function, the mutation operator and the whitespace-normalised original and replacement
//! text. Line numbers are left out so that an edit above a function does not make its gaps
//! look new.
//!
//! Everything a comment shows from the report (paths, names, descriptions, witness values,
//! diffs, tests) is inert ([`crate::render::inert`]): code spans and safe fences, free text
//! escaped, so a pull request's code or a model cannot add markup, mentions or links.

use std::fmt::Write as _;

use crate::render::inert::{code_span as code, fenced, markdown_text, MAX_INLINE};
use crate::report::{MutantReport, Report, SuggestedTest, TargetReport};
use crate::value::stringify_input;

/// GitHub rejects comment and review bodies longer than this many characters.
pub const MAX_BODY_CHARS: usize = 65_536;

/// The prefix of the hidden marker abex ends its comments with.
const MARKER_PREFIX: &str = "<!-- abex:v1 fp=";

/// What a finding is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Kind {
    /// A real gap: a survivor with a witness.
    #[default]
    Gap,
    /// A function no test reaches: one note for the function, whose mutants are untested.
    NotReached,
}

/// One real gap (or one function no test reaches), ready to be posted.
#[derive(Clone, Debug, PartialEq)]
pub struct Finding {
    /// A gap or a note on a function no test reaches.
    pub kind: Kind,
    /// SHA-256 fingerprint, lowercase hex.
    pub fingerprint: String,
    /// File, relative to the repository root, with `/` separators.
    pub path: String,
    /// The function's qualified name.
    pub function: String,
    /// The mutant's line.
    pub line: usize,
    /// The changed lines of the function (where a comment may go).
    pub changed_lines: Vec<usize>,
    /// One line for lists: `` `src/lib.rs:8` `shipping`: replace `>=` with `>` `` (Markdown,
    /// inert).
    pub title: String,
    /// The mutant's description as the report has it (untrusted text: render it with
    /// [`markdown_text`] or [`crate::render::inert::html_text`]).
    pub description: String,
    /// The Markdown that explains it (no marker, no test).
    pub body: String,
    /// The suggested test that closes it, as Markdown, when there is one.
    pub test: Option<String>,
    /// That test's name: the findings one test closes share one comment.
    pub test_name: Option<String>,
    /// What tells the mutant apart, on one line: the input and both outcomes.
    pub witness: String,
    /// Its function's key (`super::closing::function_key`) when the rules made its mutant: its
    /// comment's marker carries it, so that a later run that analyses the function and makes
    /// no such mutant knows the gap is gone (a model may just not write a mutant again).
    pub function_key: Option<String>,
}

/// The fingerprint of a gap (see the module documentation); `ordinal` tells apart identical
/// mutants of one function.
pub fn fingerprint(path: &str, function: &str, m: &MutantReport, ordinal: usize) -> String {
    m.gap_fingerprint(path, function, ordinal)
}

/// The suggested test that kills `m`, in a code block.
fn test_of(t: &TargetReport, s: &SuggestedTest) -> String {
    fenced(&t.target.language, &s.code)
}

/// The witness of `m` on one line: `` on `[1900]` the original gives `false`, the mutant `true` ``.
fn witness_line(m: &MutantReport) -> String {
    match &m.witness {
        Some(w) => format!(
            "on {} the original gives {}, the mutant {}",
            code(&stringify_input(&w.input)),
            code(&w.original.stringify()),
            code(&w.mutant.stringify())
        ),
        None => String::new(),
    }
}

fn explain(t: &TargetReport, m: &MutantReport, path: &str) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "**Gap**: mutant {} ({}) at {} passes every test, yet behaves differently:\n",
        code(&m.id),
        markdown_text(&m.description, MAX_INLINE),
        code(&format!("{path}:{}", m.line))
    );
    if let Some(w) = &m.witness {
        let _ = writeln!(out, "- input: {}", code(&stringify_input(&w.input)));
        let _ = writeln!(out, "- original: {}", code(&w.original.stringify()));
        let _ = writeln!(out, "- mutant: {}", code(&w.mutant.stringify()));
    }
    let Some(mr) = &t.mutation else { return out };
    if let Some(b) = mr.unpinned.iter().find(|b| b.mutants.contains(&m.id)) {
        let _ = writeln!(
            out,
            "- unpinned boundary: {} → {} / {} → {}",
            code(&b.inputs[0]),
            code(&b.outputs[0]),
            code(&b.inputs[1]),
            code(&b.outputs[1])
        );
    }
    if !m.diff.is_empty() {
        let _ = write!(
            out,
            "\n<details><summary>The mutant</summary>\n\n{}\n</details>\n",
            fenced("diff", &m.diff)
        );
    }
    out
}

/// The findings of `report`: every survivor with a witness (never a possibly equivalent one),
/// in report order, then one note per function no test reaches (on its first changed line, else
/// its first line). `prefix` is the project root relative to the repository root.
pub fn findings(report: &Report, prefix: &str) -> Vec<Finding> {
    let notes = report.unreached(prefix).into_iter().map(|u| {
        let t = &u.target.target;
        let line = t.changed_lines.first().copied().unwrap_or(t.span.start_line);
        let detail = crate::render::reach::detail(u.target).unwrap_or_default();
        Finding {
            kind: Kind::NotReached,
            fingerprint: u.fingerprint,
            title: format!(
                "{} {}: {}",
                code(&format!("{}:{line}", u.path)),
                code(&t.qualified_name),
                crate::render::reach::TITLE
            ),
            description: crate::render::reach::TITLE.to_string(),
            // The detail's only report text is the function's name, an identifier, in a code span.
            body: format!("**Not reached by any test**: {detail}.\n"),
            test: None,
            test_name: None,
            witness: String::new(),
            // A note is the function's own: posting closes it when the function is reached.
            function_key: None,
            path: u.path,
            function: t.qualified_name.clone(),
            line,
            changed_lines: t.changed_lines.clone(),
        }
    });
    let gaps = report.gaps(prefix).into_iter().map(|g| {
        let (t, m, path) = (g.target, g.mutant, g.path);
        let function = t.target.qualified_name.clone();
        let test = report.suggested_test(m);
        Finding {
            kind: Kind::Gap,
            fingerprint: g.fingerprint,
            title: format!(
                "{} {}: {}",
                code(&format!("{path}:{}", m.line)),
                code(&function),
                markdown_text(&m.description, MAX_INLINE)
            ),
            description: m.description.clone(),
            body: explain(t, m, &path),
            test: test.map(|s| test_of(t, s)),
            test_name: test.map(|s| s.name.clone()),
            witness: witness_line(m),
            function_key: (m.origin == crate::mutate::Origin::Rules)
                .then(|| super::closing::function_key(&path, &function)),
            path,
            function,
            line: m.line,
            changed_lines: t.target.changed_lines.clone(),
        }
    });
    gaps.chain(notes).collect()
}

/// The hidden marker of one finding, on a line of its own.
pub fn marker(fingerprint: &str) -> String {
    format!("{MARKER_PREFIX}{fingerprint} -->")
}

/// The hidden marker of `f`, with its function's key when it has one.
fn finding_marker(f: &Finding) -> String {
    match &f.function_key {
        Some(k) => format!("{MARKER_PREFIX}{} fn={k} -->", f.fingerprint),
        None => marker(&f.fingerprint),
    }
}

/// What the markers at the end of a comment body say.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Markers {
    /// The fingerprints of the findings in the comment.
    pub fingerprints: Vec<String>,
    /// Whether the comment says its gaps are closed.
    pub closed: bool,
    /// The function key a fingerprint's marker carries, by fingerprint.
    pub functions: std::collections::BTreeMap<String, String>,
}

fn is_key(s: &str) -> bool {
    s.len() == 64 && s.bytes().all(|b| b.is_ascii_hexdigit())
}

/// Whether `line` is one of the markers abex writes; its fingerprint and function key, if it
/// has them.
fn marker_line(line: &str) -> Option<Option<(&str, Option<&str>)>> {
    let line = line.trim();
    if line == CLOSED_MARKER {
        return Some(None);
    }
    let rest = line.strip_prefix(MARKER_PREFIX)?.strip_suffix(" -->")?;
    let (fp, function) = match rest.split_once(" fn=") {
        Some((fp, k)) if is_key(k) => (fp, Some(k)),
        Some(_) => return None,
        None => (rest, None),
    };
    is_key(fp).then_some(Some((fp, function)))
}

/// `body` split into its text and its trailing marker lines, which abex writes: text that the
/// code under test produced sits above them, so it cannot forge one.
fn split_markers(body: &str) -> (Vec<&str>, Vec<&str>) {
    let mut lines: Vec<&str> = body.trim_end().lines().collect();
    let text_len = lines.iter().rposition(|l| marker_line(l).is_none()).map_or(0, |i| i + 1);
    let tail = lines.split_off(text_len);
    (lines, tail)
}

/// The markers at the end of `body`, if it is an abex comment.
pub fn markers(body: &str) -> Option<Markers> {
    let mut m = Markers::default();
    for line in split_markers(body).1 {
        match marker_line(line).flatten() {
            Some((fp, function)) => {
                m.fingerprints.push(fp.to_string());
                if let Some(k) = function {
                    m.functions.insert(fp.to_string(), k.to_string());
                }
            }
            None => m.closed = true,
        }
    }
    (!m.fingerprints.is_empty()).then_some(m)
}

const CLOSED_MARKER: &str = "<!-- abex:v1 closed -->";

/// Cuts `text` to fit GitHub's body limit with room for `reserve` more characters.
pub fn fit(text: &str, reserve: usize) -> String {
    let limit = MAX_BODY_CHARS.saturating_sub(reserve + 200);
    if text.chars().count() <= limit {
        return text.to_string();
    }
    let mut cut: String = text.chars().take(limit).collect();
    cut.push_str(
        "\n\n… *(cut to fit GitHub's size limit: the full text is in the job summary and the report artifact)*\n",
    );
    cut
}

/// The marker `lines`, each on a line of its own, and the closed marker when `closed`.
fn markers_text(lines: &[String], closed: bool) -> String {
    let mut out = String::new();
    for line in lines {
        out.push_str(line);
        out.push('\n');
    }
    if closed {
        out.push_str(CLOSED_MARKER);
        out.push('\n');
    }
    out
}

/// The body of the comment that holds `findings` (all on one line): the gaps a suggested test
/// closes, each with its line, change and witness, then the test, then each gap in detail.
pub fn comment_body(findings: &[&Finding]) -> String {
    comment_body_with(findings, None)
}

/// [`comment_body`], its tests carried by `suggestion` (a section of
/// [`super::suggestion::section`]) instead of code blocks when there is one.
pub fn comment_body_with(findings: &[&Finding], suggestion: Option<&str>) -> String {
    let mut tests: Vec<&str> = Vec::new();
    for f in findings {
        if let Some(t) = f.test.as_deref().filter(|t| !tests.contains(t)) {
            tests.push(t);
        }
    }
    let (gaps, notes): (Vec<&Finding>, Vec<&Finding>) =
        findings.iter().partition(|f| f.kind == Kind::Gap);
    let n = gaps.len();
    let mut text = match n {
        0 if notes.len() == 1 => String::from("### abex: a function no test reaches\n\n"),
        0 => format!("### abex: {} functions no test reaches\n\n", notes.len()),
        1 => String::from("### abex: a gap the tests do not pin down\n\n"),
        _ => format!("### abex: {n} gaps the tests do not pin down\n\n"),
    };
    // A function no test reaches is one note: its mutants are untested, not gaps.
    for f in &notes {
        text.push_str(&f.body);
        text.push_str(
            "\nabex suggests no test for it: with no test reaching the function, its surviving \
             mutants say nothing about what the tests check.\n\n",
        );
    }
    let mut function = "";
    for f in &gaps {
        if f.function != function {
            if !function.is_empty() {
                text.push('\n');
            }
            function = &f.function;
            let _ = writeln!(text, "In {}:\n", code(function));
        }
        let change = markdown_text(&f.description, MAX_INLINE);
        let _ = writeln!(text, "- line {}: {change}; {}", f.line, f.witness);
    }
    let code = match suggestion {
        Some(section) => section.to_string(),
        None => tests.join("\n"),
    };
    match tests.len() {
        0 => {}
        1 => {
            let them = if n == 1 { "it" } else { "them all" };
            let _ = write!(
                text,
                "\nA test that closes {them} (checked to pass on the original and fail on each \
                 mutant):\n\n{code}"
            );
        }
        k => {
            let _ = write!(
                text,
                "\n{k} tests that close them (each checked to pass on the original and fail on \
                 its mutants):\n\n{code}"
            );
        }
    }
    if n > 0 {
        let _ = write!(
            text,
            "\n<details><summary>{}</summary>\n\n",
            if n == 1 { "The gap in detail" } else { "The gaps in detail" }
        );
        for (i, f) in gaps.iter().enumerate() {
            if i > 0 {
                text.push_str("\n---\n\n");
            }
            text.push_str(&f.body);
        }
        text.push_str("\n</details>\n");
    }
    text.push_str(
        "\n<sub>Reply `/abex ignore` or react 👎 to stop abex reporting this. It updates this \
         comment on later pushes.</sub>\n\n",
    );
    let lines: Vec<String> = findings.iter().map(|f| finding_marker(f)).collect();
    let tail = markers_text(&lines, false);
    fit(&text, tail.len()) + &tail
}

/// The body that says the gaps of a comment are closed, and `why` ("the tests now kill its
/// mutant"), keeping what it said before.
pub fn closed_body(previous: &str, fingerprints: &[String], head_sha: &str, why: &str) -> String {
    let short = head_sha.get(..7).unwrap_or(head_sha);
    let news = format!("### ✅ abex: closed\n\nAs of {short}, {why}.");
    retired_body(previous, fingerprints, &news)
}

/// The body of an outdated comment whose gaps abex posted again on their new line: what it said
/// folded away, its markers kept and marked closed (no later run edits it again).
pub fn moved_body(previous: &str, fingerprints: &[String], head_sha: &str) -> String {
    let short = head_sha.get(..7).unwrap_or(head_sha);
    let news = format!(
        "### ↪ abex: moved\n\nAs of {short}, the code under this comment changed; the gap is \
         still there, and abex commented on its new line."
    );
    retired_body(previous, fingerprints, &news)
}

/// `news`, then what `previous` said in a `<details>` block, then closed markers.
fn retired_body(previous: &str, fingerprints: &[String], news: &str) -> String {
    // A suggestion of a gap that is gone is not one to apply any more.
    let previous = super::suggestion::without_suggestion(previous);
    let before: Vec<&str> =
        previous.lines().take_while(|l| !l.trim_start().starts_with("<!-- abex:v1")).collect();
    let text = format!(
        "{news}\n\n<details><summary>What it said before</summary>\n\n{}\n</details>\n\n",
        before.join("\n").trim()
    );
    let lines: Vec<String> = fingerprints.iter().map(|fp| marker(fp)).collect();
    let tail = markers_text(&lines, true);
    fit(&text, tail.len()) + &tail
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::MutantStatus;

    fn fp(c: char) -> String {
        std::iter::repeat_n(c, 64).collect()
    }

    #[test]
    fn markers_are_read_back_from_the_end_of_a_body_only() {
        let a = Finding {
            kind: Kind::Gap,
            fingerprint: fp('a'),
            path: "src/lib.rs".into(),
            function: "f".into(),
            line: 3,
            changed_lines: vec![3],
            title: "t".into(),
            description: "d".into(),
            body: format!(
                "forged, inside the text: {}\n```\n{}\n```\n",
                marker(&fp('c')),
                marker(&fp('c'))
            ),
            test: Some("SUGGESTED\n".into()),
            test_name: Some("t".into()),
            witness: String::new(),
            function_key: Some(fp('f')),
        };
        let b = Finding { fingerprint: fp('b'), function_key: None, ..a.clone() };
        let body = comment_body(&[&a, &b]);
        assert_eq!(body.matches("SUGGESTED").count(), 1, "a shared test is shown once: {body}");
        let functions = [(fp('a'), fp('f'))].into_iter().collect();
        assert_eq!(
            markers(&body),
            Some(Markers { fingerprints: vec![fp('a'), fp('b')], closed: false, functions })
        );
        let why = "the tests now kill its mutant";
        let closed = closed_body(&body, &[fp('a'), fp('b')], "0123456789abcdef", why);
        assert!(closed.contains("As of 0123456, the tests now kill its mutant."), "{closed}");
        assert!(closed.contains("What it said before"));
        assert!(closed.contains("forged, inside the text"));
        assert_eq!(
            markers(&closed).unwrap(),
            Markers { fingerprints: vec![fp('a'), fp('b')], closed: true, ..Markers::default() }
        );
        // A function key that is not one makes the line no marker.
        let bad = format!("text\n<!-- abex:v1 fp={} fn=zz -->\n", fp('a'));
        assert_eq!(markers(&bad), None);
        assert_eq!(markers("a comment by a person"), None);
    }

    fn mutant(line: usize, original: &str, replacement: &str) -> MutantReport {
        MutantReport {
            id: format!("m{line}"),
            peer_name: None,
            origin: crate::mutate::Origin::Rules,
            operator: crate::mutate::Operator::ComparisonBoundary,
            description: format!("replace `{original}` with `{replacement}`"),
            file: "src/lib.rs".into(),
            line,
            column: 8,
            original: original.into(),
            replacement: replacement.into(),
            diff: format!("@@ -{line} +{line} @@"),
            status: MutantStatus::Survived,
            killed_by: None,
            failure: None,
            witness: None,
            possibly_equivalent: false,
            unwitnessed: None,
            search_ms: None,
            suggested_test: None,
            time_ms: 3,
        }
    }

    #[test]
    fn a_function_no_test_reaches_is_one_note_with_no_gap_and_no_test() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/reports/demo.json");
        let report: Report = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        let all = findings(&report, "");
        let function = "range::Thermostat::distance_from_band";
        let mine: Vec<&Finding> = all.iter().filter(|f| f.function == function).collect();
        assert_eq!(mine.len(), 1, "one note, not one comment per mutant");
        let note = mine[0];
        assert_eq!(note.kind, Kind::NotReached);
        assert_eq!((note.test.as_ref(), note.witness.as_str()), (None, ""));
        assert_eq!(note.line, report.unreached("")[0].target.target.span.start_line);
        let body = comment_body(&[note]);
        assert!(body.starts_with("### abex: a function no test reaches"), "{body}");
        assert!(body.contains("**Not reached by any test**: no test fails when"), "{body}");
        assert!(!body.contains("```") && !body.contains("gap in detail"), "{body}");
        assert_eq!(markers(&body).unwrap().fingerprints, vec![note.fingerprint.clone()]);
        // Beside a gap on the same line: the gap keeps its test, the note its own words.
        let gap = all.iter().find(|f| f.kind == Kind::Gap && f.test.is_some()).unwrap();
        let both = comment_body(&[gap, note]);
        assert!(both.starts_with("### abex: a gap the tests do not pin down"), "{both}");
        assert!(both.contains("**Not reached by any test**") && both.contains("```"), "{both}");
        assert_eq!(markers(&both).unwrap().fingerprints.len(), 2);
    }

    #[test]
    fn a_fingerprint_ignores_where_the_code_sits_and_its_spacing_but_not_what_changes() {
        let fp = |m: &MutantReport, f: &str| fingerprint("src/lib.rs", f, m, 0);
        let here = mutant(5, "a >= b", "a > b");
        assert_eq!(fp(&here, "f"), fp(&mutant(40, "a  >=\n b", "a > b"), "f"));
        assert_ne!(fp(&here, "f"), fp(&mutant(5, "a >= b", "a < b"), "f"));
        assert_ne!(fp(&here, "f"), fp(&here, "g"));
        assert_ne!(fp(&here, "f"), fingerprint("src/lib.rs", "f", &here, 1));
    }

    #[test]
    fn a_body_past_the_limit_is_cut_but_keeps_its_markers() {
        let a = Finding {
            kind: Kind::Gap,
            fingerprint: fp('a'),
            path: "p".into(),
            function: "f".into(),
            line: 1,
            changed_lines: vec![1],
            title: "t".into(),
            description: "d".into(),
            body: "x".repeat(100_000),
            test: None,
            test_name: None,
            witness: String::new(),
            function_key: None,
        };
        let body = comment_body(&[&a]);
        assert!(body.chars().count() <= MAX_BODY_CHARS);
        assert!(body.contains("cut to fit"));
        assert_eq!(markers(&body).unwrap().fingerprints, vec![fp('a')]);
    }

    #[test]
    fn what_a_report_says_reaches_a_comment_inert() {
        let f = Finding {
            kind: Kind::Gap,
            fingerprint: fp('a'),
            path: "src/lib.rs".into(),
            function: "f`n".into(),
            line: 5,
            changed_lines: vec![5],
            title: String::new(),
            description: "model: fix\n## LGTM\n@org/team <img src=https://t.test/p> `x`".into(),
            body: String::new(),
            function_key: None,
            test: Some(fenced("rust", "fn t() { let s = \"```\"; }")),
            test_name: None,
            witness: String::new(),
        };
        let body = comment_body(&[&f]);
        assert!(!body.contains("\n## LGTM") && !body.contains("<img"), "{body}");
        assert!(body.contains("@&#8203;org/team") && body.contains("In `` f`n ``:"), "{body}");
        assert!(body.contains("````rust\n"), "{body}");
    }
}
