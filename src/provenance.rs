//! What each origin contributed to a run: for the exploration cells, the offline operators,
//! bisection, the threshold operator and the model's Explorer (cells, boundaries, QD-score);
//! for the mutants, the rules and the model (mutants, gaps); and the model tokens each model
//! origin cost. The report carries these figures (`origins` in `report.json`), the terminal and
//! `summary.md` print them, so a model run says whether its tokens bought anything.

use crate::report::{MutantStatus, OriginFigures, Report};

const CELL_ORIGINS: [&str; 4] = ["operator", "bisection", "threshold", "model explorer"];

/// The per-origin figures of `report`, cells' origins first, then mutants'; origins with
/// nothing to show are left out.
pub fn origins(report: &Report) -> Vec<OriginFigures> {
    let mut out: Vec<OriginFigures> = CELL_ORIGINS
        .iter()
        .chain(["rules", "model mutator"].iter())
        .map(|o| OriginFigures { origin: o.to_string(), ..OriginFigures::default() })
        .collect();
    for t in &report.targets {
        for c in t.exploration.iter().flat_map(|e| &e.cells) {
            let i = match c.origin.kind() {
                "operator" => 0,
                "bisection" => 1,
                "threshold" => 2,
                _ => 3,
            };
            out[i].cells += 1;
            out[i].boundaries += usize::from(c.pd > 0.0);
            out[i].qd_score += c.pd;
        }
        for m in t.mutation.iter().flat_map(|m| &m.mutants) {
            let i = if m.origin == crate::mutate::Origin::Model { 5 } else { 4 };
            out[i].mutants += 1;
            out[i].gaps += usize::from(m.status == MutantStatus::Survived && m.witness.is_some());
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

/// A QD-score for people: two decimals, in scientific notation from a million on (the program
/// derivative of huge integer inputs gives scores of a hundred digits), never `-0.00` (the sum of
/// no cells is -0.0).
pub fn qd_text(score: f64) -> String {
    let score = score + 0.0;
    if score.is_finite() && score.abs() >= 1e6 {
        format!("{score:.2e}")
    } else {
        format!("{score:.2}")
    }
}

/// One line: `operator 40 cells, 12 boundaries, QD 8.10 · … · rules 11 mutants, 5 gaps · model
/// mutator 1 mutant, 0 gaps, 3914 tokens`.
pub fn describe(figures: &[OriginFigures]) -> String {
    figures
        .iter()
        .map(|f| {
            let mut parts = Vec::new();
            if f.cells > 0 || f.origin == "model explorer" {
                parts.push(format!(
                    "{} cells, {} boundaries, QD {}",
                    f.cells,
                    f.boundaries,
                    qd_text(f.qd_score)
                ));
            }
            if f.mutants > 0 || f.origin == "model mutator" {
                parts.push(format!("{} mutants, {} gaps", f.mutants, f.gaps));
            }
            if f.origin.starts_with("model") {
                parts.push(format!("{} tokens", f.tokens));
            }
            format!("{} {}", f.origin, parts.join(", "))
        })
        .collect::<Vec<_>>()
        .join(" · ")
}

#[cfg(test)]
mod tests {
    use super::qd_text;

    #[test]
    fn qd_scores_read_as_short_numbers() {
        assert_eq!(qd_text(3134.954), "3134.95");
        assert_eq!(qd_text(-0.0), "0.00");
        assert_eq!(qd_text(1.2467e149), "1.25e149");
        assert_eq!(qd_text(898_404_302_278_870.0), "8.98e14");
    }
}
