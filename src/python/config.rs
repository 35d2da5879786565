//! The settings of a Python run as the pytest plugin sends them (JSON), and their resolution
//! into the spine's [`RunConfig`]. Every field is optional: what the user did not set takes the
//! core's [`Defaults`], the same as `cargo abex`'s.
//!
//! The plugin sends what the command line set apart from what the project's files set
//! (`pytest.ini`'s `abex_*` keys and `addopts`, `[tool.abex]`): a pull request writes those, so
//! their counts and time limits only tighten the command line's or the default, their model
//! settings are a project layer of [`crate::llm::config`], and every value is checked with an
//! error naming the file and the key.

use std::path::PathBuf;
use std::time::Duration;

use serde::Deserialize;

use crate::pipeline::{
    Defaults, LanguageOptions, PytestSession, PythonOptions, RunConfig, Selection,
};

/// The settings of a Python run, as the pytest plugin sends them.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PyRunConfig {
    /// The project folder (pytest's rootdir).
    pub root: PathBuf,
    /// The project's interpreter (`sys.executable`).
    pub python: Option<PathBuf>,
    /// `--abex-function FILE::NAME`; empty: the functions the diff touches.
    pub functions: Vec<String>,
    /// Every function of the project instead of the diff's.
    pub all: bool,
    /// `--abex-base`.
    pub base: Option<String>,
    /// `--abex-out` (default `.abex/out` at the root; relative to the root).
    pub out: Option<PathBuf>,
    /// Pairs per function.
    pub pairs: Option<usize>,
    /// Wall-time budget of the run, in seconds.
    pub time_budget_s: Option<f64>,
    /// Random seed.
    pub seed: Option<u64>,
    /// Per-call time limit in milliseconds.
    pub call_timeout_ms: Option<u64>,
    /// Worker memory limit in MiB (0: none).
    pub memory_limit_mib: Option<u64>,
    /// Mutants tested at a time (one runner process each).
    pub jobs: Option<usize>,
    /// Whether to test mutants.
    pub mutate: Option<bool>,
    /// Inputs of the differential witness search per survivor.
    pub witness_evals: Option<usize>,
    /// Time limit of one mutant's tests, in seconds (default: from the baseline).
    pub test_timeout_s: Option<f64>,
    /// `k/n`: analyse only shard `k` of `n` of the functions.
    pub shard: Option<(usize, usize)>,
    /// `--abex-write-tests`: write the suggested tests into the project's test files.
    pub write_tests: bool,
    /// The model settings (`--abex-model`, `--abex-base-url`, budgets, agents, `--abex-offline`).
    pub llm: crate::llm::config::LlmOptions,
    /// How the user's pytest session ran the suite (`pytest_abex.suite`).
    pub suite: PytestSession,
    /// The settings the project's files set (see the module documentation).
    pub project: Vec<FromFile>,
    /// The interpreter's version and installed distributions, read by the plugin in the
    /// session's process (`pytest_abex.plugin._interpreter`): no interpreter starts to say it.
    pub interpreter: Option<String>,
}

/// One setting from one of the project's files, as the plugin read it.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FromFile {
    /// The file.
    pub file: PathBuf,
    /// The key as written there (`abex_pairs`, `tool.abex.pairs`, `addopts --abex-pairs`).
    pub key: String,
    /// The setting: its ini name (`abex_pairs`).
    pub name: String,
    /// The value: text from an ini file, a TOML value from `[tool.abex]`.
    pub value: serde_json::Value,
}

impl FromFile {
    fn at(&self) -> String {
        format!("`{}` key `{}`", self.file.display(), self.key)
    }

    fn error(&self, what: &str) -> String {
        format!(
            "invalid setting {}: `{}` is not {what}\nhint: fix or remove it; the command line's \
             settings come first, and the project's files may only lower a count or a time limit",
            self.at(),
            self.text()
        )
    }

    fn text(&self) -> String {
        match &self.value {
            serde_json::Value::String(s) => s.clone(),
            v => v.to_string(),
        }
    }

    /// The value as a number, when it is one (or text that parses as one).
    fn number(&self) -> Option<f64> {
        match &self.value {
            serde_json::Value::Number(n) => n.as_f64(),
            serde_json::Value::String(s) => s.trim().parse().ok(),
            _ => None,
        }
    }

    /// A whole number of at least `min`.
    fn count(&self, min: u64) -> Result<u64, String> {
        let whole = |n: f64| n.fract() == 0.0 && n >= min as f64 && n <= u64::MAX as f64;
        match self.number().filter(|n| whole(*n)) {
            Some(n) => Ok(n as u64),
            None => Err(self.error(&format!("a whole number of at least {min}"))),
        }
    }

    /// A positive, finite number of seconds.
    fn seconds(&self) -> Result<Duration, String> {
        self.number()
            .and_then(|s| Duration::try_from_secs_f64(s).ok())
            .filter(|d| !d.is_zero())
            .ok_or_else(|| self.error("a positive number of seconds"))
    }

    /// The value as text.
    fn string(&self) -> Result<String, String> {
        match &self.value {
            serde_json::Value::String(s) => Ok(s.clone()),
            _ => Err(self.error("text")),
        }
    }

    /// The model setting it holds, as a layer of the model configuration.
    fn llm_layer(&self) -> Result<Option<crate::llm::config::ProjectLayer>, String> {
        use crate::llm::config::{FileConfig, ProjectLayer};
        let mut cfg = FileConfig::default();
        match self.name.as_str() {
            "abex_model" => cfg.model = Some(self.string()?),
            "abex_base_url" => cfg.base_url = Some(self.string()?),
            "abex_budget_usd" => {
                let usd = self.number().filter(|n| n.is_finite() && *n >= 0.0);
                cfg.budget_usd = Some(usd.ok_or_else(|| self.error("a non-negative number"))?);
            }
            "abex_budget_tokens" => cfg.budget_tokens = Some(self.count(0)?),
            "abex_agents" => {
                let mode = self.string()?.parse::<crate::llm::config::AgentsMode>();
                cfg.agents =
                    Some(mode.map_err(|_| self.error("full, no-ideator or explorer-only"))?);
            }
            "abex_reasoning_effort" => cfg.reasoning_effort = Some(self.string()?),
            "abex_prompts" => cfg.prompts = Some(PathBuf::from(self.string()?)),
            "abex_llm_mutants" => cfg.mutants = Some(as_usize(self.count(0)?)),
            "abex_explorer_calls" => cfg.explorer_calls = Some(as_usize(self.count(0)?)),
            "abex_llm_tests" => cfg.tests = Some(as_usize(self.count(0)?)),
            "abex_llm_timeout" => cfg.timeout_s = Some(self.seconds()?.as_secs_f64()),
            _ => return Ok(None),
        }
        let (path, key) = (self.file.clone(), Some(self.key.clone()));
        Ok(Some(ProjectLayer { path, table: String::new(), key, cfg }))
    }
}

fn as_usize(n: u64) -> usize {
    usize::try_from(n).unwrap_or(usize::MAX)
}

/// The tighter of a trusted value and a project file's.
fn tighter<T: Ord>(trusted: T, file: Option<T>) -> T {
    match file {
        Some(f) if f < trusted => f,
        _ => trusted,
    }
}

impl PyRunConfig {
    /// The run's configuration: what was set, and [`Defaults`] for the rest.
    pub fn resolve(self) -> Result<RunConfig, String> {
        let root = self.root.canonicalize().unwrap_or_else(|_| self.root.clone());
        let seconds = |s: Option<f64>, what: &str| {
            s.map(|s| {
                Duration::try_from_secs_f64(s)
                    .map_err(|_| format!("`{what}` must be a positive number of seconds, not {s}"))
            })
            .transpose()
        };
        let python = self.python.unwrap_or_else(|| PathBuf::from("python3"));
        let mut cfg = RunConfig::new(LanguageOptions::Python(PythonOptions {
            root: root.clone(),
            python,
            session: self.suite,
            interpreter: self.interpreter,
        }));
        cfg.selection = if !self.functions.is_empty() {
            Selection::Functions(self.functions)
        } else if self.all {
            Selection::All
        } else {
            Selection::Diff
        };
        cfg.base = self.base;
        cfg.out = self.out.map(|o| if o.is_absolute() { o } else { root.join(o) });
        cfg.out_flag = "`--abex-out` (or `out` in `[tool.abex]`)".into();
        cfg.pairs = self.pairs.unwrap_or(Defaults::PAIRS);
        cfg.time_budget = seconds(self.time_budget_s, "time_budget_s")?;
        cfg.seed = self.seed.unwrap_or(Defaults::SEED);
        cfg.call_timeout =
            self.call_timeout_ms.map_or(Defaults::CALL_TIMEOUT, Duration::from_millis);
        cfg.memory_limit_mib = self.memory_limit_mib.unwrap_or(Defaults::MEMORY_LIMIT_MIB);
        cfg.cwd = root;
        cfg.mutate = self.mutate.unwrap_or(true);
        cfg.jobs = self.jobs.unwrap_or_else(Defaults::jobs).max(1);
        cfg.witness_evals = self.witness_evals.unwrap_or(Defaults::WITNESS_EVALS);
        cfg.test_timeout = seconds(self.test_timeout_s, "test_timeout_s")?;
        cfg.shard = self.shard;
        cfg.write_tests = self.write_tests;
        cfg.llm = self.llm;
        for f in &self.project {
            match f.name.as_str() {
                "abex_pairs" => cfg.pairs = tighter(cfg.pairs, Some(as_usize(f.count(1)?))),
                "abex_jobs" => cfg.jobs = tighter(cfg.jobs, Some(as_usize(f.count(1)?))),
                "abex_call_timeout" => {
                    let ms = Duration::from_millis(f.count(1)?);
                    cfg.call_timeout = tighter(cfg.call_timeout, Some(ms));
                }
                "abex_time_budget" => {
                    let limit = f.seconds()?;
                    cfg.time_budget = Some(cfg.time_budget.map_or(limit, |t| t.min(limit)));
                }
                // A seed changes which inputs are tried, not how much is spent.
                "abex_seed" if self.seed.is_none() => cfg.seed = f.count(0)?,
                "abex_seed" => {}
                _ => match f.llm_layer()? {
                    Some(layer) => cfg.llm.project.push(layer),
                    None => return Err(f.error("a setting the project's files may set")),
                },
            }
        }
        Ok(cfg)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_the_plugin_leaves_unset_takes_the_cores_defaults() {
        let cfg: PyRunConfig = serde_json::from_str(r#"{"root": ".", "python": "py"}"#).unwrap();
        let cfg = cfg.resolve().unwrap();
        let rust = RunConfig::new(LanguageOptions::Rust(Default::default()));
        assert_eq!(cfg.pairs, rust.pairs);
        assert_eq!(cfg.call_timeout, rust.call_timeout);
        assert_eq!(cfg.memory_limit_mib, rust.memory_limit_mib);
        assert_eq!(cfg.witness_evals, rust.witness_evals);
        assert_eq!(cfg.jobs, rust.jobs);
        assert_eq!(cfg.seed, rust.seed);
        assert_eq!(cfg.time_budget, rust.time_budget);
        assert!(
            serde_json::from_str::<PyRunConfig>(r#"{"pairz": 3}"#).is_err(),
            "unknown keys are errors"
        );
        let bad: PyRunConfig = serde_json::from_str(r#"{"time_budget_s": -1}"#).unwrap();
        assert!(bad.resolve().unwrap_err().contains("time_budget_s"));
    }

    fn with_files(cli: &str, files: &str) -> Result<RunConfig, String> {
        let text = format!(r#"{{"root": ".", {cli} "project": [{files}]}}"#);
        serde_json::from_str::<PyRunConfig>(&text).unwrap().resolve()
    }

    #[test]
    fn the_project_s_files_only_tighten_counts_and_time_limits() {
        let f = |name: &str, value: &str| {
            format!(
                r#"{{"file": "pytest.ini", "key": "{name}", "name": "{name}", "value": {value}}}"#
            )
        };
        let files = [
            f("abex_pairs", r#""100000""#),
            f("abex_jobs", "64"),
            f("abex_call_timeout", r#""60000""#),
            f("abex_time_budget", r#""30""#),
        ]
        .join(",");
        let cfg = with_files(r#""pairs": 50, "jobs": 2,"#, &files).unwrap();
        assert_eq!((cfg.pairs, cfg.jobs, cfg.call_timeout), (50, 2, Defaults::CALL_TIMEOUT));
        assert_eq!(cfg.time_budget, Some(Duration::from_secs(30)), "a budget where none was set");
        let cfg = with_files(r#""time_budget_s": 10,"#, &f("abex_pairs", r#""20""#)).unwrap();
        assert_eq!((cfg.pairs, cfg.time_budget), (20, Some(Duration::from_secs(10))));
        let model = with_files("", &f("abex_base_url", r#""http://evil.test/v1""#)).unwrap();
        assert_eq!(model.llm.project.len(), 1);
        assert_eq!(model.llm.project[0].cfg.base_url.as_deref(), Some("http://evil.test/v1"));
    }

    #[test]
    fn a_bad_value_in_a_project_file_is_an_error_naming_the_file_and_the_key() {
        for (name, value) in [
            ("abex_time_budget", r#""-5""#),
            ("abex_time_budget", r#""nan""#),
            ("abex_call_timeout", r#""0""#),
            ("abex_pairs", r#""lots""#),
            ("abex_budget_usd", r#""-1""#),
            ("abex_budget_usd", r#""inf""#),
            ("abex_agents", r#""everyone""#),
            ("abex_offline", "true"),
        ] {
            let file = format!(
                r#"{{"file": "tox.ini", "key": "addopts --x", "name": "{name}", "value": {value}}}"#
            );
            let e = with_files("", &file).unwrap_err();
            assert!(
                e.contains("`tox.ini` key `addopts --x`") && e.contains("hint:"),
                "{name}: {e}"
            );
        }
    }
}
