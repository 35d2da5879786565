//! The mutants of one function in its source: the function's lines with their numbers, and under
//! each mutated line its mutants with their status. A gap (a survivor with a witness) shows the
//! witness and the suggested test that kills it; a survivor without one says which stage its
//! witness search never passed; a killed mutant names the test. Every gap is one element with a
//! `data-gap` attribute, so the page (and its test) can count them.
//!
//! The source comes from the file as it is now (the reader the output folder passes); when it
//! cannot be read, or no longer has the mutated lines, the mutants are listed by line with their
//! original text.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use super::markup::{esc, esc_short};
use crate::report::{MutantReport, MutantStatus, MutationReport, Report, TargetReport};
use crate::value::stringify_input;

/// A unit enum's name as the report writes it (`comparison_boundary`, `rules`).
fn snake<T: serde::Serialize>(v: &T) -> String {
    serde_json::to_value(v).ok().and_then(|j| j.as_str().map(String::from)).unwrap_or_default()
}

/// The status of a mutant in words, and its CSS class.
fn status(mu: &MutantReport) -> (&'static str, &'static str) {
    match mu.status {
        MutantStatus::Survived if mu.witness.is_some() => ("gap", "gap"),
        MutantStatus::Survived => ("survived, no witness", "survived"),
        MutantStatus::Killed => ("killed", "killed"),
        MutantStatus::Unviable => ("unviable", "unviable"),
        MutantStatus::Timeout => ("timeout", "timeout"),
        MutantStatus::NotExercised => ("not exercised", "skipped"),
        MutantStatus::NotTested => ("not tested", "skipped"),
        MutantStatus::NotReached => ("not reached by any test", "skipped"),
    }
}

fn mutant(out: &mut String, mu: &MutantReport, m: &MutationReport, language: &str) {
    let (word, class) = status(mu);
    let gap = if word == "gap" { " data-gap=\"true\"" } else { "" };
    let _ = write!(
        out,
        "<li class=\"mutant {class}\"{gap} id=\"mutant-{id}\"><span class=\"badge {class}\">{word}</span> \
         <code>{orig}</code> → <code>{repl}</code> <span class=\"what\">{desc} ({op}, {origin}, <code>{id}</code>)</span>",
        id = esc(&mu.id),
        orig = esc_short(&mu.original, 80),
        repl = esc_short(&mu.replacement, 80),
        desc = esc(&mu.description),
        op = esc(&snake(&mu.operator)),
        origin = esc(&snake(&mu.origin)),
    );
    if let Some(w) = &mu.witness {
        let _ = write!(
            out,
            "<div class=\"witness-text\">Witness: on <code>{}</code> the original gives <code>{}</code>, \
             the mutant <code>{}</code> (found by {}).</div>",
            esc_short(&stringify_input(&w.input), 160),
            esc_short(&w.original.stringify(), 160),
            esc_short(&w.mutant.stringify(), 160),
            esc(&w.found_by)
        );
        for s in m.suggested_tests.iter().filter(|s| s.kills.contains(&mu.id)) {
            let _ = write!(
                out,
                "<details><summary>Suggested test <code>{}</code> (kills {})</summary>\
                 <pre><code class=\"language-{}\">{}</code></pre></details>",
                esc(&s.name),
                esc(&s.kills.join(", ")),
                esc(language),
                esc(&s.code)
            );
        }
    } else if mu.status == MutantStatus::Survived {
        let why = match &mu.unwitnessed {
            Some(u) => u.describe(),
            None => "no input told it from the original: possibly equivalent".into(),
        };
        let _ = write!(out, "<div class=\"why\">No witness: {}.</div>", esc(&why));
    } else if let Some(k) = &mu.killed_by {
        let _ = write!(out, " <span class=\"by\">by <code>{}</code></span>", esc_short(k, 120));
    }
    out.push_str("</li>");
}

/// The mutants of `t` in its source; `read_source` is given the file's path.
pub fn render(
    report: &Report,
    t: &TargetReport,
    m: &MutationReport,
    read_source: &dyn Fn(&Path) -> Option<String>,
) -> String {
    let mut out = format!("<p>{}.</p>", esc(&m.counts.describe()));
    if let Some(why) = crate::render::reach::why(t) {
        let _ = write!(
            out,
            "<p class=\"warning\"><strong>Not reached by any test</strong>: {}; its mutants are \
             untested, not gaps.</p>",
            esc(&why)
        );
    }
    let mut by_line: BTreeMap<usize, Vec<&MutantReport>> = BTreeMap::new();
    for mu in &m.mutants {
        by_line.entry(mu.line).or_default().push(mu);
    }
    let (first, last) = (t.target.span.start_line, t.target.span.end_line);
    let source = read_source(&report.project_root.join(&t.target.file));
    let lines: Vec<&str> = source.as_deref().map(|s| s.lines().collect()).unwrap_or_default();
    let in_source = last <= lines.len() && by_line.keys().all(|l| (first..=last).contains(l));
    let language = t.target.language.as_str();
    if !in_source {
        out.push_str("<p class=\"note\">The source file could not be read; the mutants by line:</p><ul class=\"mutants\">");
        for (line, mus) in &by_line {
            let _ = write!(out, "<li>line {line}<ul>");
            for mu in mus {
                mutant(&mut out, mu, m, language);
            }
            out.push_str("</ul></li>");
        }
        out.push_str("</ul>");
        return out;
    }
    let _ = write!(
        out,
        "<table class=\"source\"><caption>{} lines {first}–{last}, with each mutated line's mutants</caption><tbody>",
        esc(&t.target.file.display().to_string())
    );
    for (n, text) in (first..=last).zip(&lines[first - 1..last]) {
        let mus = by_line.get(&n);
        let _ = write!(
            out,
            "<tr class=\"line{}\"><th scope=\"row\">{n}</th><td><code>{}</code></td></tr>",
            if mus.is_some() { " mutated" } else { "" },
            esc(text)
        );
        if let Some(mus) = mus {
            out.push_str("<tr class=\"mutants-row\"><td></td><td><ul class=\"mutants\">");
            for mu in mus {
                mutant(&mut out, mu, m, language);
            }
            out.push_str("</ul></td></tr>");
        }
    }
    out.push_str("</tbody></table>");
    out
}
