//! `junit.xml`: the run as JUnit XML, for test-report actions and CI dashboards. One test suite
//! per function; a failing test case per gap (a survivor with a witness), and a passing one for
//! a function with none. A survivor without a witness is never a failure: the survivors without
//! one are skipped cases, one per reason (see `leftovers`), and so are the mutants whose tests
//! never ran (one case) and a function no test reaches (one case for the function, never a pass). The file and line of a gap open its
//! failure's text (`src/lib.rs:6:8`), where test-report actions look for them: the `file`
//! attribute is not in the JUnit schema that common reporters validate against.

use junit_report::{Duration, ReportBuilder, TestCase, TestCaseBuilder, TestSuiteBuilder};

use crate::report::{MutantStatus, Report};
use crate::value::stringify_input;

/// File name of the JUnit report in the output folder.
pub const FILE_NAME: &str = "junit.xml";

/// XML 1.0 forbids most control characters (ANSI escapes included).
fn clean(s: &str) -> String {
    s.chars().filter(|c| !c.is_control() || matches!(c, '\n' | '\t' | '\r')).collect()
}

/// The lines of `mutants`, each once: "54, 55".
fn lines(mutants: &[&crate::report::MutantReport]) -> String {
    let mut ls: Vec<usize> = mutants.iter().map(|x| x.line).collect();
    ls.dedup();
    ls.iter().map(usize::to_string).collect::<Vec<_>>().join(", ")
}

/// Renders `report` as JUnit XML.
pub fn render(report: &Report) -> Result<Vec<u8>, junit_report::Error> {
    let mut builder = ReportBuilder::new();
    for t in &report.targets {
        let Some(m) = &t.mutation else { continue };
        let name = clean(&t.target.qualified_name);
        let mut suite = TestSuiteBuilder::new(&format!("abex {name}"));
        let mut cases: Vec<TestCase> = Vec::new();
        for x in m.mutants.iter().filter(|x| x.status == MutantStatus::Survived) {
            let Some(w) = &x.witness else { continue };
            let message = clean(&format!(
                "{}: on {} the original gives {}, the mutant {}",
                x.description,
                stringify_input(&w.input),
                w.original.stringify(),
                w.mutant.stringify()
            ));
            let mut trace =
                format!("{}:{}:{} survived ({})\n", x.file.display(), x.line, x.column, x.id);
            if let Some(test) = report.suggested_test(x) {
                trace.push_str("\nSuggested test:\n");
                trace.push_str(&test.code);
            }
            let case = TestCaseBuilder::failure(
                &clean(&format!("gap {} at line {}", x.id, x.line)),
                Duration::milliseconds(x.time_ms as i64),
                "SurvivedMutant",
                &message,
            )
            .set_classname(&name)
            .set_trace(&clean(&trace))
            .build();
            cases.push(case);
        }
        let gaps = cases.len();
        // Survivors without a witness: skipped, one case per reason, never failures.
        for g in super::leftovers::leftovers(m) {
            let items: Vec<String> =
                g.mutants.iter().map(|x| super::leftovers::item(x, 200)).collect();
            let label = if g.probably_equivalent { "probably equivalent" } else { "no witness" };
            let case = TestCaseBuilder::skipped_with_cause(
                &clean(&format!("{label} ({}) at line {}", g.stage, lines(&g.mutants))),
                "Unwitnessed",
                &clean(&format!("{}: {}", g.reason, items.join("; "))),
            )
            .set_classname(&name)
            .build();
            cases.push(case);
        }
        // Mutants whose tests never ran (the time budget ran out, or the run was interrupted):
        // skipped, one case for all of them.
        let untested: Vec<_> =
            m.mutants.iter().filter(|x| x.status == MutantStatus::NotTested).collect();
        if !untested.is_empty() {
            let ids: Vec<&str> = untested.iter().map(|x| x.id.as_str()).collect();
            let case = TestCaseBuilder::skipped_with_cause(
                &clean(&format!("not tested ({} mutants) at line {}", untested.len(), lines(&untested))),
                "NotTested",
                &clean(&format!(
                    "their tests did not run before the run stopped (time budget or interruption): {}",
                    ids.join(", ")
                )),
            )
            .set_classname(&name)
            .build();
            cases.push(case);
        }
        // A function no test reaches: one skipped case for the function, not a pass.
        if let Some(note) = super::reach::note(t) {
            let case = TestCaseBuilder::skipped_with_cause(
                &clean(&format!(
                    "{} ({} mutants untested)",
                    super::reach::TITLE,
                    m.counts.not_reached
                )),
                "NotReached",
                &clean(&note),
            )
            .set_classname(&name)
            .build();
            cases.push(case);
        } else if gaps == 0 {
            let tested = m.counts.tested();
            let case = TestCaseBuilder::success(
                &format!("no gap ({tested} mutants tested, {} killed)", m.counts.killed),
                Duration::ZERO,
            )
            .set_classname(&name)
            .build();
            cases.push(case);
        }
        suite.add_testcases(cases);
        builder.add_testsuite(suite.build());
    }
    let mut out = Vec::new();
    builder.build().write_xml(&mut out)?;
    Ok(out)
}
