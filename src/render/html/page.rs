//! The document: its head (inline style, a Content-Security-Policy that forbids every fetch, so
//! the page works offline and from a downloaded artifact, and a stray reference fails loudly),
//! the run's header and figures, a table of contents, one section per function (its boundary
//! map or table, its QD-score chart and descriptor grid, its mutants in the source) and the
//! inline script that sorts tables.

use std::fmt::Write as _;
use std::path::Path;

use super::markup::{esc, num};
use super::{map, mutants, qd, table};
use crate::report::{Report, TargetReport};

/// File name of the page in the output folder.
pub const FILE_NAME: &str = "report.html";

const STYLE: &str = include_str!("page.css");
const SCRIPT: &str = include_str!("page.js");

/// Nothing may be fetched: no script, style, font or image from anywhere but the page itself.
const CSP: &str = "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; \
                   img-src data:; base-uri 'none'; form-action 'none'";

fn header(out: &mut String, r: &Report) {
    let n = r.totals();
    let _ = write!(
        out,
        "<header class=\"run\"><h1>abex: what the tests do not pin down</h1><p class=\"meta\">{} \
         project <code>{}</code> · {} engine, seed {}, {} pairs per function · abex {}{}</p>\
         <div class=\"figures\"><div>{} function(s)</div><div>{} explored</div><div>{} boundaries</div>\
         <div>{} mutants tested</div><div><strong>{} gap(s)</strong></div></div>",
        esc(&r.language),
        esc(&r.project_root.display().to_string()),
        esc(&r.settings.engine),
        r.settings.seed,
        r.settings.pairs,
        esc(&r.abex_version),
        if r.complete { "" } else { " · <strong>incomplete run</strong>" },
        n.functions,
        n.explored,
        n.boundaries,
        n.mutants_tested,
        n.gaps
    );
    if n.mutation_on {
        out.push_str(
            "<p class=\"meta\">The same mutants, for Stryker's mutation-testing-elements viewer: \
             <a href=\"mutation-report.json\">mutation-report.json</a> beside this file.</p>",
        );
    }
    out.push_str("</header>");
}

fn contents(out: &mut String, r: &Report) {
    if r.targets.is_empty() {
        out.push_str(
            "<p class=\"warning\"><strong>Nothing was analysed</strong>: no changed function was \
             found. This is not a clean pass.</p>",
        );
        return;
    }
    out.push_str("<nav aria-label=\"Functions\"><h2>Functions</h2><ul>");
    for (i, t) in r.targets.iter().enumerate() {
        let gaps = t.mutation.as_ref().map_or(0, |m| m.counts.witnessed);
        let _ = write!(
            out,
            "<li><a href=\"#f{i}\"><code>{}</code></a>{}</li>",
            esc(&t.target.qualified_name),
            if gaps > 0 { format!(" — {gaps} gap(s)") } else { String::new() }
        );
    }
    out.push_str("</ul></nav>");
}

fn function(
    out: &mut String,
    r: &Report,
    i: usize,
    t: &TargetReport,
    read_source: &dyn Fn(&Path) -> Option<String>,
) {
    let id = format!("f{i}");
    let name = &t.target.qualified_name;
    let gaps = t.mutation.as_ref().map_or(0, |m| m.counts.witnessed);
    let _ = write!(
        out,
        "<section class=\"function\" id=\"{id}\" aria-labelledby=\"{id}-h\" data-function=\"{}\" data-gaps=\"{gaps}\">\
         <h2 id=\"{id}-h\"><code>{}</code></h2><p class=\"meta\"><code>{}</code> · {}:{}–{}</p>",
        esc(name),
        esc(name),
        esc(&t.target.signature),
        esc(&t.target.file.display().to_string()),
        t.target.span.start_line,
        t.target.span.end_line
    );
    if let crate::targets::Drive::Via { caller, .. } = &t.target.drive {
        let _ = write!(
            out,
            "<p class=\"meta\">Driven through <code>{}</code>, which calls it.</p>",
            esc(caller)
        );
    }
    out.push_str("<h3>Boundaries</h3>");
    match &t.exploration {
        Some(x) => {
            let _ = write!(
                out,
                "<p>{} boundaries in {} cells, from {} input pairs and {} calls (QD-score {}).</p>",
                x.bc_count,
                x.cells_total,
                x.pairs_evaluated,
                x.evaluations,
                num(x.qd_score + 0.0)
            );
            let m = t.mutation.as_ref();
            let tables = table::render(&id, name, x, m);
            match map::render(&id, t, x, m) {
                Some(svg) => {
                    let _ = write!(
                        out,
                        "{svg}<details><summary>The boundary pairs as tables</summary>{tables}</details>"
                    );
                }
                None => out.push_str(&tables),
            }
            let _ = write!(
                out,
                "<h3>Exploration</h3><div class=\"charts\"><figure>{}<figcaption>QD-score over evaluations</figcaption></figure>\
                 <figure>{}<figcaption>Filled archive cells, by number of raised runs</figcaption></figure></div>",
                qd::chart(&id, name, x),
                qd::grid(&id, name, x)
            );
        }
        None => {
            let why = match &t.target.drive {
                crate::targets::Drive::Unsupported { reason } => {
                    reason.lines().next().unwrap_or(reason).to_string()
                }
                _ => "it was not explored in this run".to_string(),
            };
            let _ = write!(out, "<p class=\"no-boundaries\">Not explored: {}.</p>", esc(&why));
        }
    }
    out.push_str("<h3>Mutants</h3>");
    match &t.mutation {
        Some(m) => out.push_str(&mutants::render(r, t, m, read_source)),
        None => out
            .push_str("<p class=\"note\">No mutants were tested (<code>--no-mutants</code>).</p>"),
    }
    out.push_str("</section>");
}

/// The whole page for `report`; `read_source` is given `project_root.join(file)` of each
/// function's file and returns its text.
pub fn render(report: &Report, read_source: &dyn Fn(&Path) -> Option<String>) -> String {
    let mut out = String::with_capacity(1 << 16);
    let _ = write!(
        out,
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta http-equiv=\"Content-Security-Policy\" content=\"{CSP}\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>abex report: {} function(s)</title><style>{STYLE}</style></head><body><main>",
        report.targets.len()
    );
    header(&mut out, report);
    contents(&mut out, report);
    for (i, t) in report.targets.iter().enumerate() {
        function(&mut out, report, i, t, read_source);
    }
    let _ = writeln!(out, "</main><script>{SCRIPT}</script></body></html>");
    out
}
