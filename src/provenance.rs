//! What each origin contributed to a run: for the exploration cells, the offline operators,
//! bisection, the threshold operator and the model's Explorer; for the mutants, the rules and
//! the model (mutants, gaps); and the model tokens each model origin cost. The report carries
//! these figures (`origins` in `report.json`, and each exploration's own `origins`), the
//! terminal and `summary.md` print them, so a model run says whether its tokens bought
//! anything.
//!
//! A QD-score is a figure of one function (the papers' definition): the program derivative of
//! two floats a few ULPs apart is of the order of 1e150, so a sum across functions is one float
//! function's number. An origin's part is therefore given as its **share** of each function's
//! QD-score and boundaries ([`shares`]); the run's figures are the **mean share** per origin
//! over the functions with a boundary, beside counts (cells, boundaries), which do add up. No
//! raw QD-score is ever summed across functions.

use crate::report::{Cell, ExplorationReport, MutantStatus, OriginFigures, OriginShare, Report};

/// The origins of exploration cells, in the order they are listed.
const CELL_ORIGINS: [&str; 4] = ["operator", "bisection", "threshold", "model explorer"];

/// The origin a cell is listed under.
fn cell_origin(c: &Cell) -> usize {
    match c.origin.kind() {
        "operator" => 0,
        "bisection" => 1,
        "threshold" => 2,
        _ => 3,
    }
}

/// Each origin's part of one function's exploration `cells`: its cells and boundaries, and its
/// share of the function's QD-score and of its boundaries (absent without a boundary). When
/// some cells' PD is infinite (the input distance overflowed), the QD-score is infinite and
/// the shares of it are those of the infinite cells.
pub fn shares(cells: &[Cell]) -> Vec<OriginShare> {
    let mut out: Vec<OriginShare> = CELL_ORIGINS
        .iter()
        .map(|o| OriginShare { origin: o.to_string(), ..OriginShare::default() })
        .collect();
    let (mut qd, mut infinite) = ([0.0f64; 4], [0usize; 4]);
    for c in cells {
        let i = cell_origin(c);
        out[i].cells += 1;
        out[i].boundaries += usize::from(c.pd > 0.0);
        if c.pd.is_infinite() {
            infinite[i] += 1;
        } else {
            qd[i] += c.pd;
        }
    }
    let boundaries: usize = out.iter().map(|s| s.boundaries).sum();
    let (all_infinite, all_qd): (usize, f64) = (infinite.iter().sum(), qd.iter().sum());
    for (i, s) in out.iter_mut().enumerate() {
        s.boundary_share = (boundaries > 0).then(|| s.boundaries as f64 / boundaries as f64);
        s.qd_share = if all_infinite > 0 {
            Some(infinite[i] as f64 / all_infinite as f64)
        } else {
            (all_qd > 0.0).then(|| qd[i] / all_qd)
        };
    }
    out.retain(|s| s.cells > 0);
    out
}

/// The per-origin figures of `report`, cells' origins first, then mutants'; origins with
/// nothing to show are left out. An origin's `qd_share` and `boundary_share` are the mean of
/// its shares over the functions with a boundary (0 where it found none).
pub fn origins(report: &Report) -> Vec<OriginFigures> {
    let mut out: Vec<OriginFigures> = CELL_ORIGINS
        .iter()
        .chain(["rules", "model mutator"].iter())
        .map(|o| OriginFigures { origin: o.to_string(), ..OriginFigures::default() })
        .collect();
    let mut sums = [(0.0f64, 0.0f64); 4];
    let mut shared = 0usize;
    for t in &report.targets {
        if let Some(x) = &t.exploration {
            let parts = shares(&x.cells);
            let boundaries = parts.iter().any(|s| s.boundary_share.is_some());
            shared += usize::from(boundaries);
            for s in parts {
                let Some(i) = CELL_ORIGINS.iter().position(|o| *o == s.origin) else { continue };
                out[i].cells += s.cells;
                out[i].boundaries += s.boundaries;
                out[i].functions += 1;
                sums[i].0 += s.qd_share.unwrap_or(0.0);
                sums[i].1 += s.boundary_share.unwrap_or(0.0);
            }
        }
        for m in t.mutation.iter().flat_map(|m| &m.mutants) {
            let i = if m.origin == crate::mutate::Origin::Model { 5 } else { 4 };
            out[i].mutants += 1;
            out[i].gaps += usize::from(m.status == MutantStatus::Survived && m.witness.is_some());
        }
    }
    for (f, (qd, b)) in out.iter_mut().zip(sums) {
        if shared > 0 && f.cells > 0 {
            f.qd_share = Some(qd / shared as f64);
            f.boundary_share = Some(b / shared as f64);
        }
    }
    if let Some(llm) = &report.llm {
        let tokens =
            |role: &str| llm.by_role.get(role).map_or(0, |s| s.prompt_tokens + s.completion_tokens);
        out[3].tokens =
            ["explorer", "coordinator", "ideator", "generator"].map(tokens).iter().sum();
        out[5].tokens = tokens("mutator");
    }
    out.retain(|f| f.cells > 0 || f.mutants > 0 || f.tokens > 0);
    out
}

/// Whole percents of `shares` (which add up to 1) that add up to 100: each rounded down, the
/// points left over given to the largest remainders (Hamilton's method).
pub fn percents(shares: &[f64]) -> Vec<u32> {
    let scaled: Vec<f64> = shares.iter().map(|s| (s * 100.0).clamp(0.0, 100.0)).collect();
    let mut out: Vec<u32> = scaled.iter().map(|s| s.floor() as u32).collect();
    let total: f64 = scaled.iter().sum();
    let target = total.round() as u32;
    let mut order: Vec<usize> = (0..scaled.len()).collect();
    order.sort_by(|&a, &b| {
        (scaled[b] - scaled[b].floor()).total_cmp(&(scaled[a] - scaled[a].floor()))
    });
    let given: u32 = out.iter().sum();
    for &i in order.iter().take(target.saturating_sub(given) as usize) {
        out[i] += 1;
    }
    out
}

/// The two shares of each of `parts` (origin, QD-score share, boundary share) as percents,
/// each column adding up to 100: `61% / 58%`.
fn share_pairs(parts: &[(&str, f64, f64)]) -> Vec<String> {
    let qd = percents(&parts.iter().map(|p| p.1).collect::<Vec<_>>());
    let b = percents(&parts.iter().map(|p| p.2).collect::<Vec<_>>());
    qd.iter().zip(b).map(|(q, b)| format!("{q}% / {b}%")).collect()
}

/// One function's origins in words: `by origin (share of its QD-score / of its boundaries):
/// operator 61% / 58%, bisection 39% / 42%`; `None` without a boundary.
pub fn describe_function(x: &ExplorationReport) -> Option<String> {
    let parts = shares(&x.cells);
    if parts.iter().all(|s| s.boundary_share.is_none()) {
        return None;
    }
    let pairs: Vec<(&str, f64, f64)> = parts
        .iter()
        .map(|s| (s.origin.as_str(), s.qd_share.unwrap_or(0.0), s.boundary_share.unwrap_or(0.0)))
        .collect();
    let named: Vec<String> =
        pairs.iter().zip(share_pairs(&pairs)).map(|(p, s)| format!("{} {s}", p.0)).collect();
    Some(format!("by origin (share of its QD-score / of its boundaries): {}", named.join(", ")))
}

/// The run's line: `by origin (mean share of a function's QD-score / boundaries, over 12
/// functions with boundaries): operator 61% / 58% (40 cells, 12 boundaries) · … · rules 11
/// mutants, 5 gaps · model mutator 1 mutants, 0 gaps, 3914 tokens`.
pub fn describe(report: &Report) -> String {
    let figures = &report.origins;
    let functions = report
        .targets
        .iter()
        .filter_map(|t| t.exploration.as_ref())
        .filter(|x| x.cells.iter().any(|c| c.pd > 0.0))
        .count();
    let explored: Vec<(&str, f64, f64)> = figures
        .iter()
        .filter_map(|f| Some((f.origin.as_str(), f.qd_share?, f.boundary_share?)))
        .collect();
    let pairs = share_pairs(&explored);
    let mut parts = Vec::new();
    for f in figures {
        let mut words = Vec::new();
        match explored.iter().position(|e| e.0 == f.origin) {
            Some(k) => {
                words.push(format!("{} ({} cells, {} boundaries)", pairs[k], f.cells, f.boundaries))
            }
            None if f.cells > 0 || f.origin == "model explorer" => {
                words.push(format!("{} cells, {} boundaries", f.cells, f.boundaries))
            }
            None => {}
        }
        if f.mutants > 0 || f.origin == "model mutator" {
            words.push(format!("{} mutants, {} gaps", f.mutants, f.gaps));
        }
        if f.origin.starts_with("model") {
            words.push(format!("{} tokens", f.tokens));
        }
        parts.push(format!("{} {}", f.origin, words.join(", ")));
    }
    let head = match functions {
        0 => "by origin".to_string(),
        1 => "by origin (share of the QD-score / boundaries of the one function with boundaries)"
            .to_string(),
        n => format!(
            "by origin (mean share of a function's QD-score / boundaries, over {n} functions \
             with boundaries)"
        ),
    };
    format!("{head}: {}", parts.join(" · "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::archive::{Origin, Pair};
    use crate::value::{Outcome, Value};

    /// A cell of inputs `a` and `b` whose outcomes are `x` and `y`.
    fn cell(a: f64, b: f64, (x, y): (&str, &str), origin: Origin) -> Cell {
        let ok = |v: &str| Outcome::Ok { value: v.into() };
        let mut p = Pair::new(vec![Value::Float(a)], vec![Value::Float(b)], ok(x), ok(y)).unwrap();
        p.origin = origin;
        Cell::of(&p)
    }

    #[test]
    fn percents_add_up_to_a_hundred() {
        assert_eq!(percents(&[1.0 / 3.0, 1.0 / 3.0, 1.0 / 3.0]), vec![34, 33, 33]);
        assert_eq!(percents(&[0.615, 0.385]), vec![62, 38]);
        assert_eq!(percents(&[1.0]), vec![100]);
        assert_eq!(percents(&[]), Vec::<u32>::new());
    }

    #[test]
    fn a_function_s_shares_add_up_to_one_even_when_a_pd_is_astronomical() {
        // Two floats a few ULPs apart: PD of the order of 1e15 and more, beside PD 1 pairs.
        let step = ("small", "large");
        let cells = vec![
            cell(9.0, 10.0, step, Origin::Operator),
            cell(9.999999999999998, 10.0, step, Origin::Bisection),
            cell(1.0, 2.0, ("small", "small"), Origin::Operator),
        ];
        let s = shares(&cells);
        assert_eq!(
            s.iter().map(|s| s.origin.as_str()).collect::<Vec<_>>(),
            ["operator", "bisection"]
        );
        let qd: f64 = s.iter().map(|s| s.qd_share.unwrap()).sum();
        let b: f64 = s.iter().map(|s| s.boundary_share.unwrap()).sum();
        assert!((qd - 1.0).abs() < 1e-9 && (b - 1.0).abs() < 1e-9, "{s:?}");
        assert!(s[1].qd_share.unwrap() > 0.99, "{s:?}");
        assert_eq!((s[0].boundary_share, s[1].boundary_share), (Some(0.5), Some(0.5)));
        // An infinite PD: the infinite cells share the score.
        // The defensive case of an infinite PD: the infinite cells share the score.
        let mut inf = vec![
            cell(0.0, 1e-160, ("zero", "positive"), Origin::Threshold),
            cell(1.0, 20.0, step, Origin::Operator),
        ];
        assert!(inf[0].pd > 1e159, "{}", inf[0].pd);
        inf[0].pd = f64::INFINITY;
        let s = shares(&inf);
        assert_eq!(s.iter().map(|s| s.qd_share).collect::<Vec<_>>(), [Some(0.0), Some(1.0)]);
        // No boundary: no share.
        let flat = [cell(1.0, 2.0, ("a", "a"), Origin::Operator)];
        assert!(shares(&flat)[0].qd_share.is_none());
    }
}
