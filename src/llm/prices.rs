//! Per-model prices, in US dollars per million tokens, for the money budget and the report.
//!
//! The built-in table covers current OpenAI, Anthropic and Google names, each entry dated and
//! sourced; a model it does not name is priced by the longest built-in name that prefixes it
//! (`gpt-4o-mini-2024-07-18` → `gpt-4o-mini`). `ABEX_PRICES` (the environment: trusted) adds or
//! overrides entries. The project config's `[prices]` table (`"my-model" = { input = 0.2,
//! output = 0.8 }`) is a pull request's to write, so it may only raise a known price; it prices
//! an unknown model only in a run without a key, where nothing is spent on a hosted API (a local
//! server). A model with no known price costs nothing in the report, and a money budget refuses
//! to start with it ([`crate::llm::engine::start`]).

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

/// Built-in prices: (name, $ per million input tokens, $ per million output tokens, source).
/// A name also prices the dated and suffixed names it prefixes (`claude-sonnet-4-5-20250929`),
/// with or without a gateway prefix (`openai/gpt-5`, `anthropic/claude-haiku-4-5`). Anthropic
/// and Google names are those their OpenAI-compatible endpoints and common gateways take.
/// These are list prices as of the dates given, taken from the sources named; a project's
/// `[prices]` table overrides any of them.
pub const BUILT_IN: &[(&str, f64, f64, &str)] = &[
    // OpenAI: developers.openai.com/api/docs/pricing as tabulated in deploybase.ai/articles/
    // openai-pricing ("data from OpenAI pricing page, March 2026"); GPT-5.2 from
    // nativeai.agency/hub/tools/openai-api/model-families.
    ("gpt-5", 1.25, 10.0, OPENAI),
    ("gpt-5-mini", 0.25, 2.0, OPENAI),
    ("gpt-5-nano", 0.05, 0.4, OPENAI),
    ("gpt-5-pro", 15.0, 120.0, OPENAI),
    ("gpt-5-codex", 1.25, 10.0, OPENAI),
    ("gpt-5.1", 1.25, 10.0, OPENAI),
    ("gpt-5.2", 1.75, 14.0, OPENAI),
    ("gpt-5.4", 2.5, 15.0, OPENAI),
    ("gpt-4.1", 2.0, 8.0, OPENAI),
    ("gpt-4.1-mini", 0.4, 1.6, OPENAI),
    ("gpt-4.1-nano", 0.1, 0.4, OPENAI),
    ("gpt-4o", 2.5, 10.0, OPENAI),
    ("gpt-4o-mini", 0.15, 0.6, OPENAI),
    ("o3", 2.0, 8.0, OPENAI),
    ("o4-mini", 1.1, 4.4, OPENAI),
    // Anthropic: docs.anthropic.com/en/docs/about-claude/pricing (Opus 4.1, Sonnet 4, Haiku
    // 3.5) and deploybase.ai/articles/claude-api-pricing ("pricing as of March 21, 2026").
    ("claude-opus-4-1", 15.0, 75.0, ANTHROPIC),
    ("claude-opus-4-5", 5.0, 25.0, ANTHROPIC),
    ("claude-opus-4-6", 5.0, 25.0, ANTHROPIC),
    ("claude-sonnet-4", 3.0, 15.0, ANTHROPIC),
    ("claude-sonnet-4-5", 3.0, 15.0, ANTHROPIC),
    ("claude-sonnet-4-6", 3.0, 15.0, ANTHROPIC),
    ("claude-haiku-4-5", 1.0, 5.0, ANTHROPIC),
    ("claude-3-5-haiku", 0.8, 4.0, ANTHROPIC),
    // Google: ai.google.dev pricing as tabulated in morphllm.com/gemini-api-pricing and
    // deploybase.ai/articles/gemini-api-pricing-2026 (March 2026); prompts up to 200k tokens.
    ("gemini-2.5-pro", 1.25, 10.0, GOOGLE),
    ("gemini-2.5-flash", 0.3, 2.5, GOOGLE),
    ("gemini-2.5-flash-lite", 0.1, 0.4, GOOGLE),
    ("gemini-3-flash", 0.5, 3.0, GOOGLE),
    ("gemini-3.1-pro", 2.0, 12.0, GOOGLE),
];

const OPENAI: &str = "OpenAI list prices, March 2026";
const ANTHROPIC: &str = "Anthropic list prices, March 2026";
const GOOGLE: &str = "Google Gemini API list prices, March 2026";

/// The price table of a run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Prices {
    /// Entries from the environment (`ABEX_PRICES`), which win over the built-in ones.
    pub trusted: BTreeMap<String, Price>,
    /// Entries from the project's files, which may only raise a known price.
    pub project: BTreeMap<String, Price>,
    /// Whether a project entry may price a model no other table knows (a run without a key).
    pub project_prices_unknown: bool,
}

impl Prices {
    /// The price of `model`: [`Prices::known`], or zero (a local server).
    pub fn of(&self, model: &str) -> Price {
        self.known(model).unwrap_or_default()
    }

    /// The price of `model`: the trusted entry, else the built-in one ([`built_in`]) raised to
    /// the project's entry where that is higher, else the project's entry when it may price an
    /// unknown model.
    pub fn known(&self, model: &str) -> Option<Price> {
        if let Some(p) = self.trusted.get(model) {
            return Some(*p);
        }
        let project = self.project.get(model).copied();
        match (built_in(model), project) {
            (Some(b), Some(p)) => Some(Price {
                input_per_mtok: b.input_per_mtok.max(p.input_per_mtok),
                output_per_mtok: b.output_per_mtok.max(p.output_per_mtok),
            }),
            (Some(b), None) => Some(b),
            (None, p) => p.filter(|_| self.project_prices_unknown),
        }
    }
}

/// The built-in price of `model`: the longest built-in name that is `model` or prefixes it
/// (after a gateway prefix such as `openai/`) followed by `-` or `@`.
pub fn built_in(model: &str) -> Option<Price> {
    let bare = model.rsplit('/').next().unwrap_or(model);
    BUILT_IN
        .iter()
        .filter(|(name, ..)| {
            bare == *name
                || bare.strip_prefix(name).is_some_and(|r| r.starts_with('-') || r.starts_with('@'))
        })
        .max_by_key(|(name, ..)| name.len())
        .map(|&(_, i, o, _)| Price { input_per_mtok: i, output_per_mtok: o })
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
        assert_eq!(p.known("qwen3"), None);
        assert_eq!(p.of("gpt-5.1").output_per_mtok, 10.0);
        assert_eq!(p.of("gpt-5.1-codex").output_per_mtok, 10.0);
        assert_eq!(p.of("anthropic/claude-sonnet-4-5-20250929").input_per_mtok, 3.0);
        assert_eq!(p.of("claude-haiku-4-5@20251001").input_per_mtok, 1.0);
        assert_eq!(p.of("google/gemini-2.5-flash-lite").input_per_mtok, 0.1);
        assert_eq!(p.known("gpt-5x"), None, "a name is not a prefix of another word");
        p.trusted.insert("qwen3".into(), Price { input_per_mtok: 1.0, output_per_mtok: 2.0 });
        assert_eq!(p.of("qwen3").output_per_mtok, 2.0);
        assert!((p.of("qwen3").cost(1_000_000, 500_000) - 2.0).abs() < 1e-9);
    }

    #[test]
    fn a_project_price_only_raises_a_known_one_and_prices_an_unknown_model_only_without_a_key() {
        let zero = Price::default();
        let high = Price { input_per_mtok: 9.0, output_per_mtok: 1.0 };
        let mut p = Prices::default();
        p.project.insert("gpt-5-mini".into(), zero);
        p.project.insert("qwen3".into(), zero);
        assert_eq!(p.of("gpt-5-mini"), Price { input_per_mtok: 0.25, output_per_mtok: 2.0 });
        assert_eq!(p.known("qwen3"), None, "with a key, the project cannot price a model");
        p.project.insert("gpt-5-mini".into(), high);
        assert_eq!(p.of("gpt-5-mini"), Price { input_per_mtok: 9.0, output_per_mtok: 2.0 });
        p.project_prices_unknown = true;
        assert_eq!(p.known("qwen3"), Some(zero));
        p.trusted.insert("gpt-5-mini".into(), zero);
        assert_eq!(p.of("gpt-5-mini"), zero, "the environment's price is the user's own");
    }
}
