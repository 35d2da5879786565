//! Hard caps on what a run may spend on a model: tokens, money and wall time.
//!
//! A call is admitted only when its worst case fits: the prompt's tokens plus the answer's
//! `max_tokens`, priced at the model's rates, must stay within what is left. A refused call is
//! not started and is recorded, with its role and why, so the report can say what was skipped.
//! Spending is recorded from the endpoint's `usage` (or an estimate when it has none).

use std::time::Instant;

use serde::{Deserialize, Serialize};

use super::prices::Price;

/// Why a call was not started.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Exhausted {
    /// The token cap would be passed.
    Tokens,
    /// The money cap would be passed.
    Money,
    /// The run's deadline has passed.
    Time,
}

impl std::fmt::Display for Exhausted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Exhausted::Tokens => "token budget spent",
            Exhausted::Money => "money budget spent",
            Exhausted::Time => "time budget spent",
        })
    }
}

/// The caps of a run and what has been spent against them.
#[derive(Clone, Debug, Default)]
pub struct Budget {
    /// Most tokens (prompt + completion) the run may use.
    pub max_tokens: Option<u64>,
    /// Most money, in US dollars.
    pub max_usd: Option<f64>,
    /// When model calls must stop.
    pub deadline: Option<Instant>,
    /// Tokens spent so far.
    pub tokens: u64,
    /// Dollars spent so far.
    pub usd: f64,
}

impl Budget {
    /// Whether a call of `prompt_tokens` that may answer with up to `max_tokens`, priced at
    /// `price`, fits in what is left.
    pub fn admit(
        &self,
        prompt_tokens: u64,
        max_tokens: u64,
        price: Price,
    ) -> Result<(), Exhausted> {
        if self.deadline.is_some_and(|d| Instant::now() >= d) {
            return Err(Exhausted::Time);
        }
        let worst = prompt_tokens + max_tokens;
        if self.max_tokens.is_some_and(|cap| self.tokens + worst > cap) {
            return Err(Exhausted::Tokens);
        }
        let cost = price.cost(prompt_tokens, max_tokens);
        if self.max_usd.is_some_and(|cap| self.usd + cost > cap + 1e-12) {
            return Err(Exhausted::Money);
        }
        Ok(())
    }

    /// Records a finished call.
    pub fn spend(&mut self, prompt_tokens: u64, completion_tokens: u64, price: Price) {
        self.tokens += prompt_tokens + completion_tokens;
        self.usd += price.cost(prompt_tokens, completion_tokens);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const P: Price = Price { input_per_mtok: 1.0, output_per_mtok: 4.0 };

    #[test]
    fn a_call_whose_worst_case_passes_the_token_cap_is_refused() {
        let mut b = Budget { max_tokens: Some(1_000), ..Budget::default() };
        assert_eq!(b.admit(600, 400, P), Ok(()));
        assert_eq!(b.admit(601, 400, P), Err(Exhausted::Tokens));
        b.spend(600, 100, P);
        assert_eq!(b.tokens, 700);
        assert_eq!(b.admit(200, 100, P), Ok(()));
        assert_eq!(b.admit(200, 101, P), Err(Exhausted::Tokens));
    }

    #[test]
    fn money_is_priced_per_million_tokens_and_capped() {
        let mut b = Budget { max_usd: Some(0.01), ..Budget::default() };
        // 2,000 in at $1/M + 2,000 out at $4/M = $0.01 exactly: fits.
        assert_eq!(b.admit(2_000, 2_000, P), Ok(()));
        assert_eq!(b.admit(2_000, 2_001, P), Err(Exhausted::Money));
        b.spend(1_000, 500, P);
        assert!((b.usd - 0.003).abs() < 1e-12);
        assert_eq!(b.admit(1_000, 1_500, P), Ok(()));
        assert_eq!(b.admit(1_000, 1_501, P), Err(Exhausted::Money));
    }

    #[test]
    fn a_passed_deadline_refuses_every_call() {
        let b = Budget { deadline: Some(Instant::now()), ..Budget::default() };
        assert_eq!(b.admit(1, 1, P), Err(Exhausted::Time));
    }
}
