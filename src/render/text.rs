//! The terminal text of a finished report, for people: per function, where it is, why it was not
//! driven or what exploring it found (boundaries grouped by validity group, strongest first, each
//! distinct boundary once), how its mutants fared, each gap with its witness, the survivors
//! without one (grouped by why), the boundaries the tests do not pin and the suggested tests;
//! then the run's totals and engine line.
//!
//! Both front ends print this text: `cargo abex` on stderr, one [`target`] block as each function
//! is done and the [`totals`] at the end; `pytest --abex` in its terminal summary, through
//! `_core.render_text`. [`render`] is the whole of it: every block, then the totals. The text is
//! returned, never printed; colour is ANSI escapes, on only when the front end asks for it.
//! Everything taken from the report has its control characters written out
//! ([`super::inert::terminal`]): a value the project's code returned cannot move the cursor,
//! set the clipboard (OSC 52) or overwrite a line.

use std::collections::HashSet;
use std::fmt::Write as _;
use std::path::PathBuf;

use crate::archive::Group;
use crate::report::{Cell, ExplorationReport, MutantStatus, MutationReport, Report, TargetReport};
use crate::targets::Drive;
use crate::value::{shown_input, Outcome};

/// How the text is rendered.
#[derive(Clone, Debug)]
pub struct TextOptions {
    /// Distinct boundaries shown per validity group, and unpinned boundaries per function.
    pub show: usize,
    /// Whether to style the text with ANSI escapes. The front end decides: on a terminal, and
    /// not with `NO_COLOR` set.
    pub colour: bool,
    /// Where the report was written, named on the totals line.
    pub report_path: Option<PathBuf>,
}

impl Default for TextOptions {
    fn default() -> TextOptions {
        TextOptions { show: 5, colour: false, report_path: None }
    }
}

/// The styles the text uses.
#[derive(Clone, Copy)]
enum Style {
    Bold,
    Dim,
    Heading,
    Gap,
    Warning,
    Notice,
    Good,
}

impl TextOptions {
    /// `text` in `style`, when colour is on.
    fn paint(&self, style: Style, text: &str) -> String {
        if !self.colour {
            return text.to_string();
        }
        let code = match style {
            Style::Bold => "1",
            Style::Dim => "2",
            Style::Heading => "36",
            Style::Gap => "1;31",
            Style::Warning => "1;33",
            Style::Notice => "33",
            Style::Good => "1;32",
        };
        format!("\x1b[{code}m{text}\x1b[0m")
    }
}

/// The whole text of `report`: a block per function, then the totals.
pub fn render(report: &Report, opts: &TextOptions) -> String {
    let mut out = String::new();
    for t in &report.targets {
        out.push_str(&target(t, opts));
    }
    out.push_str(&totals(report, opts));
    out
}

/// The block of one function, opening with a blank line.
pub fn target(t: &TargetReport, opts: &TextOptions) -> String {
    let mut out = String::new();
    let target = &t.target;
    let _ = writeln!(
        out,
        "\n{}  {}",
        opts.paint(Style::Bold, &truncate(&target.qualified_name, 200)),
        opts.paint(
            Style::Dim,
            &truncate(
                &format!(
                    "{}:{}-{}",
                    target.file.display(),
                    target.span.start_line,
                    target.span.end_line
                ),
                200
            )
        )
    );
    let _ = writeln!(out, "  {}", opts.paint(Style::Dim, &truncate(&target.signature, 110)));
    if let Drive::Via { caller, reason } = &target.drive {
        let _ = writeln!(
            out,
            "  {} `{}`, which calls it (abex cannot call it itself: {})",
            opts.paint(Style::Notice, "driven through"),
            truncate(caller, 200),
            truncate(reason, 160)
        );
    }
    match &t.exploration {
        Some(x) => exploration(&mut out, x, opts),
        None => {
            if let Drive::Unsupported { reason } = &target.drive {
                let _ = writeln!(
                    out,
                    "  {} {}",
                    opts.paint(Style::Notice, "not explored:"),
                    truncate(reason, 200)
                );
            }
        }
    }
    if let Some(m) = &t.mutation {
        mutation(&mut out, t, m, opts);
    }
    out
}

/// The closing lines: the run's totals, where the report is, the engine, and what makes the run
/// not a clean pass.
pub fn totals(report: &Report, opts: &TextOptions) -> String {
    let mut out = String::new();
    let n = report.totals();
    let plural = |n: usize, one: &'static str, many: &'static str| if n == 1 { one } else { many };
    let abex = opts.paint(Style::Bold, "abex:");
    let _ = write!(
        out,
        "\n{abex} {} {} explored, {} not explored, {} boundaries, {} mutants tested, {} {}",
        n.explored,
        plural(n.explored, "function", "functions"),
        n.functions - n.explored,
        n.boundaries,
        n.mutants_tested,
        n.gaps,
        plural(n.gaps, "gap", "gaps"),
    );
    if n.unreached > 0 {
        let _ = write!(
            out,
            ", {} {} not reached by any test",
            n.unreached,
            plural(n.unreached, "function", "functions")
        );
    }
    if let Some(path) = &opts.report_path {
        let _ = write!(out, " · report: {}", truncate(&path.display().to_string(), 500));
    }
    out.push('\n');
    if let Some(llm) = &report.llm {
        let mut line = llm.describe();
        if llm.mutants_refused > 0 {
            let _ = write!(line, "; {} model mutants refused unrun", llm.mutants_refused);
        }
        let _ = writeln!(out, "{abex} {}", truncate(&line, 2_000));
    }
    if !report.origins.is_empty() {
        let origins = crate::provenance::describe(report);
        let _ = writeln!(out, "{abex} {}", truncate(&origins, 2_000));
    }
    let r = &report.reused;
    if !r.is_empty() {
        let _ = writeln!(
            out,
            "{abex} reused from an earlier run: {} {}, {} {}, {} {}",
            r.functions,
            plural(r.functions, "function", "functions"),
            r.explorations,
            plural(r.explorations, "exploration", "explorations"),
            r.mutants,
            plural(r.mutants, "mutant", "mutants"),
        );
    }
    let warning = opts.paint(Style::Warning, "warning:");
    if let Some(i) = &report.interrupted {
        let _ = writeln!(
            out,
            "{warning} {}: the report holds what was finished; run again to resume",
            i.reason
        );
    } else if let (Some(what), Some(left)) = (&report.exhausted, &report.unfinished) {
        let _ = writeln!(
            out,
            "{warning} the {what} ran out: {}; the report is partial and the run not complete \
             (a larger budget finishes it, reusing what was done)",
            left.describe()
        );
    } else if !report.complete {
        let _ = writeln!(out, "{warning} the run did not finish: the report is partial");
    }
    if n.mutation_on && n.mutants_tested == 0 {
        let _ = writeln!(out, "{warning} no mutant was tested: this is not a clean pass");
    }
    if n.explored == 0 {
        let _ = writeln!(out, "{warning} nothing was explored: this is not a clean pass");
    }
    out
}

/// A boundary's program derivative for people: two decimals, and `≥1e6` from a million on (two
/// floats a few ULPs apart give 1e14 and more, a figure that says only "adjacent inputs").
fn pd_text(pd: f64) -> String {
    if pd < 1e6 {
        format!("{pd:.2}")
    } else {
        "≥1e6".to_string()
    }
}

fn exploration(out: &mut String, x: &ExplorationReport, opts: &TextOptions) {
    let _ = writeln!(
        out,
        "  {} pairs, {} calls in {:.2} s · {} boundaries in {} cells",
        x.pairs_evaluated,
        x.evaluations,
        x.time_ms as f64 / 1000.0,
        x.bc_count,
        x.cells_total
    );
    if let Some(shares) = crate::provenance::describe_function(x) {
        let _ = writeln!(out, "  {shares}");
    }
    for group in [Group::VE, Group::VV, Group::EE] {
        let cells: Vec<&Cell> = x.boundaries().filter(|c| c.group == Some(group)).collect();
        if cells.is_empty() {
            continue;
        }
        let label = match group {
            Group::VV => "VV  both valid, different outputs",
            Group::VE => "VE  valid on one side, error on the other",
            Group::EE => "EE  different errors",
        };
        let _ = writeln!(out, "  {} ({})", opts.paint(Style::Heading, label), cells.len());
        // The same threshold shows up in many cells (other arguments vary): show it once.
        let mut seen = HashSet::new();
        let distinct: Vec<&Cell> =
            cells.iter().copied().filter(|c| seen.insert(boundary_key(c))).collect();
        for c in distinct.iter().take(opts.show) {
            let _ = writeln!(
                out,
                "    PD {:<5} {} → {}",
                pd_text(c.pd),
                truncate(&c.strings.inputs[0], 40),
                truncate(&c.strings.outputs[0], 60)
            );
            let _ = writeln!(
                out,
                "             {} → {}",
                truncate(&c.strings.inputs[1], 40),
                truncate(&c.strings.outputs[1], 60)
            );
        }
        // The rest, and the cells that repeat a boundary shown, are in the report.
        let more = distinct.len().saturating_sub(opts.show);
        let note = if more > 0 {
            format!("… {more} more distinct, {} cells in all, in report.json", cells.len())
        } else {
            format!("… {} cells in all, in report.json", cells.len())
        };
        if distinct.len() < cells.len() || more > 0 {
            let _ = writeln!(out, "    {}", opts.paint(Style::Dim, &note));
        }
    }
}

fn mutation(out: &mut String, t: &TargetReport, m: &MutationReport, opts: &TextOptions) {
    let _ = writeln!(out, "  {} {}", opts.paint(Style::Bold, "mutants"), m.counts.describe());
    if let Some(why) = super::reach::why(t) {
        // One line for the function: its survivors are untested, not gaps.
        let title = opts.paint(Style::Warning, &format!("{}:", super::reach::TITLE));
        let _ = writeln!(out, "  {title} {why}; its mutants are untested, not gaps");
    }
    for x in m.mutants.iter().filter(|x| x.status == MutantStatus::Survived) {
        let Some(w) = &x.witness else { continue };
        let _ = writeln!(
            out,
            "  {} {}  {}  {}",
            opts.paint(Style::Gap, "GAP"),
            truncate(&format!("{}:{}", x.file.display(), x.line), 200),
            truncate(&x.description, 90),
            opts.paint(Style::Dim, &format!("({})", x.id))
        );
        let (original, mutant) = apart(&w.original.stringify(), &w.mutant.stringify(), 50);
        let _ = writeln!(
            out,
            "      on {}: original → {original}, mutant → {mutant}",
            truncate(&shown_input(&w.input), 50),
        );
    }
    leftovers(out, m, opts);
    if m.unpinned.len() > opts.show {
        let _ = writeln!(
            out,
            "  {} boundaries the tests do not pin (strongest {} shown):",
            m.unpinned.len(),
            opts.show
        );
    }
    for b in m.unpinned.iter().take(opts.show) {
        let _ = writeln!(
            out,
            "  {} {} → {}  |  {} → {}  (moved by {})",
            opts.paint(Style::Notice, "unpinned"),
            truncate(&b.inputs[0], 30),
            truncate(&b.outputs[0], 30),
            truncate(&b.inputs[1], 30),
            truncate(&b.outputs[1], 30),
            truncate(&b.mutants.join(", "), 200)
        );
    }
    for s in &m.suggested_tests {
        let by = s.provenance().map(|p| format!("; {p}")).unwrap_or_default();
        let _ = writeln!(
            out,
            "  {} (kills {}{by})",
            opts.paint(Style::Good, "suggested test"),
            truncate(&s.kills.join(", "), 200)
        );
        code_block(out, &s.code);
    }
}

/// The survivors without a witness, one line per reason with its mutants (at most
/// [`LEFTOVERS_SHOWN`] of them; the rest are in the report).
fn leftovers(out: &mut String, m: &MutationReport, opts: &TextOptions) {
    let n = super::leftovers::count(m);
    if n == 0 {
        return;
    }
    let plural = if n == 1 { "survivor" } else { "survivors" };
    let head = format!("{n} {plural} with no witness, not reported as gaps:");
    let _ = writeln!(out, "  {}", opts.paint(Style::Dim, &head));
    for g in super::leftovers::leftovers(m) {
        let mut items: Vec<String> =
            g.mutants.iter().take(LEFTOVERS_SHOWN).map(|x| super::leftovers::item(x, 40)).collect();
        if g.mutants.len() > LEFTOVERS_SHOWN {
            items.push(format!("{} more", g.mutants.len() - LEFTOVERS_SHOWN));
        }
        let _ =
            writeln!(out, "    {}: {}", truncate(&g.reason, 110), truncate(&items.join(", "), 400));
    }
}

/// Survivors listed per reason in the terminal text.
const LEFTOVERS_SHOWN: usize = 4;

/// `code` indented by four spaces, its common indentation removed (a Rust test comes indented
/// for a `mod tests`); blank lines stay empty.
fn code_block(out: &mut String, code: &str) {
    let code = super::inert::escape_controls(code, false);
    let indent = |l: &str| l.len() - l.trim_start().len();
    let common = code.lines().filter(|l| !l.trim().is_empty()).map(indent).min().unwrap_or(0);
    for line in code.lines() {
        match line.get(common..).filter(|_| !line.trim().is_empty()) {
            Some(rest) => {
                let _ = writeln!(out, "    {rest}");
            }
            None => out.push('\n'),
        }
    }
}

/// What makes two boundary cells "the same boundary" for display: the arguments that differ
/// between the two inputs (position and both values), and the kinds of the two outcomes.
fn boundary_key(c: &Cell) -> String {
    let kind = |o: &Outcome| format!("{:?}", std::mem::discriminant(o));
    let key = |(a, b): (usize, usize)| {
        let mut key = String::new();
        for (i, (x, y)) in c.inputs[a].iter().zip(&c.inputs[b]).enumerate() {
            if x != y {
                let _ = write!(key, "{i}:{}|{};", x.to_json(), y.to_json());
            }
        }
        key + &kind(&c.outcomes[a]) + &kind(&c.outcomes[b])
    };
    // The pair in either order is the same boundary.
    key((0, 1)).min(key((1, 0)))
}

/// `s` on one line, its control characters written out, cut to `max` characters.
fn truncate(s: &str, max: usize) -> String {
    super::inert::terminal(s, max)
}

/// `a` and `b` cut to about `max` characters each where they differ: when their common start
/// would fill the cut, both start with `…` a few characters before the first difference, so the
/// terminal shows what tells them apart (`…index: 1 }`, `…index: 0 }`), not the same prefix twice.
fn apart(a: &str, b: &str, max: usize) -> (String, String) {
    const BEFORE: usize = 12;
    let common = a.chars().zip(b.chars()).take_while(|(x, y)| x == y).count();
    if common + BEFORE < max || a == b {
        return (truncate(a, max), truncate(b, max));
    }
    let from = common - BEFORE;
    let tail = |s: &str| format!("…{}", s.chars().skip(from).collect::<String>());
    (truncate(&tail(a), max), truncate(&tail(b), max))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::archive::Pair;
    use crate::value::Value;

    #[test]
    fn a_witness_shows_where_two_long_outcomes_differ() {
        let a = "InvalidHexCharacter { c: '\\0', index: 1 } ⟹ arg1 = [0, 0, 0, 0, 0, 0, 0, 0]";
        let b = a.replace("index: 1", "index: 0");
        let (x, y) = apart(a, &b, 30);
        assert!(x.starts_with('…') && x.contains("index: 1"), "{x}");
        assert!(y.starts_with('…') && y.contains("index: 0"), "{y}");
        // Short ones, or ones that differ early, read from their start as before.
        assert_eq!(apart("1", "2", 30), ("1".to_string(), "2".to_string()));
        let (x, _) = apart(&format!("A{}", &a[1..]), a, 30);
        assert!(x.starts_with("AnvalidHex"), "{x}");
    }

    fn cell(a: [i128; 2], b: [i128; 2], oa: &str, ob: &str) -> Cell {
        let ok = |v: &str| Outcome::Ok { value: v.to_string() };
        let args = |x: [i128; 2]| x.iter().map(|&n| Value::Int(n)).collect();
        Cell::of(&Pair::new(args(a), args(b), ok(oa), ok(ob)).expect("a pair"))
    }

    #[test]
    fn a_boundary_is_the_same_in_either_order_and_whatever_the_other_arguments() {
        let here = cell([0, 24], [0, 25], "idle", "cool");
        assert_eq!(boundary_key(&here), boundary_key(&cell([0, 25], [0, 24], "cool", "idle")));
        assert_eq!(boundary_key(&here), boundary_key(&cell([7, 24], [7, 25], "x", "y")));
        assert_ne!(boundary_key(&here), boundary_key(&cell([0, 17], [0, 18], "heat", "idle")));
    }

    #[test]
    fn colour_is_ansi_escapes_only_when_asked_for() {
        let plain = TextOptions::default();
        let colour = TextOptions { colour: true, ..TextOptions::default() };
        assert_eq!(plain.paint(Style::Gap, "GAP"), "GAP");
        assert_eq!(colour.paint(Style::Gap, "GAP"), "\x1b[1;31mGAP\x1b[0m");
    }

    #[test]
    fn suggested_code_loses_its_common_indentation_and_blank_lines_their_spaces() {
        let mut out = String::new();
        code_block(&mut out, "    #[test]\n    fn t() {\n  \n        x();\n    }\n");
        assert_eq!(out, "    #[test]\n    fn t() {\n\n        x();\n    }\n");
    }

    #[test]
    fn long_texts_are_cut_to_one_line() {
        assert_eq!(truncate("a\nb", 10), "a\\nb");
        assert_eq!(truncate("abcdef", 4), "abc…");
    }

    #[test]
    fn control_characters_from_the_report_are_written_out() {
        let mut out = String::new();
        code_block(&mut out, "fn t() {\n    let s = \"\x1b]52;c;eA==\x07\r\";\n}\n");
        assert!(!out.contains('\x1b') && !out.contains('\r'), "{out:?}");
        assert!(out.contains("\\u{1b}]52;c;eA==\\u{7}\\u{d}"), "{out}");
    }
}
