//! What a run spent on the model, for the report: tokens, money and calls per role and per
//! function, requests actually sent, answers replayed from the cache, calls skipped by a budget,
//! and why the run fell back to the offline engine, if it did.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// Spending of one role or function.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Spend {
    /// Calls answered (by the endpoint or the cache).
    pub calls: u64,
    /// Of those, answered from the response cache (no tokens, no money).
    pub replayed: u64,
    /// Prompt tokens sent.
    pub prompt_tokens: u64,
    /// Completion tokens received.
    pub completion_tokens: u64,
    /// Dollars.
    pub usd: f64,
}

impl Spend {
    /// Adds one answered call.
    pub fn add(&mut self, prompt: u64, completion: u64, usd: f64, replayed: bool) {
        self.calls += 1;
        self.replayed += replayed as u64;
        self.prompt_tokens += prompt;
        self.completion_tokens += completion;
        self.usd += usd;
    }
}

/// A call that was not made.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Skipped {
    /// The role.
    pub role: String,
    /// The function it was for.
    pub function: String,
    /// Why (`token budget spent`, …).
    pub reason: String,
}

/// The model section of the report.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LlmReport {
    /// `model` while a model was used, `offline` when none was.
    pub engine: String,
    /// The default model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// The agents taking part (`full`, `no-ideator`, `explorer-only`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agents: Option<String>,
    /// Why the offline engine took over, in order (`no key: …`, `budget spent`, `endpoint
    /// failed: …`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fallbacks: Vec<String>,
    /// HTTP requests sent, retries included.
    pub requests: u64,
    /// Requests billed at their worst case (no usage in the answer: an error, a timeout).
    #[serde(default)]
    pub worst_case_billed: u64,
    /// How requests were adapted to what the endpoint accepts (`` `gpt-5-mini`: sends
    /// max_completion_tokens instead of max_tokens (HTTP 400) ``), oldest first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub adaptations: Vec<String>,
    /// Calls whose answer could not be used (malformed after one repair, or failed).
    pub failed: u64,
    /// Totals.
    pub total: Spend,
    /// Per role.
    pub by_role: BTreeMap<String, Spend>,
    /// Per function (qualified name).
    pub by_function: BTreeMap<String, Spend>,
    /// Calls a budget refused, at most the first 20.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub skipped: Vec<Skipped>,
    /// How many calls a budget refused.
    #[serde(default)]
    pub skipped_count: u64,
    /// Model-written mutants refused unrun by validation.
    #[serde(default)]
    pub mutants_refused: u64,
    /// Tests the Tester wrote that were refused unrun by the allowlist.
    #[serde(default)]
    pub tests_refused: u64,
    /// Tests the Tester wrote that passed on the original and killed their survivor.
    #[serde(default)]
    pub tests_kept: u64,
    /// Survivors whose Tester loop ended without such a test (the offline test stands).
    #[serde(default)]
    pub tests_fell_back: u64,
    /// Strategies the run started from the strategy library.
    #[serde(default)]
    pub strategies_seeded: u64,
}

impl LlmReport {
    /// One line for the terminal and `summary.md`.
    pub fn describe(&self) -> String {
        if self.engine == "offline" {
            return match self.fallbacks.first() {
                Some(why) => format!("engine: offline ({why})"),
                None => "engine: offline".to_string(),
            };
        }
        let mut s = {
            format!(
                "engine: model `{}` ({}): {} calls ({} replayed, {} requests), {} tokens, ${:.4}",
                self.model.as_deref().unwrap_or("?"),
                self.agents.as_deref().unwrap_or("full"),
                self.total.calls,
                self.total.replayed,
                self.requests,
                self.total.prompt_tokens + self.total.completion_tokens,
                self.total.usd
            )
        };
        if self.skipped_count > 0 {
            s.push_str(&format!("; {} calls skipped by the budget", self.skipped_count));
        }
        if !self.adaptations.is_empty() {
            s.push_str(&format!("; adapted to the endpoint: {}", self.adaptations.join("; ")));
        }
        if !self.fallbacks.is_empty() {
            s.push_str(&format!("; offline fallback: {}", self.fallbacks.join("; ")));
        }
        s
    }
}
