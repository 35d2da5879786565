//! One run's settings, resolved once by a front end (`cargo abex`'s command line, the pytest
//! plugin's options) into [`RunConfig`]: the settings every language shares, plus a language
//! section that only that language's front end reads. The defaults live here, once, in
//! [`Defaults`]: both front ends take them from it, so they cannot drift apart.

use std::path::PathBuf;
use std::time::Duration;

use serde::Deserialize;

/// The built-in defaults of every setting that has one, for every front end.
pub struct Defaults;

impl Defaults {
    /// Input pairs explored per function.
    pub const PAIRS: usize = 1000;
    /// Random seed.
    pub const SEED: u64 = 0;
    /// Time limit of one call of the function under test.
    pub const CALL_TIMEOUT: Duration = Duration::from_secs(1);
    /// Memory (address-space) limit of a worker, in MiB.
    pub const MEMORY_LIMIT_MIB: u64 = 4096;
    /// Inputs of the differential witness search per survivor.
    pub const WITNESS_EVALS: usize = 2000;
    /// Exploration time of one function when the run has no time budget.
    pub const EXPLORE_CAP: Duration = Duration::from_secs(30);

    /// The shortest time limit of a mutant's tests: a suite of milliseconds that runs past it
    /// is hundreds of times slower than it was on the original, which no load explains (and a
    /// timeout never makes a gap: at worst a slow survivor goes unreported). A mutant that
    /// loops forever costs this much wall time.
    pub const TEST_TIMEOUT_FLOOR: Duration = Duration::from_secs(2);

    /// The time limit of a mutant's tests from the baseline's duration: five times it, at least
    /// [`Defaults::TEST_TIMEOUT_FLOOR`] (cargo-mutants' rule, five times and at least 20 s,
    /// scaled for suites that take milliseconds).
    pub fn test_timeout(baseline: Duration) -> Duration {
        (baseline * 5).max(Self::TEST_TIMEOUT_FLOOR)
    }

    /// Mutants tested at a time: the number of CPUs.
    pub fn jobs() -> usize {
        std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1)
    }
}

/// How targets are chosen.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Selection {
    /// Functions touched by the diff against the base.
    Diff,
    /// Functions named `FILE::NAME`.
    Functions(Vec<String>),
    /// Every function of the project (or of the selected packages).
    All,
}

impl Selection {
    /// Its name in the report: `diff`, `function` or `all`.
    pub fn name(&self) -> &'static str {
        match self {
            Selection::Diff => "diff",
            Selection::Functions(_) => "function",
            Selection::All => "all",
        }
    }
}

/// Which tests run against a mutant of a Rust crate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TestScope {
    /// The tests of the package that owns the function.
    Package,
    /// Those, and the tests of the workspace packages that depend on it.
    Dependents,
    /// Every workspace package's tests.
    Workspace,
}

/// What only `cargo abex` reads.
#[derive(Clone, Debug)]
pub struct RustOptions {
    /// `--manifest-path`.
    pub manifest_path: Option<PathBuf>,
    /// `-p/--package`.
    pub packages: Vec<String>,
    /// `--test-scope`.
    pub test_scope: TestScope,
    /// Feature flags passed to every cargo build and test (`--features a,b`, `--all-features`,
    /// `--no-default-features`).
    pub cargo_flags: Vec<String>,
    /// `--skip-test`: tests left out of every run, each by its full name as libtest prints it
    /// (`tests::needs_network`; a doc-test's name contains it).
    pub skip_tests: Vec<String>,
}

impl Default for RustOptions {
    fn default() -> Self {
        RustOptions {
            manifest_path: None,
            packages: Vec::new(),
            test_scope: TestScope::Dependents,
            cargo_flags: Vec::new(),
            skip_tests: Vec::new(),
        }
    }
}

/// What only `pytest --abex` reads.
#[derive(Clone, Debug)]
pub struct PythonOptions {
    /// The project folder (pytest's rootdir).
    pub root: PathBuf,
    /// The project's interpreter (`sys.executable`).
    pub python: PathBuf,
    /// How the user's pytest session ran its tests.
    pub session: PytestSession,
    /// The interpreter's version and installed distributions (a key of the results cache), as
    /// the plugin read them in its own process; `None`: asked of the interpreter.
    pub interpreter: Option<String>,
}

/// How the user's pytest session ran its tests (`pytest_abex.suite`), for the inner runner to
/// run exactly the same tests the same way.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PytestSession {
    /// The session's options the runner passes on (its effective command line, `addopts`
    /// included, less what cannot run in the runner; its rootdir and ini file), paths relative
    /// to the root.
    pub pytest_args: Vec<String>,
    /// What the session collected from (paths and node ids, relative to the root); empty: the
    /// project's test files.
    pub paths: Vec<String>,
    /// The node ids of the tests the session ran, in its order; `None`: not known (every test
    /// the paths collect).
    pub node_ids: Option<Vec<String>>,
    /// The files of the session's test items (any name), relative to the root; `None`: not
    /// known (test files are found by name).
    pub test_files: Option<Vec<PathBuf>>,
    /// The source files whose doctests the session ran.
    pub doctest_files: Vec<PathBuf>,
}

/// The language section of a [`RunConfig`].
#[derive(Clone, Debug)]
pub enum LanguageOptions {
    /// A cargo workspace.
    Rust(RustOptions),
    /// A Python project.
    Python(PythonOptions),
}

/// Everything a run needs to know, resolved from the command line, the environment, the
/// project's config and [`Defaults`].
#[derive(Clone, Debug)]
pub struct RunConfig {
    /// How targets are chosen.
    pub selection: Selection,
    /// The base ref of the diff (`--base`; default `origin/main`, else `main`, else `master`).
    pub base: Option<String>,
    /// A unified diff file that says what changed, instead of git and a base (`--in-diff`).
    pub diff_file: Option<PathBuf>,
    /// The output folder (default `.abex/out` at the project root).
    pub out: Option<PathBuf>,
    /// The setting that chooses the output folder, as an error's hint names it: `` `--out` ``
    /// for `cargo abex`, `` `--abex-out` (or `out` in `[tool.abex]`) `` for pytest.
    pub out_flag: String,
    /// Pair budget per target.
    pub pairs: usize,
    /// Wall-time budget for the whole run.
    pub time_budget: Option<Duration>,
    /// Random seed.
    pub seed: u64,
    /// Per-call time limit.
    pub call_timeout: Duration,
    /// Worker memory limit in MiB (0: none).
    pub memory_limit_mib: u64,
    /// The folder abex was started in (for relative `--function` files).
    pub cwd: PathBuf,
    /// Whether to generate and test mutants.
    pub mutate: bool,
    /// Mutants tested at a time.
    pub jobs: usize,
    /// Inputs of the differential witness search per survivor.
    pub witness_evals: usize,
    /// Time limit of one mutant's tests (default: five times the baseline, at least 2 s).
    pub test_timeout: Option<Duration>,
    /// `(k, n)`: analyse only shard `k` (1-based) of `n` of the targets.
    pub shard: Option<(usize, usize)>,
    /// The model options (resolved with the environment and the project's config in
    /// [`crate::llm::config::resolve`]).
    pub llm: crate::llm::config::LlmOptions,
    /// Whether to write the suggested tests into the project's files at the end of the run
    /// (`--write-tests`, `--abex-write-tests`): the only setting with which abex changes them.
    pub write_tests: bool,
    /// What only one language's front end reads.
    pub language: LanguageOptions,
}

impl RunConfig {
    /// A configuration with every default, for `language`.
    pub fn new(language: LanguageOptions) -> RunConfig {
        RunConfig {
            selection: Selection::Diff,
            base: None,
            diff_file: None,
            out: None,
            out_flag: "`--out`".into(),
            pairs: Defaults::PAIRS,
            time_budget: None,
            seed: Defaults::SEED,
            call_timeout: Defaults::CALL_TIMEOUT,
            memory_limit_mib: Defaults::MEMORY_LIMIT_MIB,
            cwd: std::env::current_dir().unwrap_or_else(|_| PathBuf::from(".")),
            mutate: true,
            jobs: Defaults::jobs(),
            witness_evals: Defaults::WITNESS_EVALS,
            test_timeout: None,
            shard: None,
            llm: Default::default(),
            write_tests: false,
            language,
        }
    }

    /// The worker memory limit in bytes, if any.
    pub fn memory_limit(&self) -> Option<u64> {
        (self.memory_limit_mib > 0).then_some(self.memory_limit_mib << 20)
    }

    /// The settings that shape every function's result, as text for results-cache keys (the
    /// model's settings are added by the spine, the language's by its front end).
    pub fn fingerprint(&self) -> String {
        format!(
            "{}|{}|{:?}|{}|{}|{:?}|{}|{:?}",
            self.pairs,
            self.seed,
            self.call_timeout,
            self.mutate,
            self.witness_evals,
            self.test_timeout,
            self.memory_limit_mib,
            // The budget shares exploration time among functions.
            self.time_budget,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timeouts_scale_with_the_baseline_but_never_below_five_seconds() {
        assert_eq!(Defaults::test_timeout(Duration::from_millis(10)), Duration::from_secs(2));
        assert_eq!(Defaults::test_timeout(Duration::from_secs(3)), Duration::from_secs(15));
    }
}
