//! The settings of a Python run as the pytest plugin sends them (JSON), and their resolution
//! into the spine's [`RunConfig`]. Every field is optional: what the user did not set takes the
//! core's [`Defaults`], the same as `cargo abex`'s.

use std::path::PathBuf;
use std::time::Duration;

use serde::Deserialize;

use crate::pipeline::{Defaults, LanguageOptions, PythonOptions, RunConfig, Selection};

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
    /// How the user's pytest runs the suite (`pytest_abex.suite`).
    pub suite: SuiteSettings,
}

/// How the outer pytest session ran the suite, for the inner runner to run it the same way.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SuiteSettings {
    /// The outer session's options the runner passes on (`--ignore`, `-p`, `-k`, `-W`, `-o`, …).
    pub pytest_args: Vec<String>,
    /// The files the outer session collected tests from, relative to the root; `None`: it
    /// collected none itself (an xdist controller).
    pub test_files: Option<Vec<PathBuf>>,
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
            pytest_args: self.suite.pytest_args,
            test_files: self.suite.test_files,
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
}
