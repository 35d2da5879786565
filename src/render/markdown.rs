//! `summary.md`: the markdown summary of a run, the text a pull-request summary uses. Only
//! witnessed survivors are presented as gaps; the survivors without a witness are listed under
//! why (the masked ones as probably equivalent), never as findings. What it shows from the
//! report is inert ([`super::inert`]): names, paths and values as code spans, descriptions and
//! reasons escaped, suggested tests in fences longer than any backtick run inside.

use std::fmt::Write as _;

use super::inert::{code_span as code, fenced, markdown_text, MAX_INLINE};
use crate::report::{MutantStatus, Report, TargetReport};
use crate::value::stringify_input;

/// File name of the summary in the output folder.
pub const FILE_NAME: &str = "summary.md";

/// Free text from the report, inert, on one line.
fn text(s: &str) -> String {
    markdown_text(s, MAX_INLINE)
}

fn target_section(out: &mut String, t: &TargetReport) {
    let _ = writeln!(
        out,
        "### {} ({})\n",
        code(&t.target.qualified_name),
        code(&format!(
            "{}:{}-{}",
            t.target.file.display(),
            t.target.span.start_line,
            t.target.span.end_line
        ))
    );
    if let Some(x) = &t.exploration {
        let _ = write!(out, "{} boundaries found in {} input pairs", x.bc_count, x.pairs_evaluated);
        match crate::provenance::describe_function(x) {
            Some(shares) => {
                let _ = writeln!(out, "; {shares}.");
            }
            None => out.push_str(".\n"),
        }
    }
    if let crate::targets::Drive::Via { caller, .. } = &t.target.drive {
        let _ = writeln!(out, "Driven through {}, which calls it.", code(caller));
    }
    if let (None, crate::targets::Drive::Unsupported { reason }) = (&t.exploration, &t.target.drive)
    {
        let _ = writeln!(out, "Not explored: {}.", text(reason.lines().next().unwrap_or(reason)));
    }
    let Some(m) = &t.mutation else {
        out.push('\n');
        return;
    };
    let _ = writeln!(out, "{}.\n", m.counts.describe());
    if let Some(why) = super::reach::why(t) {
        let _ = writeln!(
            out,
            "> **Not reached by any test**: {}; its mutants are untested, not gaps.\n",
            why.replace('\n', " ")
        );
    }
    for x in m.mutants.iter().filter(|x| x.status == MutantStatus::Survived) {
        let Some(w) = &x.witness else { continue };
        let _ = writeln!(
            out,
            "- **Gap** at {}: {} — on {} the original gives {}, the mutant {}.",
            code(&format!("{}:{}", x.file.display(), x.line)),
            text(&x.description),
            code(&stringify_input(&w.input)),
            code(&w.original.stringify()),
            code(&w.mutant.stringify())
        );
    }
    let left = super::leftovers::count(m);
    if left > 0 {
        let plural = if left == 1 { "survivor" } else { "survivors" };
        let _ = writeln!(out, "- {left} {plural} with no witness (not gaps):");
        for g in super::leftovers::leftovers(m) {
            let items: Vec<String> =
                g.mutants.iter().map(|x| text(&super::leftovers::item(x, 80))).collect();
            let _ = writeln!(out, "  - {}: {}", text(&g.reason), items.join("; "));
        }
    }
    if !m.unpinned.is_empty() {
        let _ =
            writeln!(out, "- {} boundaries are not pinned by the tests, e.g.:", m.unpinned.len());
        for b in m.unpinned.iter().take(3) {
            let _ = writeln!(
                out,
                "  - {} → {} / {} → {}",
                code(&b.inputs[0]),
                code(&b.outputs[0]),
                code(&b.inputs[1]),
                code(&b.outputs[1])
            );
        }
    }
    // The code block is highlighted in the function's language (`rust`, `python`).
    for s in &m.suggested_tests {
        let by = s.provenance().map(|p| format!("; {p}")).unwrap_or_default();
        let _ = write!(
            out,
            "\nSuggested test (kills {}{}):\n\n{}",
            text(&s.kills.join(", ")),
            text(&by),
            fenced(&t.target.language, &s.code)
        );
    }
    out.push('\n');
}

/// `text` with its first letter in upper case.
fn upper_first(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map_or(String::new(), |c| c.to_uppercase().chain(chars).collect())
}

/// Renders the summary of `report`.
pub fn render(report: &Report) -> String {
    let mut out = String::from("## abex\n\n");
    let gaps: usize =
        report.targets.iter().filter_map(|t| t.mutation.as_ref()).map(|m| m.counts.witnessed).sum();
    let tested: usize =
        report.targets.iter().filter_map(|t| t.mutation.as_ref()).map(|m| m.counts.tested()).sum();
    let unfinished = match &report.interrupted {
        Some(i) => format!(" *({}: partial results)*", i.reason),
        None => match (&report.exhausted, &report.unfinished) {
            (Some(what), Some(left)) => {
                format!(" *(the {what} ran out: {}; partial results)*", left.describe())
            }
            _ if !report.complete => " *(incomplete run)*".to_string(),
            _ => String::new(),
        },
    };
    let n = report.totals();
    let unreached = match n.unreached {
        0 => String::new(),
        k => {
            format!(" {k} function(s) not reached by any test (their mutants untested, not gaps).")
        }
    };
    let _ = writeln!(
        out,
        "{} function(s) analysed, {tested} mutants tested, **{gaps} gap(s)** the tests do not pin down.{unreached}{unfinished}\n",
        report.targets.len(),
    );
    out.push_str(
        "Boundary maps, QD-score charts and the mutants in their source: `report.html` beside \
         this summary (`.abex/out/` by default; in GitHub Actions, the `abex-report` artifact).\n\n",
    );
    if let Some(llm) = &report.llm {
        let _ = writeln!(out, "{}.\n", markdown_text(&llm.describe(), 2_000));
    }
    if !report.origins.is_empty() {
        let origins = crate::provenance::describe(report);
        let _ = writeln!(out, "{}.\n", upper_first(&markdown_text(&origins, 2_000)));
    }
    if report.targets.is_empty() {
        out.push_str("> **Nothing was analysed**: no changed function was found. This is not a clean pass.\n");
    }
    if tested == 0 && !report.targets.is_empty() {
        out.push_str("> **No mutant was tested.** This is not a clean pass.\n\n");
    }
    for t in &report.targets {
        target_section(&mut out, t);
    }
    out
}
