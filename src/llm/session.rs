//! A run's connection to the model: every agent call goes through [`Session::ask`], which replays
//! from the response cache, admits the call against the budget, sends it, parses the answer into
//! the role's typed shape (with one repair request when it does not parse), and accounts for it.
//!
//! Once a budget is spent or the endpoint fails (after the client's retries), the session stops
//! calling and every later `ask` answers `None`, so the callers carry on with the offline engine;
//! the reason is recorded once as a fallback for the report. Cached answers still replay.

use serde::de::DeserializeOwned;

use super::budget::Budget;
use super::cache::ResponseCache;
use super::client::{Client, Message, Request, Shape};
use super::config::{LlmConfig, Role};
use crate::report::usage::{LlmReport, Skipped};

/// Skipped calls listed one by one in the report; the rest are counted.
const SKIPPED_LISTED: usize = 20;

/// A run's model session.
pub struct Session {
    /// The configuration.
    pub cfg: LlmConfig,
    client: Client,
    cache: ResponseCache,
    /// The caps and what is spent.
    pub budget: Budget,
    /// What has been spent, for the report.
    pub report: LlmReport,
    /// Why calls stopped, if they did.
    stopped: Option<String>,
    /// Prompt templates.
    pub prompts: super::prompts::Prompts,
}

impl Session {
    /// A session for the project at `root`, within `budget` (the model caps of `cfg` are
    /// applied on top of it).
    pub fn new(
        cfg: LlmConfig,
        client: Client,
        root: &std::path::Path,
        mut budget: Budget,
    ) -> Result<Session, super::prompts::PromptError> {
        budget.max_tokens = cfg.budget_tokens.or(budget.max_tokens);
        budget.max_usd = cfg.budget_usd.or(budget.max_usd);
        let prompts = super::prompts::Prompts::load(cfg.prompts.as_deref())?;
        let report = LlmReport {
            engine: "model".into(),
            model: Some(cfg.model.clone()),
            agents: Some(
                match cfg.agents {
                    super::config::AgentsMode::Full => "full",
                    super::config::AgentsMode::NoIdeator => "no-ideator",
                    super::config::AgentsMode::ExplorerOnly => "explorer-only",
                }
                .into(),
            ),
            ..LlmReport::default()
        };
        Ok(Session {
            cache: ResponseCache::open(root),
            cfg,
            client,
            budget,
            report,
            stopped: None,
            prompts,
        })
    }

    /// Whether calls have stopped (a budget is spent or the endpoint failed).
    pub fn stopped(&self) -> Option<&str> {
        self.stopped.as_deref()
    }

    fn stop(&mut self, why: String) {
        if self.stopped.is_none() {
            self.report.fallbacks.push(why.clone());
            self.stopped = Some(why);
        }
    }

    /// Asks `role`, on behalf of `function`, and parses the answer as `T`. `None` when the call
    /// was skipped, failed, or its answer did not parse even after one repair.
    pub fn ask<T: DeserializeOwned>(
        &mut self,
        role: Role,
        function: &str,
        messages: Vec<Message>,
        shape: Shape,
    ) -> Option<T> {
        self.ask_at(role, function, messages, shape, None)
    }

    /// [`Session::ask`] at `temperature` instead of the role's, when given and the role's
    /// temperature is not set by the user (the Explorer's personas).
    pub fn ask_at<T: DeserializeOwned>(
        &mut self,
        role: Role,
        function: &str,
        messages: Vec<Message>,
        shape: Shape,
        temperature: Option<f64>,
    ) -> Option<T> {
        let user_set = self.cfg.roles.get(&role).is_some_and(|r| r.temperature.is_some());
        let req = Request {
            model: self.cfg.model_of(role).to_string(),
            temperature: temperature
                .filter(|_| !user_set)
                .unwrap_or_else(|| self.cfg.temperature_of(role)),
            messages,
            shape,
            max_tokens: self.cfg.max_tokens,
        };
        let key = ResponseCache::key(&req);
        if let Some(e) = self.cache.get(&key) {
            if let Ok(t) = serde_json::from_value::<T>(e.json) {
                self.account(role, function, 0, 0, true);
                return Some(t);
            }
        }
        let mut conversation = req.clone();
        for attempt in 0..2 {
            let answer = self.send(role, function, &conversation)?;
            let parsed = match &answer.json {
                Some(j) => serde_json::from_value::<T>(j.clone()).map_err(|e| e.to_string()),
                None => Err("the answer holds no JSON object".to_string()),
            };
            match parsed {
                Ok(t) => {
                    if let Some(j) = answer.json {
                        self.cache.put(&key, &j, answer.usage);
                    }
                    return Some(t);
                }
                Err(why) if attempt == 0 => {
                    conversation.messages.push(Message::assistant(answer.text));
                    conversation.messages.push(Message::user(format!(
                        "That answer was not valid: {why}. Answer again with only the JSON object \
                         of the requested shape."
                    )));
                }
                Err(_) => {}
            }
        }
        self.report.failed += 1;
        None
    }

    /// Admits, sends and accounts one call: every attempt is billed (by its usage, or its worst
    /// case when its answer has none), a retry is sent only when its worst case still fits, and
    /// no attempt outlives the run's deadline.
    fn send(&mut self, role: Role, function: &str, req: &Request) -> Option<super::client::Answer> {
        if self.stopped.is_some() {
            self.skip(role, function, "calls stopped".into());
            return None;
        }
        let prompt = super::client::prompt_bound(req);
        let price = self.cfg.prices.of(&req.model);
        if let Err(why) = self.budget.admit(prompt, u64::from(req.max_tokens), price) {
            self.skip(role, function, why.to_string());
            self.stop(why.to_string());
            return None;
        }
        let budget = &self.budget;
        let admit = |billed: &super::client::Billed| {
            let mut b = budget.clone();
            b.spend(billed.prompt_tokens, billed.completion_tokens, price);
            b.admit(prompt, u64::from(req.max_tokens), price).is_ok()
        };
        let bounds = super::client::Bounds { deadline: self.budget.deadline, admit: &admit };
        let called = self.client.chat_within(req, &bounds);
        let b = called.billed;
        self.budget.spend(b.prompt_tokens, b.completion_tokens, price);
        self.report.requests = self.client.requests();
        self.report.worst_case_billed += u64::from(b.worst_cases);
        self.report.adaptations = self.client.adaptations();
        match called.result {
            Ok(a) => {
                self.account(role, function, b.prompt_tokens, b.completion_tokens, false);
                Some(a)
            }
            Err(e) => {
                self.bill_unanswered(role, function, b.prompt_tokens, b.completion_tokens);
                self.report.failed += 1;
                match e {
                    super::client::CallError::Budget { .. } => {
                        let why = self.budget.admit(prompt, u64::from(req.max_tokens), price);
                        let why = why.err().map_or("budget spent".into(), |e| e.to_string());
                        // The retry that did not fit is a call the budget refused.
                        self.skip(role, function, why.clone());
                        self.stop(why);
                    }
                    e => self.stop(format!("endpoint failed: {e}")),
                }
                None
            }
        }
    }

    /// Records what an unanswered call's attempts were billed (no call is counted).
    fn bill_unanswered(&mut self, role: Role, function: &str, prompt: u64, completion: u64) {
        let usd = self.cfg.prices.of(self.cfg.model_of(role)).cost(prompt, completion);
        let r = &mut self.report;
        for s in [
            &mut r.total,
            r.by_role.entry(role.name().into()).or_default(),
            r.by_function.entry(function.into()).or_default(),
        ] {
            s.prompt_tokens += prompt;
            s.completion_tokens += completion;
            s.usd += usd;
        }
    }

    fn skip(&mut self, role: Role, function: &str, reason: String) {
        self.report.skipped_count += 1;
        if self.report.skipped.len() < SKIPPED_LISTED {
            self.report.skipped.push(Skipped {
                role: role.name().into(),
                function: function.into(),
                reason,
            });
        }
    }

    fn account(
        &mut self,
        role: Role,
        function: &str,
        prompt: u64,
        completion: u64,
        replayed: bool,
    ) {
        let usd = self.cfg.prices.of(self.cfg.model_of(role)).cost(prompt, completion);
        let r = &mut self.report;
        r.total.add(prompt, completion, usd, replayed);
        r.by_role.entry(role.name().into()).or_default().add(prompt, completion, usd, replayed);
        r.by_function.entry(function.into()).or_default().add(prompt, completion, usd, replayed);
    }
}
