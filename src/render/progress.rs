//! Progress lines: what a run is doing, one line per event that people follow (targets chosen,
//! a build, mutants under test, survivors being proven, warnings), the same for both front ends.
//! `cargo abex` styles the verb and adds progress bars while a function is explored; `pytest
//! --abex` prints the lines as they come. Per-function results are `text`'s business.

use crate::event::Event;
use crate::targets::Drive;

/// One progress line: a verb people scan for, and the rest.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line {
    /// `Building`, `Built`, `Testing`, `Proving`, `Exploring`, `abex`, `warning:`.
    pub verb: &'static str,
    /// What follows the verb; may hold further lines (a `hint:`).
    pub text: String,
    /// Whether it is a warning (shown even when quiet).
    pub warning: bool,
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// The line for `e`, or `None` for events that draw no line (per-call progress, a finished
/// function, which `text` renders).
pub fn line(e: &Event<'_>, language: &str) -> Option<Line> {
    let unit = if language == "python" { "project" } else { "harness" };
    let (verb, text, warning) = match e {
        Event::Targets { root, targets: [] } => (
            "warning:",
            format!(
                "no function to analyse in `{}`: the diff touches no function\nhint: name one with `--function FILE::NAME`, or use `--all`",
                root.display()
            ),
            true,
        ),
        Event::Targets { targets, .. } => {
            let driven = targets.iter().filter(|t| t.drive == Drive::Supported).count();
            ("abex", format!("{} ({driven} to explore)", plural(targets.len(), "function", "functions")), false)
        }
        Event::Warning { message } => ("warning:", message.clone(), true),
        Event::Building { package, functions } => (
            "Building",
            format!("{unit} for `{package}` ({})", plural(*functions, "function", "functions")),
            false,
        ),
        Event::Built { package, time } => {
            ("Built", format!("{unit} for `{package}` in {:.1} s", time.as_secs_f64()), false)
        }
        Event::Exploring { target, pairs, .. } => {
            ("Exploring", format!("`{}` ({pairs} pairs)", target.qualified_name), false)
        }
        Event::Testing { package, mutants, tests } => {
            let against = if language == "python" {
                plural(*tests, "test file", "test files")
            } else {
                plural(*tests, "test binary", "test binaries")
            };
            ("Testing", format!("{} of `{package}` against {against}", plural(*mutants, "mutant", "mutants")), false)
        }
        Event::Proving { survivors: 0, .. } => return None,
        Event::Proving { package, survivors } => (
            "Proving",
            format!("{} of `{package}`: witnesses and suggested tests", plural(*survivors, "survivor", "survivors")),
            false,
        ),
        Event::TestsWritten { files: [], .. } => return None,
        Event::TestsWritten { tests, files } => {
            let names: Vec<String> =
                files.iter().map(|f| format!("`{}`", f.display())).collect();
            ("Wrote", format!("{} into {}", plural(*tests, "suggested test", "suggested tests"), names.join(", ")), false)
        }
        Event::Progress { .. } | Event::Done { .. } => return None,
    };
    // Names, paths and messages come from the project: their control characters written out.
    Some(Line { verb, text: super::inert::escape_controls(&text, false), warning })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn each_language_names_what_it_builds_and_tests_against() {
        let e = Event::Testing { package: "demo", mutants: 3, tests: 1 };
        assert_eq!(line(&e, "rust").unwrap().text, "3 mutants of `demo` against 1 test binary");
        assert_eq!(line(&e, "python").unwrap().text, "3 mutants of `demo` against 1 test file");
        let b = Event::Built { package: "demo", time: Duration::from_millis(1500) };
        assert_eq!(line(&b, "python").unwrap().text, "project for `demo` in 1.5 s");
        assert!(line(&Event::Proving { package: "demo", survivors: 0 }, "rust").is_none());
        let w = line(&Event::Warning { message: "x\nhint: y\x1b[2J".into() }, "rust").unwrap();
        assert!(w.warning && w.verb == "warning:");
        assert_eq!(w.text, "x\nhint: y\\u{1b}[2J");
    }
}
