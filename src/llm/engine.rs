//! How a run starts the model engine: the configuration resolved into a session (or the
//! offline engine, and why), and the model settings that change a run's results. What each
//! language shows the agents and how it validates their mutants lives with its front end.

use std::path::Path;
use std::time::Instant;

use super::budget::Budget;
use super::client::Client;
use super::config::{self, ConfigError, LlmOptions, Resolved};
use super::prompts::PromptError;
use super::session::Session;
use crate::report::usage::LlmReport;

/// The model settings are broken.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    /// The config file is wrong.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// A prompt template is wrong.
    #[error(transparent)]
    Prompt(#[from] PromptError),
    /// A money budget is set but a model's price is unknown, so the budget could not hold.
    #[error("--budget-usd needs the price of model `{model}`, which abex does not know\nhint: give its price in US dollars per million input/output tokens in the environment, e.g. ABEX_PRICES=\"{model}=0.5/1.5\"; a run without a key (a local server, which costs nothing) may also take it from the project's model settings, e.g. in abex.toml:\n  [llm.prices.\"{model}\"]\n  input = 0\n  output = 0\n(`[tool.abex.llm.prices.\"{model}\"]` in pyproject.toml)")]
    Unpriced {
        /// The model.
        model: String,
    },
}

/// The first model of `cfg`'s roles that has no known price, when a money budget is set: such
/// a budget could not hold.
pub fn unpriced_model(cfg: &config::LlmConfig) -> Option<String> {
    cfg.budget_usd?;
    config::Role::ALL
        .iter()
        .map(|r| cfg.model_of(*r))
        .find(|m| cfg.prices.known(m).is_none())
        .map(str::to_string)
}

/// The session of a run, or the offline report saying why there is none.
pub fn start(
    opts: &LlmOptions,
    root: &Path,
    deadline: Option<Instant>,
) -> Result<Result<Session, LlmReport>, EngineError> {
    let env = |k: &str| crate::secrets::var(k);
    match config::resolve(opts, &env, root)? {
        Resolved::Offline(why) => Ok(Err(LlmReport {
            engine: "offline".into(),
            fallbacks: vec![why],
            ..LlmReport::default()
        })),
        Resolved::Model(cfg) => {
            if let Some(model) = unpriced_model(&cfg) {
                return Err(EngineError::Unpriced { model });
            }
            let client = Client::new(&cfg);
            let budget = Budget { deadline, ..Budget::default() };
            Ok(Ok(Session::new(*cfg, client, root, budget)?))
        }
    }
}

/// The model settings that change a run's results, for results-cache keys: endpoint, models,
/// roles, agents, mutant and Explorer-call counts, budgets and the prompts.
pub fn settings_fingerprint(s: &Session) -> String {
    let c = &s.cfg;
    format!(
        "{}|{}|{:?}|{:?}|{}|{}|{:?}|{:?}|{:?}|{}|{}",
        c.base_url,
        c.model,
        c.roles,
        c.agents,
        c.mutants,
        c.explorer_calls,
        c.budget_tokens,
        c.budget_usd,
        c.reasoning_effort,
        c.white_box,
        s.prompts.fingerprint()
    )
}
