//! Per-model prices, in US dollars per million tokens, for the money budget and the report.
//!
//! The built-in table covers common hosted models; the project config's `[prices]` table adds
//! or overrides entries (`"my-model" = { input = 0.2, output = 0.8 }`). A model found in neither
//! is priced by the longest built-in name that prefixes it (`gpt-4o-mini-2024-07-18` →
//! `gpt-4o-mini`), and otherwise at zero (local servers: Ollama, vLLM, llama.cpp).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// The price of one model.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Price {
    /// Dollars per million prompt tokens.
    #[serde(rename = "input")]
    pub input_per_mtok: f64,
    /// Dollars per million completion tokens.
    #[serde(rename = "output")]
    pub output_per_mtok: f64,
}

impl Price {
    /// The cost of a call.
    pub fn cost(self, prompt_tokens: u64, completion_tokens: u64) -> f64 {
        (prompt_tokens as f64 * self.input_per_mtok
            + completion_tokens as f64 * self.output_per_mtok)
            / 1e6
    }
}

/// Built-in prices (list prices as published by the vendors, late 2026).
const BUILT_IN: &[(&str, f64, f64)] = &[
    ("gpt-5", 1.25, 10.0),
    ("gpt-5-mini", 0.25, 2.0),
    ("gpt-5-nano", 0.05, 0.4),
    ("gpt-4.1", 2.0, 8.0),
    ("gpt-4.1-mini", 0.4, 1.6),
    ("gpt-4.1-nano", 0.1, 0.4),
    ("gpt-4o", 2.5, 10.0),
    ("gpt-4o-mini", 0.15, 0.6),
    ("o4-mini", 1.1, 4.4),
];

/// The price table of a run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Prices {
    /// The user's entries, which win over the built-in ones.
    pub extra: BTreeMap<String, Price>,
}

impl Prices {
    /// The price of `model`.
    pub fn of(&self, model: &str) -> Price {
        if let Some(p) = self.extra.get(model) {
            return *p;
        }
        BUILT_IN
            .iter()
            .filter(|(name, _, _)| model == *name || model.starts_with(&format!("{name}-")))
            .max_by_key(|(name, _, _)| name.len())
            .map(|&(_, i, o)| Price { input_per_mtok: i, output_per_mtok: o })
            .unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dated_names_take_the_longest_prefix_and_user_entries_win() {
        let mut p = Prices::default();
        assert_eq!(p.of("gpt-4o-mini-2024-07-18").input_per_mtok, 0.15);
        assert_eq!(p.of("gpt-4o").input_per_mtok, 2.5);
        assert_eq!(p.of("qwen3"), Price::default());
        p.extra.insert("qwen3".into(), Price { input_per_mtok: 1.0, output_per_mtok: 2.0 });
        assert_eq!(p.of("qwen3").output_per_mtok, 2.0);
        assert!((p.of("qwen3").cost(1_000_000, 500_000) - 2.0).abs() < 1e-9);
    }
}
