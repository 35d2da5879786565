//! The model configuration of a run, resolved once from, in order of precedence: the command
//! line ([`LlmOptions`]), the environment (`ABEX_API_KEY` or `OPENAI_API_KEY`, `ABEX_BASE_URL`,
//! `ABEX_MODEL`), the project's config file (`abex.toml` `[llm]`, or the root `Cargo.toml`'s
//! `[package.metadata.abex.llm]` / `[workspace.metadata.abex.llm]`, or `pyproject.toml`'s
//! `[tool.abex.llm]`), and the defaults below. The API key is never read from a file that may be
//! committed. Unknown keys in the `llm` table are an error naming the file.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::llm::prices::{Price, Prices};

/// Default endpoint: any OpenAI-compatible server works (`http://localhost:11434/v1` for Ollama).
pub const DEFAULT_BASE_URL: &str = "https://api.openai.com/v1";
/// Default model.
pub const DEFAULT_MODEL: &str = "gpt-5-mini";

/// A role of the model in a run, with its own model and temperature.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// Proposes input pairs following the active strategy.
    Explorer,
    /// Decides whether to repeat, select or request a strategy.
    Coordinator,
    /// Weighs directions for a new strategy.
    Ideator,
    /// Turns a direction into the steps of a strategy.
    Generator,
    /// Writes test-aware mutants.
    Mutator,
    /// Writes the test that kills a witnessed survivor (generate-and-repair).
    Tester,
}

impl Role {
    /// Every role.
    pub const ALL: [Role; 6] = [
        Role::Explorer,
        Role::Coordinator,
        Role::Ideator,
        Role::Generator,
        Role::Mutator,
        Role::Tester,
    ];

    /// The snake_case name (also the prompt file's stem).
    pub fn name(self) -> &'static str {
        match self {
            Role::Explorer => "explorer",
            Role::Coordinator => "coordinator",
            Role::Ideator => "ideator",
            Role::Generator => "generator",
            Role::Mutator => "mutator",
            Role::Tester => "tester",
        }
    }

    /// The paper's temperature for the role (000, section 4.1); mutants use 0.7, tests 0.3
    /// (the Tester's personas set their own, as the Explorer's do).
    pub fn default_temperature(self) -> f64 {
        match self {
            Role::Explorer | Role::Ideator => 0.8,
            Role::Coordinator | Role::Generator => 0.5,
            Role::Mutator => 0.7,
            Role::Tester => 0.3,
        }
    }
}

/// Which agents take part (the ablation of paper 000).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum AgentsMode {
    /// Explorer, Coordinator, Ideator and Strategy Generator.
    #[default]
    Full,
    /// No Ideator: the Strategy Generator writes new strategies from the search gap alone.
    NoIdeator,
    /// The Explorer alone, on the baseline strategy.
    ExplorerOnly,
}

impl std::str::FromStr for AgentsMode {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "full" => Ok(AgentsMode::Full),
            "no-ideator" => Ok(AgentsMode::NoIdeator),
            "explorer-only" => Ok(AgentsMode::ExplorerOnly),
            _ => Err(format!("unknown agents mode `{s}` (full, no-ideator, explorer-only)")),
        }
    }
}

/// How the endpoint is asked for JSON.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum JsonMode {
    /// `response_format: {type: json_schema}` with the answer's schema.
    #[default]
    Schema,
    /// `response_format: {type: json_object}`.
    Object,
    /// No `response_format`: the JSON is extracted from the text and validated.
    Off,
}

/// One role's overrides.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RoleOverride {
    /// The model for this role.
    pub model: Option<String>,
    /// The temperature for this role.
    pub temperature: Option<f64>,
}

/// What the command line says (every field optional: unset falls through to the next layer).
/// The pytest plugin sends it as JSON (`timeout_s` in seconds).
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct LlmOptions {
    /// `--offline`: never call a model.
    pub offline: bool,
    /// `--model`.
    pub model: Option<String>,
    /// `--base-url`.
    pub base_url: Option<String>,
    /// `--budget-usd`.
    pub budget_usd: Option<f64>,
    /// `--budget-tokens`.
    pub budget_tokens: Option<u64>,
    /// `--agents`.
    pub agents: Option<AgentsMode>,
    /// `--prompts DIR`.
    pub prompts: Option<PathBuf>,
    /// `--llm-timeout`.
    #[serde(rename = "timeout_s", deserialize_with = "seconds")]
    pub timeout: Option<Duration>,
    /// `--llm-mutants N`: model-written mutants per function.
    pub mutants: Option<usize>,
    /// `--explorer-calls N`: Explorer calls per function at most.
    pub explorer_calls: Option<usize>,
    /// `--llm-tests N`: the Tester's answers per witnessed survivor at most (0: none).
    pub tests: Option<usize>,
    /// `--reasoning-effort`: `minimal`, `low`, `medium` or `high`, for models that take it.
    pub reasoning_effort: Option<String>,
    /// `--white-box`: context-aware strategies also see the function's source.
    pub white_box: Option<bool>,
    /// `--role-model ROLE=MODEL` and `--role-temperature ROLE=T`.
    pub roles: BTreeMap<Role, RoleOverride>,
}

/// An optional duration written as seconds.
fn seconds<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Duration>, D::Error> {
    let s: Option<f64> = Option::deserialize(d)?;
    s.map(|s| Duration::try_from_secs_f64(s).map_err(serde::de::Error::custom)).transpose()
}

/// The `llm` table of the project's config file.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
struct FileConfig {
    model: Option<String>,
    base_url: Option<String>,
    budget_usd: Option<f64>,
    budget_tokens: Option<u64>,
    agents: Option<AgentsMode>,
    prompts: Option<PathBuf>,
    timeout_s: Option<f64>,
    retries: Option<u32>,
    concurrency: Option<usize>,
    json_mode: Option<JsonMode>,
    max_tokens: Option<u32>,
    mutants: Option<usize>,
    explorer_calls: Option<usize>,
    tests: Option<usize>,
    reasoning_effort: Option<String>,
    white_box: Option<bool>,
    #[serde(default)]
    roles: BTreeMap<Role, RoleOverride>,
    #[serde(default)]
    prices: BTreeMap<String, Price>,
}

/// The Tester's answers per witnessed survivor by default: its first test and 3 repair rounds
/// (`crate::llm::tester::REPAIR_ROUNDS`).
pub const DEFAULT_TESTER_ANSWERS: usize = 4;

/// The resolved model configuration.
#[derive(Clone, Debug, PartialEq)]
pub struct LlmConfig {
    /// The API key (may be empty for local servers that need none).
    pub api_key: String,
    /// The endpoint, up to and including `/v1`.
    pub base_url: String,
    /// The default model.
    pub model: String,
    /// Per-role overrides.
    pub roles: BTreeMap<Role, RoleOverride>,
    /// Money cap.
    pub budget_usd: Option<f64>,
    /// Token cap.
    pub budget_tokens: Option<u64>,
    /// Which agents take part.
    pub agents: AgentsMode,
    /// Prompt templates that override the built-in ones.
    pub prompts: Option<PathBuf>,
    /// Time limit of one request.
    pub timeout: Duration,
    /// Retries after the first attempt of a request.
    pub retries: u32,
    /// Requests in flight at once.
    pub concurrency: usize,
    /// How JSON is requested.
    pub json_mode: JsonMode,
    /// `max_tokens` of one answer.
    pub max_tokens: u32,
    /// Model-written mutants per function.
    pub mutants: usize,
    /// Explorer calls per function at most; 0: no fixed cap (the budgets and the function's
    /// share of the token budget bound them).
    pub explorer_calls: usize,
    /// The Tester's answers per witnessed survivor at most: its first test and the repair
    /// rounds after it (0: no model-written tests, the offline ones only).
    pub tests: usize,
    /// Whether context-aware strategies also see the function's source (paper 000 gives them
    /// the signature and docstring only; off by default).
    pub white_box: bool,
    /// `reasoning_effort` sent to models that take it (none: the endpoint's default).
    pub reasoning_effort: Option<String>,
    /// The price table.
    pub prices: Prices,
}

impl LlmConfig {
    /// The model of `role`.
    pub fn model_of(&self, role: Role) -> &str {
        self.roles.get(&role).and_then(|r| r.model.as_deref()).unwrap_or(&self.model)
    }

    /// The temperature of `role`.
    pub fn temperature_of(&self, role: Role) -> f64 {
        self.roles.get(&role).and_then(|r| r.temperature).unwrap_or(role.default_temperature())
    }

    /// A configuration for `base_url` with every default (tests, benchmarks).
    pub fn local(base_url: &str) -> LlmConfig {
        LlmConfig {
            api_key: String::new(),
            base_url: base_url.trim_end_matches('/').to_string(),
            model: DEFAULT_MODEL.into(),
            roles: BTreeMap::new(),
            budget_usd: None,
            budget_tokens: None,
            agents: AgentsMode::Full,
            prompts: None,
            timeout: Duration::from_secs(60),
            retries: 4,
            concurrency: 4,
            json_mode: JsonMode::Schema,
            max_tokens: 2_000,
            mutants: 3,
            explorer_calls: 0,
            tests: DEFAULT_TESTER_ANSWERS,
            white_box: false,
            reasoning_effort: None,
            prices: Prices::default(),
        }
    }
}

/// Why the configuration could not be resolved.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The config file does not parse or has unknown keys.
    #[error("failed to read the model settings in `{path}`: {message}\nhint: the `llm` table takes model, base_url, budget_usd, budget_tokens, agents, prompts, timeout_s, retries, concurrency, json_mode, max_tokens, mutants, explorer_calls, tests, reasoning_effort, white_box, [roles.<role>] and [prices.<model>]")]
    File {
        /// The file.
        path: PathBuf,
        /// The parser's message.
        message: String,
    },
}

/// What resolution decided.
#[derive(Clone, Debug, PartialEq)]
pub enum Resolved {
    /// Use the model.
    Model(Box<LlmConfig>),
    /// Use the offline engine, and why (`--offline`, no key).
    Offline(String),
}

/// Resolves the configuration for the project at `root`; `env` reads an environment variable.
pub fn resolve(
    cli: &LlmOptions,
    env: &dyn Fn(&str) -> Option<String>,
    root: &Path,
) -> Result<Resolved, ConfigError> {
    if cli.offline {
        return Ok(Resolved::Offline("--offline".into()));
    }
    let file = read_file_config(root)?.unwrap_or_default();
    let env = |k: &str| env(k).filter(|v| !v.is_empty());
    let base_url = cli
        .base_url
        .clone()
        .or_else(|| env("ABEX_BASE_URL"))
        .or(file.base_url.clone())
        .unwrap_or_else(|| DEFAULT_BASE_URL.into());
    let local = is_loopback(&base_url);
    let Some(api_key) = env("ABEX_API_KEY").or_else(|| env("OPENAI_API_KEY")).or_else(|| {
        // A local server (Ollama, vLLM, llama.cpp) usually needs no key.
        local.then(String::new)
    }) else {
        return Ok(Resolved::Offline("no key: set ABEX_API_KEY or OPENAI_API_KEY".into()));
    };
    let mut roles = file.roles.clone();
    for (role, o) in &cli.roles {
        let r = roles.entry(*role).or_default();
        r.model = o.model.clone().or(r.model.take());
        r.temperature = o.temperature.or(r.temperature);
    }
    let d = LlmConfig::local(&base_url);
    Ok(Resolved::Model(Box::new(LlmConfig {
        api_key,
        base_url: d.base_url,
        model: cli.model.clone().or_else(|| env("ABEX_MODEL")).or(file.model).unwrap_or(d.model),
        roles,
        budget_usd: cli.budget_usd.or(file.budget_usd),
        budget_tokens: cli.budget_tokens.or(file.budget_tokens),
        agents: cli.agents.or(file.agents).unwrap_or_default(),
        prompts: cli.prompts.clone().or(file.prompts.map(|p| root.join(p))),
        timeout: cli.timeout.or(file.timeout_s.map(Duration::from_secs_f64)).unwrap_or(d.timeout),
        retries: file.retries.unwrap_or(d.retries),
        concurrency: file.concurrency.unwrap_or(d.concurrency).max(1),
        json_mode: file.json_mode.unwrap_or_default(),
        max_tokens: file.max_tokens.unwrap_or(d.max_tokens),
        mutants: cli.mutants.or(file.mutants).unwrap_or(d.mutants),
        explorer_calls: cli.explorer_calls.or(file.explorer_calls).unwrap_or(d.explorer_calls),
        tests: cli.tests.or(file.tests).unwrap_or(d.tests),
        reasoning_effort: cli.reasoning_effort.clone().or(file.reasoning_effort),
        white_box: cli.white_box.or(file.white_box).unwrap_or(d.white_box),
        prices: Prices { extra: file.prices },
    })))
}

fn is_loopback(url: &str) -> bool {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    ["localhost", "127.", "[::1]"].iter().any(|p| rest.starts_with(p))
}

/// The `llm` table of `abex.toml`, `Cargo.toml` or `pyproject.toml` at `root`, first found wins.
fn read_file_config(root: &Path) -> Result<Option<FileConfig>, ConfigError> {
    let places: [(&str, &[&[&str]]); 3] = [
        ("abex.toml", &[&["llm"]]),
        (
            "Cargo.toml",
            &[&["package", "metadata", "abex", "llm"], &["workspace", "metadata", "abex", "llm"]],
        ),
        ("pyproject.toml", &[&["tool", "abex", "llm"]]),
    ];
    for (name, paths) in places {
        let path = root.join(name);
        let Ok(text) = std::fs::read_to_string(&path) else { continue };
        let err = |message: String| ConfigError::File { path: path.clone(), message };
        let doc: toml::Table = toml::from_str(&text).map_err(|e| err(e.to_string()))?;
        for keys in paths {
            let mut at = Some(&doc);
            for k in &keys[..keys.len() - 1] {
                at = at.and_then(|t| t.get(*k)).and_then(|v| v.as_table());
            }
            if let Some(v) = at.and_then(|t| t.get(keys[keys.len() - 1])) {
                let cfg = v
                    .clone()
                    .try_into::<FileConfig>()
                    .map_err(|e| err(format!("`{}`: {}", keys.join("."), e.to_string().trim())))?;
                return Ok(Some(cfg));
            }
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(vars: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Option<String> {
        move |k| vars.iter().find(|(n, _)| *n == k).map(|(_, v)| v.to_string())
    }

    fn model(r: Resolved) -> LlmConfig {
        match r {
            Resolved::Model(c) => *c,
            Resolved::Offline(why) => panic!("offline: {why}"),
        }
    }

    #[test]
    fn command_line_beats_environment_beats_project_file() {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(
            d.path().join("Cargo.toml"),
            "[package]\nname='x'\n[package.metadata.abex.llm]\nmodel='file-model'\nbudget_usd=1.0\ntests=0\n\
             base_url='http://127.0.0.1:9/file/v1'\n[package.metadata.abex.llm.roles.explorer]\ntemperature=0.3\n\
             [package.metadata.abex.llm.prices.file-model]\ninput=1.0\noutput=2.0\n",
        )
        .unwrap();
        let e = env(&[("OPENAI_API_KEY", "k1"), ("ABEX_MODEL", "env-model")]);
        let c = model(resolve(&LlmOptions::default(), &e, d.path()).unwrap());
        assert_eq!((c.api_key.as_str(), c.model.as_str()), ("k1", "env-model"));
        assert_eq!((c.base_url.as_str(), c.budget_usd), ("http://127.0.0.1:9/file/v1", Some(1.0)));
        assert_eq!(c.temperature_of(Role::Explorer), 0.3);
        assert_eq!(c.temperature_of(Role::Coordinator), 0.5);
        assert_eq!(c.prices.of("file-model").output_per_mtok, 2.0);
        assert_eq!(c.tests, 0, "the file's `tests`");
        let cli = LlmOptions {
            model: Some("cli-model".into()),
            budget_usd: Some(0.1),
            tests: Some(2),
            ..LlmOptions::default()
        };
        let e = env(&[("ABEX_API_KEY", "k2"), ("OPENAI_API_KEY", "k1"), ("ABEX_MODEL", "m")]);
        let c = model(resolve(&cli, &e, d.path()).unwrap());
        assert_eq!((c.api_key.as_str(), c.model.as_str()), ("k2", "cli-model"));
        assert_eq!(c.budget_usd, Some(0.1));
        assert_eq!(c.tests, 2);
    }

    #[test]
    fn no_key_is_offline_except_for_a_local_server() {
        let d = tempfile::tempdir().unwrap();
        let r = resolve(&LlmOptions::default(), &env(&[]), d.path()).unwrap();
        assert!(matches!(r, Resolved::Offline(why) if why.starts_with("no key")));
        let cli =
            LlmOptions { base_url: Some("http://localhost:11434/v1".into()), ..Default::default() };
        assert_eq!(model(resolve(&cli, &env(&[]), d.path()).unwrap()).api_key, "");
        let cli = LlmOptions { offline: true, ..cli };
        assert!(matches!(resolve(&cli, &env(&[]), d.path()).unwrap(), Resolved::Offline(_)));
    }

    #[test]
    fn unknown_keys_are_an_error_naming_the_file() {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join("abex.toml"), "[llm]\nmodle = 'x'\n").unwrap();
        let e = resolve(&LlmOptions::default(), &env(&[("ABEX_API_KEY", "k")]), d.path())
            .unwrap_err()
            .to_string();
        assert!(e.contains("abex.toml") && e.contains("modle"), "{e}");
    }
}
