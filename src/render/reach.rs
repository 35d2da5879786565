//! What every surface says of a function no test reaches, in the same words: one note for the
//! function (its mutants are untested, never gaps), worded from what the front end knows. The
//! Python runner traces which tests call the function, so it can say that none does, or that
//! some do and none fails when it raises; otherwise the self-check alone speaks.

use crate::report::TargetReport;

/// The title of the note: "not reached by any test".
pub const TITLE: &str = "not reached by any test";

/// Why the tests do not reach `t`'s function, one sentence without the title (`None` when they
/// do, or when that is not known): "no test this session ran calls `pkg.mod.f`".
pub fn why(t: &TargetReport) -> Option<String> {
    let m = t.mutation.as_ref().filter(|m| m.unreached())?;
    let name = &t.target.qualified_name;
    let python = t.target.language == "python";
    let fails = if python { "raises" } else { "panics" };
    Some(match m.reached_by {
        Some(0) => format!("no test this session ran calls `{name}`"),
        Some(n) => {
            let tests = if n == 1 { "1 test calls" } else { "tests call" };
            let n = if n == 1 { String::new() } else { format!("{n} ") };
            format!("{n}{tests} `{name}`, but none fails when it {fails}: they do not check it")
        }
        None => format!("no test fails when `{name}` {fails}"),
    })
}

/// The note without its title: "no test this session ran calls `pkg.mod.f`; its 12 surviving
/// mutants are untested, not gaps".
pub fn detail(t: &TargetReport) -> Option<String> {
    let why = why(t)?;
    let n = t.mutation.as_ref().map_or(0, |m| m.counts.not_reached);
    let untested = match n {
        0 => String::new(),
        1 => "; its 1 surviving mutant is untested, not a gap".to_string(),
        n => format!("; its {n} surviving mutants are untested, not gaps"),
    };
    Some(format!("{why}{untested}"))
}

/// The whole note: "not reached by any test: " and its [`detail`].
pub fn note(t: &TargetReport) -> Option<String> {
    Some(format!("{TITLE}: {}", detail(t)?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::{MutantCounts, MutationReport};

    fn target(
        language: &str,
        self_check_killed: Option<bool>,
        reached_by: Option<usize>,
    ) -> TargetReport {
        let target = crate::targets::Target {
            language: language.into(),
            package: "p".into(),
            file: "m.py".into(),
            span: crate::targets::Span { start_line: 1, end_line: 2 },
            name: "f".into(),
            qualified_name: "pkg.m.f".into(),
            signature: "def f(x)".into(),
            params: Vec::new(),
            doc: String::new(),
            changed_lines: Vec::new(),
            drive: crate::targets::Drive::Supported,
            source: String::new(),
        };
        let mutation = MutationReport {
            self_check_killed,
            reached_by,
            test_tool: String::new(),
            counts: MutantCounts { not_reached: 12, ..MutantCounts::default() },
            mutants: Vec::new(),
            unpinned: Vec::new(),
            suggested_tests: Vec::new(),
        };
        TargetReport { target, exploration: None, mutation: Some(mutation) }
    }

    #[test]
    fn the_note_says_what_the_front_end_knows_of_the_tests_that_call_the_function() {
        assert_eq!(
            note(&target("python", Some(false), Some(0))).unwrap(),
            "not reached by any test: no test this session ran calls `pkg.m.f`; its 12 surviving mutants are untested, not gaps"
        );
        assert_eq!(
            why(&target("python", Some(false), Some(3))).unwrap(),
            "3 tests call `pkg.m.f`, but none fails when it raises: they do not check it"
        );
        assert_eq!(
            why(&target("rust", Some(false), None)).unwrap(),
            "no test fails when `pkg.m.f` panics"
        );
        assert!(note(&target("python", Some(true), Some(3))).is_none());
        assert!(note(&target("python", None, None)).is_none());
    }
}
