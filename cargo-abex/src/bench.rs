//! `cargo abex bench-agents`: one function explored three ways on the same pair budget, offline,
//! with the Explorer alone, and with all four agents, each a separate run of this binary into
//! its own output folder; prints the three QD-scores, boundaries, gaps, the cells the model's
//! Explorer holds and the tokens spent, side by side.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use serde_json::Value;

/// The three ways, as (name, the flags that select it).
const MODES: [(&str, &[&str]); 3] = [
    ("offline", &["--offline"]),
    ("explorer-only", &["--agents", "explorer-only"]),
    ("full", &["--agents", "full"]),
];

/// One way's figures.
#[derive(Debug, Default, PartialEq)]
struct Figures {
    qd_score: f64,
    boundaries: u64,
    gaps: u64,
    model_cells: u64,
    tokens: u64,
    fallbacks: Vec<String>,
}

fn figures(report: &Value) -> Figures {
    let targets = report["targets"].as_array().cloned().unwrap_or_default();
    let sum = |f: &dyn Fn(&Value) -> f64| targets.iter().map(f).sum::<f64>();
    let origins = report["origins"].as_array().cloned().unwrap_or_default();
    let llm = &report["llm"];
    Figures {
        qd_score: sum(&|t| t["exploration"]["qd_score"].as_f64().unwrap_or(0.0)),
        boundaries: sum(&|t| t["exploration"]["bc_count"].as_f64().unwrap_or(0.0)) as u64,
        gaps: sum(&|t| t["mutation"]["counts"]["witnessed"].as_f64().unwrap_or(0.0)) as u64,
        model_cells: origins
            .iter()
            .find(|o| o["origin"] == "model explorer")
            .and_then(|o| o["cells"].as_u64())
            .unwrap_or(0),
        tokens: llm["total"]["prompt_tokens"].as_u64().unwrap_or(0)
            + llm["total"]["completion_tokens"].as_u64().unwrap_or(0),
        fallbacks: llm["fallbacks"]
            .as_array()
            .map(|f| f.iter().filter_map(|v| v.as_str().map(str::to_string)).collect())
            .unwrap_or_default(),
    }
}

/// Runs the three ways on `function` with `pairs` pairs each (and `extra` arguments for every
/// run: the model, the endpoint, budgets), writing under `root/.abex/bench/<way>`.
pub fn run(root: &Path, function: &str, pairs: usize, extra: &[String]) -> ExitCode {
    let exe = std::env::current_exe().unwrap_or_else(|_| PathBuf::from("cargo-abex"));
    let mut rows = Vec::new();
    for (name, flags) in MODES {
        let out = root.join(".abex").join("bench").join(name);
        let mut cmd = Command::new(&exe);
        cmd.arg("abex")
            .args(["--function", function, "--pairs", &pairs.to_string()])
            .arg("--out")
            .arg(&out)
            .args(flags)
            .args(extra)
            .current_dir(root);
        // The key left this process's environment at start; each run needs it back.
        for k in ["ABEX_API_KEY", "OPENAI_API_KEY"] {
            if let Some(v) = abex::secrets::var(k) {
                cmd.env(k, v);
            }
        }
        eprintln!("abex bench: {name} …");
        match cmd.status() {
            Ok(s) if s.success() => {}
            Ok(s) => {
                eprintln!("abex bench: the {name} run failed ({s})");
                return ExitCode::from(s.code().map_or(3, |c| c as u8));
            }
            Err(e) => {
                eprintln!("abex bench: could not run {}: {e}", exe.display());
                return ExitCode::from(3);
            }
        }
        let text = std::fs::read_to_string(out.join("report.json")).unwrap_or_default();
        let report: Value = serde_json::from_str(&text).unwrap_or_default();
        rows.push((name, figures(&report)));
    }
    println!("{}", table(function, pairs, &rows));
    ExitCode::SUCCESS
}

fn table(function: &str, pairs: usize, rows: &[(&str, Figures)]) -> String {
    let mut s = format!(
        "{function}, {pairs} pairs each\n{:<14} {:>10} {:>11} {:>5} {:>12} {:>8}\n",
        "way", "QD-score", "boundaries", "gaps", "model cells", "tokens"
    );
    for (name, f) in rows {
        s.push_str(&format!(
            "{name:<14} {:>10.2} {:>11} {:>5} {:>12} {:>8}{}\n",
            f.qd_score,
            f.boundaries,
            f.gaps,
            f.model_cells,
            f.tokens,
            if f.fallbacks.is_empty() {
                String::new()
            } else {
                format!("  (offline fallback: {})", f.fallbacks.join("; "))
            }
        ));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn figures_are_summed_over_targets_and_read_from_the_origins() {
        let r = serde_json::json!({
            "targets": [
                {"exploration": {"qd_score": 2.5, "bc_count": 3}, "mutation": {"counts": {"witnessed": 1}}},
                {"exploration": {"qd_score": 1.0, "bc_count": 1}, "mutation": {"counts": {"witnessed": 2}}}
            ],
            "origins": [{"origin": "operator", "cells": 9}, {"origin": "model explorer", "cells": 4}],
            "llm": {"total": {"prompt_tokens": 100, "completion_tokens": 20}, "fallbacks": ["time budget spent"]}
        });
        let f = figures(&r);
        assert_eq!(
            (f.qd_score, f.boundaries, f.gaps, f.model_cells, f.tokens),
            (3.5, 4, 3, 4, 120)
        );
        let t = table("f", 10, &[("full", f)]);
        assert!(t.contains("full") && t.contains("3.50") && t.contains("time budget spent"), "{t}");
    }
}
