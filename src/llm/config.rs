//! The model configuration of a run, resolved once from, in order of precedence: the command
//! line ([`LlmOptions`]), the environment (`ABEX_API_KEY` or `OPENAI_API_KEY`, `ABEX_BASE_URL`,
//! `ABEX_MODEL`, `ABEX_PRICES`), the project's config file (`abex.toml` `[llm]`, or the root
//! `Cargo.toml`'s `[package.metadata.abex.llm]` / `[workspace.metadata.abex.llm]`, or
//! `pyproject.toml`'s `[tool.abex.llm]`, and what a front end read from its own files, such as
//! `pytest.ini`), and the defaults below. The API key is never read from a file that may be
//! committed. Unknown keys in the `llm` table are an error naming the file.
//!
//! A pull request controls the project's files, so they cannot loosen what the command line and
//! the environment set: a key is sent only to an endpoint named on the command line or in the
//! environment (a file may name one only for a run without a key), and the files' budgets,
//! counts, time limits and prices only tighten (the smaller budget, the higher price). Every
//! number is checked to be finite and in range, with an error naming where it came from.

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
    /// Model settings a front end read from the project's own files besides the `llm` table
    /// (the pytest plugin: `pytest.ini`'s `abex_*` keys, `[tool.abex]`): a project layer, which
    /// may only tighten (see the module documentation).
    #[serde(skip)]
    pub project: Vec<ProjectLayer>,
}

/// Model settings from one of the project's files, and where they were read.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ProjectLayer {
    /// The file.
    pub path: PathBuf,
    /// The table they were read from with a trailing dot (`llm.`, `package.metadata.abex.llm.`),
    /// for errors, which name the table and the key.
    pub table: String,
    /// The exact key to name in errors instead, for a layer holding one setting
    /// (`abex_budget_usd` in `pytest.ini`, `addopts --abex-base-url`).
    pub key: Option<String>,
    /// The settings.
    pub cfg: FileConfig,
}

/// An optional duration written as seconds.
fn seconds<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Duration>, D::Error> {
    let s: Option<f64> = Option::deserialize(d)?;
    s.map(|s| Duration::try_from_secs_f64(s).map_err(serde::de::Error::custom)).transpose()
}

/// The `llm` table of the project's config file (the keys of the configuration table in
/// `docs/llm.md`).
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(missing_docs)]
pub struct FileConfig {
    pub model: Option<String>,
    pub base_url: Option<String>,
    pub budget_usd: Option<f64>,
    pub budget_tokens: Option<u64>,
    pub agents: Option<AgentsMode>,
    pub prompts: Option<PathBuf>,
    pub timeout_s: Option<f64>,
    pub retries: Option<u32>,
    pub concurrency: Option<usize>,
    pub json_mode: Option<JsonMode>,
    pub max_tokens: Option<u32>,
    pub mutants: Option<usize>,
    pub explorer_calls: Option<usize>,
    pub tests: Option<usize>,
    pub reasoning_effort: Option<String>,
    pub white_box: Option<bool>,
    #[serde(default)]
    pub roles: BTreeMap<Role, RoleOverride>,
    #[serde(default)]
    pub prices: BTreeMap<String, Price>,
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

impl ProjectLayer {
    /// Where `key` of this layer was set, for errors: `` `abex.toml` key `llm.timeout_s` ``.
    pub fn at(&self, key: &str) -> String {
        let key = self.key.clone().unwrap_or_else(|| format!("{}{key}", self.table));
        format!("`{}` key `{key}`", self.path.display())
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
    /// A number is out of range (negative, not finite, too large).
    #[error("invalid model setting {at}: {message}\nhint: {hint}")]
    Value {
        /// Where it was set: a flag, an environment variable, or a file and its key.
        at: String,
        /// What is wrong.
        message: String,
        /// How to fix it.
        hint: &'static str,
    },
    /// A project file names the endpoint of a run whose key comes from the environment.
    #[error("refused: {at} names the endpoint `{url}`, but the API key comes from the environment; abex sends a key only to an endpoint named on the command line or in the environment, so that a pull request's files cannot redirect it\nhint: name the endpoint with `--base-url` or `ABEX_BASE_URL` (the Action's `base-url` input), or run without a key (a local server needs none)")]
    KeyEndpoint {
        /// The file and its key.
        at: String,
        /// The endpoint the file names.
        url: String,
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

/// Where a command-line value was set, for errors (the pytest plugin's names differ).
fn flag(name: &str) -> String {
    format!("`--{name}`")
}

/// `value` checked to be a finite number in `[0, max]`, else an error naming `at`.
fn in_range(at: impl Fn() -> String, value: f64, max: f64) -> Result<f64, ConfigError> {
    if value.is_finite() && (0.0..=max).contains(&value) {
        return Ok(value);
    }
    let message = if value.is_finite() {
        format!("{value} is not between 0 and {max}")
    } else {
        format!("{value} is not a finite number")
    };
    Err(ConfigError::Value { at: at(), message, hint: "give a finite, non-negative number" })
}

/// Seconds as a positive duration, else an error naming `at`.
fn duration(at: impl Fn() -> String, secs: f64) -> Result<Duration, ConfigError> {
    match Duration::try_from_secs_f64(secs) {
        Ok(d) if d > Duration::ZERO => Ok(d),
        _ => Err(ConfigError::Value {
            at: at(),
            message: format!("{secs} is not a positive number of seconds"),
            hint: "give a time limit in seconds greater than 0, e.g. 60",
        }),
    }
}

/// The smaller of a trusted value (command line or default) and a project file's, which may
/// only tighten it.
fn tighter<T: PartialOrd + Copy>(trusted: Option<T>, file: Option<T>) -> Option<T> {
    match (trusted, file) {
        (Some(t), Some(f)) => Some(if f < t { f } else { t }),
        (t, f) => t.or(f),
    }
}

/// The smallest of the project layers' values of one setting.
fn file_min<T: Ord + Copy>(
    layers: &[ProjectLayer],
    get: impl Fn(&FileConfig) -> Option<T>,
) -> Option<T> {
    layers.iter().filter_map(|l| get(&l.cfg)).min()
}

/// A count where 0 means "no cap": the file's only tightens, so its 0 never lifts a cap.
fn tighter_cap(trusted: usize, file: Option<usize>) -> usize {
    match file {
        Some(f) if f > 0 && (trusted == 0 || f < trusted) => f,
        _ => trusted,
    }
}

/// The project's layers, validated: the `llm` table of its config file, then what the front
/// end read from its own files.
fn project_layers(cli: &LlmOptions, root: &Path) -> Result<Vec<ProjectLayer>, ConfigError> {
    let mut layers: Vec<ProjectLayer> = read_file_config(root)?.into_iter().collect();
    layers.extend(cli.project.iter().cloned());
    for l in &layers {
        let at = |key: &str| l.at(key);
        let c = &l.cfg;
        if let Some(v) = c.budget_usd {
            in_range(|| at("budget_usd"), v, f64::MAX)?;
        }
        if let Some(v) = c.timeout_s {
            duration(|| at("timeout_s"), v)?;
        }
        for (role, r) in &c.roles {
            if let Some(t) = r.temperature {
                in_range(|| at(&format!("roles.{}.temperature", role.name())), t, 2.0)?;
            }
        }
        if let Some(p) = &c.prompts {
            let inside = p.components().all(|c| {
                matches!(c, std::path::Component::Normal(_) | std::path::Component::CurDir)
            });
            if !inside {
                return Err(ConfigError::Value {
                    at: at("prompts"),
                    message: format!("`{}` is not a folder inside the project", p.display()),
                    hint: "name a folder relative to the project root, or pass --prompts DIR",
                });
            }
        }
        for (model, p) in &c.prices {
            in_range(|| at(&format!("prices.\"{model}\".input")), p.input_per_mtok, f64::MAX)?;
            in_range(|| at(&format!("prices.\"{model}\".output")), p.output_per_mtok, f64::MAX)?;
        }
    }
    Ok(layers)
}

/// The command line's numbers, validated.
fn check_options(cli: &LlmOptions) -> Result<(), ConfigError> {
    if let Some(v) = cli.budget_usd {
        in_range(|| flag("budget-usd"), v, f64::MAX)?;
    }
    for (role, r) in &cli.roles {
        if let Some(t) = r.temperature {
            in_range(|| format!("`--role-temperature {}=…`", role.name()), t, 2.0)?;
        }
    }
    if cli.timeout.is_some_and(|t| t.is_zero()) {
        return Err(ConfigError::Value {
            at: flag("llm-timeout"),
            message: "0 s leaves no time for a request".into(),
            hint: "give a time limit greater than 0, e.g. 60s",
        });
    }
    Ok(())
}

/// `ABEX_PRICES`: `MODEL=INPUT/OUTPUT` entries separated by `,` (US dollars per million
/// tokens), the prices a run with a key trusts besides the built-in table.
pub fn parse_prices(text: &str) -> Result<BTreeMap<String, Price>, ConfigError> {
    let at = || "`ABEX_PRICES`".to_string();
    let mut out = BTreeMap::new();
    for entry in text.split(',').map(str::trim).filter(|e| !e.is_empty()) {
        let parsed = entry.rsplit_once('=').and_then(|(model, p)| {
            let (i, o) = p.split_once('/')?;
            Some((model.trim(), i.trim().parse::<f64>().ok()?, o.trim().parse::<f64>().ok()?))
        });
        let Some((model, input, output)) = parsed.filter(|(m, ..)| !m.is_empty()) else {
            return Err(ConfigError::Value {
                at: at(),
                message: format!("`{entry}` is not MODEL=INPUT/OUTPUT"),
                hint: "write e.g. ABEX_PRICES=\"my-model=0.5/1.5,other=1/4\" (US dollars per million input/output tokens)",
            });
        };
        let price = Price {
            input_per_mtok: in_range(at, input, f64::MAX)?,
            output_per_mtok: in_range(at, output, f64::MAX)?,
        };
        out.insert(model.to_string(), price);
    }
    Ok(out)
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
    check_options(cli)?;
    let layers = project_layers(cli, root)?;
    let env = |k: &str| env(k).filter(|v| !v.is_empty());
    // The first layer that sets a value gives it (strings); numbers take the tightest.
    let first =
        |get: &dyn Fn(&FileConfig) -> Option<String>| layers.iter().find_map(|l| get(&l.cfg));
    let trusted_url = cli.base_url.clone().or_else(|| env("ABEX_BASE_URL"));
    let file_url = layers.iter().find_map(|l| l.cfg.base_url.clone().map(|u| (l, u)));
    let key = env("ABEX_API_KEY").or_else(|| env("OPENAI_API_KEY"));
    let base_url = match (&trusted_url, &file_url, &key) {
        (Some(url), ..) => url.clone(),
        (None, Some((l, url)), Some(_)) => {
            let at = l.at("base_url");
            return Err(ConfigError::KeyEndpoint { at, url: url.clone() });
        }
        (None, Some((_, url)), None) => url.clone(),
        (None, None, _) => DEFAULT_BASE_URL.into(),
    };
    // A local server (Ollama, vLLM, llama.cpp) usually needs no key.
    let Some(api_key) = key.clone().or_else(|| is_loopback(&base_url).then(String::new)) else {
        return Ok(Resolved::Offline("no key: set ABEX_API_KEY or OPENAI_API_KEY".into()));
    };
    let mut roles: BTreeMap<Role, RoleOverride> = BTreeMap::new();
    for l in layers.iter().rev() {
        for (role, o) in &l.cfg.roles {
            let r = roles.entry(*role).or_default();
            r.model = o.model.clone().or(r.model.take());
            r.temperature = o.temperature.or(r.temperature);
        }
    }
    for (role, o) in &cli.roles {
        let r = roles.entry(*role).or_default();
        r.model = o.model.clone().or(r.model.take());
        r.temperature = o.temperature.or(r.temperature);
    }
    let mut project_prices: BTreeMap<String, Price> = BTreeMap::new();
    for l in &layers {
        for (model, p) in &l.cfg.prices {
            let e = project_prices.entry(model.clone()).or_insert(*p);
            e.input_per_mtok = e.input_per_mtok.max(p.input_per_mtok);
            e.output_per_mtok = e.output_per_mtok.max(p.output_per_mtok);
        }
    }
    let trusted_prices = env("ABEX_PRICES").map(|t| parse_prices(&t)).transpose()?;
    let d = LlmConfig::local(&base_url);
    let file_usd = layers.iter().filter_map(|l| l.cfg.budget_usd).reduce(f64::min);
    let file_timeout = layers.iter().filter_map(|l| l.cfg.timeout_s).reduce(f64::min);
    let file_cap = layers.iter().filter_map(|l| l.cfg.explorer_calls.filter(|&n| n > 0)).min();
    Ok(Resolved::Model(Box::new(LlmConfig {
        api_key,
        base_url: d.base_url,
        model: cli
            .model
            .clone()
            .or_else(|| env("ABEX_MODEL"))
            .or_else(|| first(&|c| c.model.clone()))
            .unwrap_or(d.model),
        roles,
        budget_usd: tighter(cli.budget_usd, file_usd),
        budget_tokens: tighter(cli.budget_tokens, file_min(&layers, |c| c.budget_tokens)),
        agents: cli.agents.or_else(|| layers.iter().find_map(|l| l.cfg.agents)).unwrap_or_default(),
        prompts: cli
            .prompts
            .clone()
            .or_else(|| layers.iter().find_map(|l| l.cfg.prompts.as_ref().map(|p| root.join(p)))),
        timeout: cli
            .timeout
            .unwrap_or(d.timeout)
            .min(file_timeout.map_or(Duration::MAX, Duration::from_secs_f64)),
        retries: d.retries.min(file_min(&layers, |c| c.retries).unwrap_or(u32::MAX)),
        concurrency: d
            .concurrency
            .min(file_min(&layers, |c| c.concurrency).unwrap_or(usize::MAX))
            .max(1),
        json_mode: layers.iter().find_map(|l| l.cfg.json_mode).unwrap_or_default(),
        max_tokens: d.max_tokens.min(file_min(&layers, |c| c.max_tokens).unwrap_or(u32::MAX)),
        mutants: cli
            .mutants
            .unwrap_or(d.mutants)
            .min(file_min(&layers, |c| c.mutants).unwrap_or(usize::MAX)),
        explorer_calls: tighter_cap(cli.explorer_calls.unwrap_or(d.explorer_calls), file_cap),
        tests: cli
            .tests
            .unwrap_or(d.tests)
            .min(file_min(&layers, |c| c.tests).unwrap_or(usize::MAX)),
        reasoning_effort: cli
            .reasoning_effort
            .clone()
            .or_else(|| first(&|c| c.reasoning_effort.clone())),
        white_box: cli
            .white_box
            .or_else(|| layers.iter().find_map(|l| l.cfg.white_box))
            .unwrap_or(d.white_box),
        prices: Prices {
            trusted: trusted_prices.unwrap_or_default(),
            project: project_prices,
            // Without a key nothing is spent on a hosted API: the project may price any model
            // (a local server's 0). With one, it may only raise a built-in price.
            project_prices_unknown: key.is_none(),
        },
    })))
}

fn is_loopback(url: &str) -> bool {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    ["localhost", "127.", "[::1]"].iter().any(|p| rest.starts_with(p))
}

/// The `llm` table of `abex.toml`, `Cargo.toml` or `pyproject.toml` at `root`, first found wins.
fn read_file_config(root: &Path) -> Result<Option<ProjectLayer>, ConfigError> {
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
                let table = format!("{}.", keys.join("."));
                return Ok(Some(ProjectLayer { path, table, cfg, key: None }));
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
             [package.metadata.abex.llm.roles.explorer]\ntemperature=0.3\n\
             [package.metadata.abex.llm.prices.gpt-5]\ninput=100.0\noutput=2.0\n",
        )
        .unwrap();
        let e = env(&[("OPENAI_API_KEY", "k1"), ("ABEX_MODEL", "env-model")]);
        let c = model(resolve(&LlmOptions::default(), &e, d.path()).unwrap());
        assert_eq!((c.api_key.as_str(), c.model.as_str()), ("k1", "env-model"));
        assert_eq!((c.base_url.as_str(), c.budget_usd), (DEFAULT_BASE_URL, Some(1.0)));
        assert_eq!(c.temperature_of(Role::Explorer), 0.3);
        assert_eq!(c.temperature_of(Role::Coordinator), 0.5);
        // The file's price is higher than the built-in input price, lower than its output.
        assert_eq!(c.prices.of("gpt-5").input_per_mtok, 100.0);
        assert_eq!(c.prices.of("gpt-5").output_per_mtok, 10.0);
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
        assert_eq!(c.tests, 0, "the file's smaller count holds against the command line's");
    }

    #[test]
    fn a_key_goes_only_to_an_endpoint_the_command_line_or_the_environment_names() {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join("abex.toml"), "[llm]\nbase_url = 'https://evil.test/v1'\n")
            .unwrap();
        let key = env(&[("ABEX_API_KEY", "sk-1")]);
        let e = resolve(&LlmOptions::default(), &key, d.path()).unwrap_err().to_string();
        assert!(e.starts_with("refused: `") && e.contains("abex.toml` key `llm.base_url`"), "{e}");
        assert!(e.contains("https://evil.test/v1") && e.contains("hint:"), "{e}");
        // Named by the environment or the command line, the endpoint is the user's.
        let both = env(&[("ABEX_API_KEY", "sk-1"), ("ABEX_BASE_URL", "https://proxy.test/v1")]);
        let c = model(resolve(&LlmOptions::default(), &both, d.path()).unwrap());
        assert_eq!((c.base_url.as_str(), c.api_key.as_str()), ("https://proxy.test/v1", "sk-1"));
        let cli = LlmOptions { base_url: Some("https://cli.test/v1".into()), ..Default::default() };
        assert_eq!(model(resolve(&cli, &key, d.path()).unwrap()).base_url, "https://cli.test/v1");
        // Without a key the file may name one: a loopback server needs no key, another is offline.
        std::fs::write(d.path().join("abex.toml"), "[llm]\nbase_url = 'http://127.0.0.1:9/v1'\n")
            .unwrap();
        let c = model(resolve(&LlmOptions::default(), &env(&[]), d.path()).unwrap());
        assert_eq!((c.base_url.as_str(), c.api_key.as_str()), ("http://127.0.0.1:9/v1", ""));
        assert!(resolve(&LlmOptions::default(), &key, d.path()).is_err());
        // The pytest plugin's layer (pytest.ini) is held to the same rule.
        std::fs::remove_file(d.path().join("abex.toml")).unwrap();
        let ini = ProjectLayer {
            path: "pytest.ini".into(),
            table: String::new(),
            key: Some("abex_base_url".into()),
            cfg: FileConfig { base_url: Some("http://evil.test/v1".into()), ..Default::default() },
        };
        let cli = LlmOptions { project: vec![ini], ..Default::default() };
        let e = resolve(&cli, &key, d.path()).unwrap_err().to_string();
        assert!(e.contains("`pytest.ini` key `abex_base_url`"), "{e}");
    }

    #[test]
    fn the_project_s_numbers_only_tighten() {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(
            d.path().join("abex.toml"),
            "[llm]\nbudget_usd = 50.0\nbudget_tokens = 10\ntimeout_s = 1e9\nretries = 99\n\
             concurrency = 64\nmax_tokens = 100000\nmutants = 1000\ntests = 1\nexplorer_calls = 0\n",
        )
        .unwrap();
        let key = env(&[("ABEX_API_KEY", "k")]);
        let cli =
            LlmOptions { budget_usd: Some(0.1), budget_tokens: Some(1000), ..Default::default() };
        let c = model(resolve(&cli, &key, d.path()).unwrap());
        let d0 = LlmConfig::local("x");
        assert_eq!((c.budget_usd, c.budget_tokens), (Some(0.1), Some(10)));
        assert_eq!((c.timeout, c.retries, c.concurrency), (d0.timeout, d0.retries, d0.concurrency));
        assert_eq!((c.max_tokens, c.mutants, c.tests), (d0.max_tokens, d0.mutants, 1));
        let cli = LlmOptions { explorer_calls: Some(5), ..Default::default() };
        assert_eq!(
            model(resolve(&cli, &key, d.path()).unwrap()).explorer_calls,
            5,
            "0 lifts no cap"
        );
    }

    #[test]
    fn numbers_out_of_range_are_errors_naming_the_file_and_key_never_a_panic() {
        let d = tempfile::tempdir().unwrap();
        let key = env(&[("ABEX_API_KEY", "k")]);
        for (toml, named) in [
            ("timeout_s = -1", "llm.timeout_s"),
            ("timeout_s = 0", "llm.timeout_s"),
            ("timeout_s = nan", "llm.timeout_s"),
            ("budget_usd = -0.5", "llm.budget_usd"),
            ("budget_usd = inf", "llm.budget_usd"),
            ("[llm.prices.gpt-5-mini]\ninput = nan\noutput = 1", "llm.prices.\"gpt-5-mini\".input"),
            ("[llm.prices.gpt-5-mini]\ninput = 0\noutput = -1", "llm.prices.\"gpt-5-mini\".output"),
            ("[llm.roles.explorer]\ntemperature = 9", "llm.roles.explorer.temperature"),
            ("prompts = '../../etc'", "llm.prompts"),
            ("retries = -1", "retries"),
        ] {
            let text = if toml.starts_with('[') {
                format!("{toml}\n")
            } else {
                format!("[llm]\n{toml}\n")
            };
            std::fs::write(d.path().join("abex.toml"), text).unwrap();
            let e = resolve(&LlmOptions::default(), &key, d.path()).unwrap_err().to_string();
            assert!(
                e.contains("abex.toml") && e.contains(named) && e.contains("hint:"),
                "{toml}: {e}"
            );
        }
        std::fs::remove_file(d.path().join("abex.toml")).unwrap();
        for (cli, named) in [
            (LlmOptions { budget_usd: Some(f64::NAN), ..Default::default() }, "--budget-usd"),
            (LlmOptions { budget_usd: Some(-1.0), ..Default::default() }, "--budget-usd"),
            (LlmOptions { timeout: Some(Duration::ZERO), ..Default::default() }, "--llm-timeout"),
        ] {
            let e = resolve(&cli, &key, d.path()).unwrap_err().to_string();
            assert!(e.contains(named), "{e}");
        }
        let bad = env(&[("ABEX_API_KEY", "k"), ("ABEX_PRICES", "m=1/nan")]);
        let e = resolve(&LlmOptions::default(), &bad, d.path()).unwrap_err().to_string();
        assert!(e.contains("ABEX_PRICES"), "{e}");
        let ok = env(&[("ABEX_API_KEY", "k"), ("ABEX_PRICES", "m=1/4, other=0.5/2")]);
        let c = model(resolve(&LlmOptions::default(), &ok, d.path()).unwrap());
        assert_eq!(c.prices.known("m"), Some(Price { input_per_mtok: 1.0, output_per_mtok: 4.0 }));
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
