//! GitHub Actions workflow commands for the run's gaps: one
//! `::warning file=…,line=…,col=…,title=…::message` line per gap (a survivor with a witness), as
//! cargo-mutants prints for its missed mutants. Printed to the log of an Actions step, each shows
//! on the pull request's diff and in the run's summary. GitHub shows at most 10 warnings per step
//! and 50 per job; the rest stay in the log. A function no test reaches gets one `::notice`
//! line (its mutants are untested, not gaps). The path and message come from the report: their
//! control characters are written out and the message capped, so nothing in them ends the
//! command or starts another.

use crate::report::Report;

/// The annotation lines of `report`'s gaps, paths from the repository root.
pub fn render(report: &Report) -> String {
    let mut out = String::new();
    for g in report.gaps(report.safe_prefix()) {
        let (m, message) = (g.mutant, super::sarif::message(&g));
        out.push_str(&format!(
            "::warning file={},line={},col={},title={}::{}\n",
            property(&super::inert::terminal(&g.path, 500)),
            m.line.max(1),
            m.column.max(1),
            property("abex: untested change"),
            data(&super::inert::cap(&super::inert::escape_controls(&message, false), 4_000))
        ));
    }
    // A function no test reaches: one notice for the function.
    for u in report.unreached(report.safe_prefix()) {
        let note = super::reach::note(u.target).unwrap_or_default();
        out.push_str(&format!(
            "::notice file={},line={},title={}::{}\n",
            property(&super::inert::terminal(&u.path, 500)),
            u.target.target.span.start_line.max(1),
            property("abex: not reached by any test"),
            data(&super::inert::cap(&super::inert::escape_controls(&note, false), 4_000))
        ));
    }
    out
}

/// A command's message, escaped as the Actions runner reads it back.
fn data(s: &str) -> String {
    s.replace('%', "%25").replace('\r', "%0D").replace('\n', "%0A")
}

/// A command's property value: a message's escapes, and `:` and `,` too.
fn property(s: &str) -> String {
    data(s).replace(':', "%3A").replace(',', "%2C")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_and_properties_are_escaped() {
        assert_eq!(data("50% a\nb"), "50%25 a%0Ab");
        assert_eq!(property("a:b,c%"), "a%3Ab%2Cc%25");
        let escaped = data(&crate::render::inert::escape_controls("a\r\n::error::x\x1b", false));
        assert_eq!(escaped, "a\\u{d}%0A::error::x\\u{1b}");
    }
}
