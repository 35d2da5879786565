//! GitHub `suggestion` blocks that add the suggested tests in one click. A suggestion replaces
//! the line its comment is on, so where `suggested-tests.patch` only inserts a block of lines
//! into a file after a line that the pull request's diff changed (the test module the author
//! just edited), a review comment on that line can carry a block of that line followed by the
//! tests: applying it gives the file the patch gives. Elsewhere (a new test file, imports added
//! at the top as well, a line the diff does not touch) the comment carries the test as code.

use std::path::Path;

use crate::patch::FileEdit;
use crate::report::Report;

/// The start and end of a comment's suggestion section, hidden in the rendered comment: a
/// later run compares and retires comments without it.
const START: &str = "<!-- abex:suggestion -->";
const END: &str = "<!-- /abex:suggestion -->";

/// A suggestion that adds the suggested tests of one file.
#[derive(Clone, Debug, PartialEq)]
pub struct TestSuggestion {
    /// The file, as the repository names it.
    pub path: String,
    /// The line (in the head commit) the comment goes on: the line the tests follow.
    pub line: usize,
    /// What replaces that line: its text, then the tests.
    pub replacement: String,
    /// The names (as in the report) of the tests it adds.
    pub tests: Vec<String>,
}

/// The suggestions of `edits` (their paths relative to the project, `repo_path` names them as
/// the repository does): one per file the edit only inserts one block of lines into, after a
/// line for which `touched(path, line)` holds (the latest such line when the block could go
/// after several).
pub fn suggestions(
    edits: &[FileEdit],
    repo_path: &dyn Fn(&Path) -> String,
    touched: &dyn Fn(&Path, usize) -> bool,
) -> Vec<TestSuggestion> {
    let mut out = Vec::new();
    for e in edits {
        let Some(before) = &e.before else { continue };
        let (old, new): (Vec<&str>, Vec<&str>) =
            (before.split_inclusive('\n').collect(), e.after.split_inclusive('\n').collect());
        if new.len() <= old.len() || !old.last().is_some_and(|l| l.ends_with('\n')) {
            continue;
        }
        let added = new.len() - old.len();
        // The lines the block can follow: the longest common start, back to where the common
        // end begins.
        let head = old.iter().zip(&new).take_while(|(a, b)| a == b).count();
        let tail = old.iter().rev().zip(new.iter().rev()).take_while(|(a, b)| a == b).count();
        if head + tail < old.len() {
            continue; // more than one block inserted, or lines changed
        }
        let lowest = old.len() - tail.min(old.len());
        let Some(after) = (lowest.max(1)..=head).rev().find(|&l| touched(&e.path, l)) else {
            continue;
        };
        let mut replacement: String = new[after - 1..after + added].concat();
        replacement.pop(); // the last line's end: the suggestion replaces whole lines
        out.push(TestSuggestion {
            path: repo_path(&e.path),
            line: after,
            replacement,
            tests: e.tests.iter().map(|(name, _)| name.clone()).collect(),
        });
    }
    out
}

/// The suggestions of a run's `report`, in the project it ran in: its patch's edits, after
/// lines the diff against the run's base changed. None without a base (`--all`, `--function`).
pub fn of_run(report: &Report) -> Vec<TestSuggestion> {
    let Some(base) = &report.base else { return Vec::new() };
    let Ok(changes) = crate::targets::diff::changes(&report.project_root, base) else {
        return Vec::new();
    };
    let root = &report.project_root;
    let edits = crate::patch::of_report(report);
    let touched = |p: &Path, line: usize| changes.touches(&root.join(p), line, line);
    suggestions(&edits, &|p| report.repo_path(p), &touched)
}

/// The comment's section that carries `s`: what it adds, and the block.
pub fn section(s: &TestSuggestion) -> String {
    let what = match s.tests.len() {
        1 => "the test".to_string(),
        n => format!("the {n} suggested tests of this file"),
    };
    let ticks = s.replacement.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat((ticks + 1).max(3));
    format!(
        "{START}\nCommit {what} in one click: the suggestion keeps this line and adds {} after \
         it, as `suggested-tests.patch` does.\n\n{fence}suggestion\n{}\n{fence}\n{END}\n",
        if s.tests.len() == 1 { "it" } else { "them" },
        s.replacement
    )
}

/// `body` without its suggestion section.
pub fn without_suggestion(body: &str) -> String {
    match (body.find(START), body.find(END)) {
        (Some(a), Some(b)) if a < b => {
            let rest = &body[b + END.len()..];
            format!("{}{}", &body[..a], rest.strip_prefix('\n').unwrap_or(rest))
        }
        _ => body.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edit(before: &str, after: &str) -> FileEdit {
        FileEdit {
            path: "src/lib.rs".into(),
            before: Some(before.into()),
            after: after.into(),
            tests: vec![("t".into(), "t".into())],
        }
    }

    fn apply(text: &str, s: &TestSuggestion) -> String {
        let mut lines: Vec<String> = text.lines().map(String::from).collect();
        lines.splice(s.line - 1..s.line, s.replacement.split('\n').map(String::from));
        lines.join("\n") + "\n"
    }

    fn slashed(p: &Path) -> String {
        format!("crate/{}", p.display())
    }

    #[test]
    fn one_block_after_a_touched_line_is_that_line_and_the_block() {
        let before = "mod tests {\n    fn a() {}\n\n    fn b() {}\n}\n";
        let after = "mod tests {\n    fn a() {}\n\n    fn b() {}\n\n    fn t() {}\n}\n";
        let e = edit(before, after);
        let got = suggestions(std::slice::from_ref(&e), &slashed, &|_, l| l == 4);
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].path, "crate/src/lib.rs");
        assert_eq!(got[0].line, 4);
        assert_eq!(got[0].replacement, "    fn b() {}\n\n    fn t() {}");
        assert_eq!(apply(before, &got[0]), after);
        // A block that can follow either of two lines follows the touched one.
        let slides = edit("a\n\nb\n", "a\n\nx\n\nb\n");
        for touched in [1, 2] {
            let got = suggestions(std::slice::from_ref(&slides), &slashed, &|_, l| l == touched);
            assert_eq!(got[0].line, touched);
            assert_eq!(apply("a\n\nb\n", &got[0]), "a\n\nx\n\nb\n");
        }
        // No touched line it can follow, a new file, two blocks: no suggestion.
        assert!(suggestions(std::slice::from_ref(&e), &slashed, &|_, l| l == 2).is_empty());
        let new = FileEdit { before: None, ..e.clone() };
        assert!(suggestions(&[new], &slashed, &|_, _| true).is_empty());
        let two = edit(
            "import a\n\ndef f(): pass\n",
            "import a\nimport b\n\ndef f(): pass\ndef t(): pass\n",
        );
        assert!(suggestions(&[two], &slashed, &|_, _| true).is_empty());
    }

    #[test]
    fn the_section_is_a_suggestion_block_a_later_run_can_take_out() {
        let s = TestSuggestion {
            path: "src/lib.rs".into(),
            line: 3,
            replacement: "    }\n\n    #[test]\n    fn t() {}".into(),
            tests: vec!["t".into()],
        };
        let body = format!("### abex\n\ntext\n{}\n<sub>x</sub>\n", section(&s));
        assert!(
            body.contains("```suggestion\n    }\n\n    #[test]\n    fn t() {}\n```\n"),
            "{body}"
        );
        assert_eq!(without_suggestion(&body), "### abex\n\ntext\n\n<sub>x</sub>\n");
        assert_eq!(without_suggestion("plain"), "plain");
    }
}
