//! How one function's exploration went: the QD-score over evaluations (the report's
//! `qd_history`, one line) and the descriptor grid, which archive cells are filled. The grid has
//! one panel per number of raised runs (0, 1, 2); in a panel a square at (stringified input
//! lengths, output length difference) is filled when some cell lies there, darker for a higher
//! PD. The 4th descriptor (input length variance) is folded: a square counts its cells.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::markup::{esc, num, px};
use crate::report::ExplorationReport;

/// Squares a grid panel draws at most per axis: longer ranges are binned.
const GRID: usize = 48;

/// The QD-score chart of `x`, or a sentence saying the report has no history.
pub fn chart(id: &str, name: &str, x: &ExplorationReport) -> String {
    let h = &x.qd_history;
    if h.len() < 2 {
        return "<p class=\"note\">This report has no QD-score history (it was written by an \
                older abex, or the exploration made fewer than two calls).</p>"
            .into();
    }
    let (w, ht, left, bottom) = (340.0, 150.0, 56.0, 122.0);
    let finite = |q: f64| if q.is_finite() { q } else { f64::MAX };
    let max_e = h.iter().map(|p| p.evaluations).max().unwrap_or(1).max(1) as f64;
    let max_q = h.iter().map(|p| finite(p.qd_score)).fold(0.0, f64::max).max(1e-9);
    let sx = |e: usize| left + (w - left - 10.0) * e as f64 / max_e;
    let sy = |q: f64| bottom - (bottom - 12.0) * (finite(q) / max_q);
    let path: Vec<String> = h
        .iter()
        .enumerate()
        .map(|(i, p)| {
            format!(
                "{}{},{}",
                if i == 0 { 'M' } else { 'L' },
                px(sx(p.evaluations)),
                px(sy(p.qd_score))
            )
        })
        .collect();
    let last = h[h.len() - 1];
    let half = h.iter().find(|p| finite(p.qd_score) >= finite(last.qd_score) / 2.0);
    let desc = format!(
        "QD-score of {name} over {} evaluations: from {} to {} ({} cells); half of it reached after {} evaluations.",
        last.evaluations,
        num(h[0].qd_score),
        num(last.qd_score),
        last.cells,
        half.map_or(0, |p| p.evaluations)
    );
    let mut out = format!(
        "<svg class=\"qd-chart\" viewBox=\"0 0 {w} {ht}\" width=\"{w}\" height=\"{ht}\" role=\"img\" \
         aria-labelledby=\"{id}-qt {id}-qd\"><title id=\"{id}-qt\">QD-score over evaluations</title>\
         <desc id=\"{id}-qd\">{}</desc>",
        esc(&desc)
    );
    let _ = write!(
        out,
        "<g class=\"axis\"><line x1=\"{l}\" x2=\"{l}\" y1=\"12\" y2=\"{b}\"/><line x1=\"{l}\" x2=\"{r}\" y1=\"{b}\" y2=\"{b}\"/>\
         <text x=\"{tl}\" y=\"16\" text-anchor=\"end\">{}</text><text x=\"{tl}\" y=\"{b}\" text-anchor=\"end\">0</text>\
         <text x=\"{r}\" y=\"{tb}\" text-anchor=\"end\">{} evaluations</text><text x=\"{l}\" y=\"{tb}\">0</text></g>",
        num(max_q),
        last.evaluations,
        l = px(left),
        r = px(w - 10.0),
        b = px(bottom),
        tl = px(left - 4.0),
        tb = px(bottom + 16.0)
    );
    let _ = write!(out, "<path class=\"qd-line\" d=\"{}\"/>", path.join(""));
    for p in h {
        let _ = write!(
            out,
            "<circle class=\"qd-point\" cx=\"{}\" cy=\"{}\" r=\"2\"><title>{} evaluations, {} pairs: QD-score {}, {} cells</title></circle>",
            px(sx(p.evaluations)),
            px(sy(p.qd_score)),
            p.evaluations,
            p.pairs,
            num(p.qd_score),
            p.cells
        );
    }
    out.push_str("</svg>");
    out
}

/// One square of the grid: its cells and their best PD.
#[derive(Default)]
struct Square {
    cells: usize,
    pd: f64,
}

/// The descriptor grid of `x`.
pub fn grid(id: &str, name: &str, x: &ExplorationReport) -> String {
    if x.cells.is_empty() {
        return "<p class=\"note\">No archive cell is filled.</p>".into();
    }
    let max_in = x.cells.iter().map(|c| c.descriptor.2).max().unwrap_or(0);
    let max_out = x.cells.iter().map(|c| c.descriptor.1).max().unwrap_or(0);
    let bin_in = max_in / GRID + 1;
    let bin_out = max_out / GRID + 1;
    let (cols, rows) = (max_in / bin_in + 1, max_out / bin_out + 1);
    let side = (200.0 / cols.max(rows) as f64).clamp(2.0, 12.0);
    let (pw, ph) = (cols as f64 * side, rows as f64 * side);
    let mut panels: [BTreeMap<(usize, usize), Square>; 3] = Default::default();
    for c in &x.cells {
        let panel = &mut panels[usize::from(c.descriptor.0.min(2))];
        let sq = panel.entry((c.descriptor.2 / bin_in, c.descriptor.1 / bin_out)).or_default();
        sq.cells += 1;
        sq.pd = sq.pd.max(c.pd);
    }
    let max_pd = x.cells.iter().map(|c| c.pd).filter(|p| p.is_finite()).fold(0.0, f64::max);
    let (gap, top, left) = (24.0, 18.0, 4.0);
    let w = left + 3.0 * (pw + gap);
    let h = top + ph + 30.0;
    let filled: Vec<usize> = panels.iter().map(|p| p.values().map(|s| s.cells).sum()).collect();
    let desc = format!(
        "Descriptor grid of {name}: {} cells in this report ({} in the archive): {} with no raised run, \
         {} with one, {} with two. Horizontal: total length of the two inputs (up to {max_in}); \
         vertical: difference of the output lengths (up to {max_out}).",
        x.cells.len(),
        x.cells_total,
        filled[0],
        filled[1],
        filled[2]
    );
    let mut out = format!(
        "<svg class=\"grid\" viewBox=\"0 0 {} {}\" width=\"{}\" height=\"{}\" role=\"img\" \
         aria-labelledby=\"{id}-gt {id}-gd\"><title id=\"{id}-gt\">Descriptor grid</title><desc id=\"{id}-gd\">{}</desc>",
        px(w),
        px(h),
        px(w),
        px(h),
        esc(&desc)
    );
    for (k, panel) in panels.iter().enumerate() {
        let x0 = left + k as f64 * (pw + gap);
        let _ = write!(
            out,
            "<text x=\"{}\" y=\"12\">{k} raised</text><rect class=\"panel\" x=\"{}\" y=\"{top}\" width=\"{}\" height=\"{}\"/>",
            px(x0),
            px(x0),
            px(pw),
            px(ph)
        );
        for ((i, o), sq) in panel {
            let strength = if max_pd > 0.0 { (sq.pd.min(max_pd) / max_pd).sqrt() } else { 0.0 };
            let _ = write!(
                out,
                "<rect x=\"{}\" y=\"{}\" width=\"{s}\" height=\"{s}\" fill-opacity=\"{:.2}\"><title>inputs {}–{} chars, outputs differ by {}–{}: {} cell(s), best PD {}</title></rect>",
                px(x0 + *i as f64 * side),
                px(top + ph - (*o as f64 + 1.0) * side),
                0.2 + 0.8 * strength,
                i * bin_in,
                (i + 1) * bin_in - 1,
                o * bin_out,
                (o + 1) * bin_out - 1,
                sq.cells,
                num(sq.pd),
                s = px(side)
            );
        }
    }
    let _ = write!(
        out,
        "<text x=\"{}\" y=\"{}\">input length →, output length difference ↑</text></svg>",
        px(left),
        px(top + ph + 20.0)
    );
    out
}
