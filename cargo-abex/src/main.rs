//! `cargo abex`: the cargo subcommand. Thin: parses the command line, resolves it into a
//! [`abex::pipeline::RunConfig`], runs the core, and renders its events and report for people
//! (stderr, progress bars, colour when a terminal) and for programs (`--json` on stdout).

mod bench;
mod github;
mod proxy;
mod render;

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use abex::pipeline::{Defaults, LanguageOptions, RunConfig, RustOptions, Selection, TestScope};
use clap::{Args, Parser};

/// Cargo runs `cargo-abex abex …`; `cargo-abex …` alone works too.
#[derive(Parser)]
#[command(name = "cargo", bin_name = "cargo")]
enum Cargo {
    /// Find what the tests of a change do not pin down.
    Abex(Cli),
}

/// Find what the tests of a change do not pin down.
///
/// For each function the change touches, abex explores its behavioural boundaries (pairs of nearly
/// equal inputs that behave differently), then mutates it and runs the tests on each mutant; a
/// survivor with a witness (an input on which it behaves differently) is a real gap, reported with
/// a suggested test that was checked to kill it.
///
/// With no options, abex analyses the functions changed against the base branch (the merge-base
/// with `origin/main`, else `main`, else `master`; `GITHUB_BASE_REF` in GitHub Actions), plus
/// uncommitted changes. Everything is built and run in a scratch copy under `.abex/`; your working
/// tree is never modified. Results go to `.abex/out/report.json`.
///
/// Exit codes: 0 finished, 1 gaps found with `--fail-on finding`, 2 usage or configuration error, 3 infrastructure failure,
/// 130 interrupted by SIGINT (Ctrl-C), 143 by SIGTERM, 129 by SIGHUP. An interrupted run stops its builds and
/// tests, writes the report of what it finished and resumes from it when run again; a second
/// signal ends it at once.
#[derive(Args, Debug)]
#[command(version, about, long_about, args_conflicts_with_subcommands = true)]
struct Cli {
    #[command(subcommand)]
    command: Option<Sub>,
    #[command(flatten)]
    select: SelectArgs,
    #[command(flatten)]
    features: FeatureArgs,
    #[command(flatten)]
    explore: ExploreArgs,
    #[command(flatten)]
    mutate: MutateArgs,
    #[command(flatten)]
    exec: ExecArgs,
    #[command(flatten)]
    output: OutputArgs,
    #[command(flatten)]
    engine: EngineArgs,
    /// Post the findings as a review on the pull request (GitHub Actions: reads
    /// `GITHUB_EVENT_PATH`, `GITHUB_REPOSITORY`, `GITHUB_TOKEN`, `GITHUB_API_URL`).
    #[arg(long, help_heading = "GitHub")]
    post_review: bool,
    #[command(flatten)]
    github: github::PostArgs,
}

/// The model engine. With an API key (`ABEX_API_KEY` or `OPENAI_API_KEY`) or a local
/// `--base-url`, the ABEX agents propose input pairs and write test-aware mutants; without one,
/// or once a budget is spent or the endpoint fails, the offline engine carries on. Defaults may
/// also come from `abex.toml` `[llm]` or `[package.metadata.abex.llm]`.
#[derive(Args, Debug)]
#[command(next_help_heading = "Engine")]
struct EngineArgs {
    /// Use only the built-in offline engine (search and rule-based; no model, no network).
    #[arg(long)]
    offline: bool,
    /// The model [env: ABEX_MODEL] [default: gpt-5-mini].
    #[arg(long, value_name = "NAME")]
    model: Option<String>,
    /// An OpenAI-compatible endpoint, e.g. `http://localhost:11434/v1` for Ollama
    /// [env: ABEX_BASE_URL] [default: https://api.openai.com/v1].
    #[arg(long, value_name = "URL")]
    base_url: Option<String>,
    /// Most money the run may spend on the model, in US dollars.
    #[arg(long, value_name = "USD")]
    budget_usd: Option<f64>,
    /// Most tokens (prompt and completion) the run may spend.
    #[arg(long, value_name = "N")]
    budget_tokens: Option<u64>,
    /// Which agents take part: all four, all but the Ideator, or the Explorer alone.
    #[arg(long, value_name = "full|no-ideator|explorer-only")]
    agents: Option<abex::llm::config::AgentsMode>,
    /// A folder of prompt templates (`explorer.md`, …) that replace the built-in ones.
    #[arg(long, value_name = "DIR")]
    prompts: Option<PathBuf>,
    /// Time limit of one model request.
    #[arg(long, value_name = "DURATION", value_parser = humantime::parse_duration)]
    llm_timeout: Option<Duration>,
    /// Model-written mutants per function [default: 3].
    #[arg(long, value_name = "N")]
    llm_mutants: Option<usize>,
    /// Explorer calls per function at most [default: no fixed cap: the budgets, and each
    /// function's share of the token budget, bound them].
    #[arg(long, value_name = "N")]
    explorer_calls: Option<usize>,
    /// Model-written tests: the Tester's answers per witnessed survivor at most, its first
    /// test and the repair rounds after it; 0 keeps abex's own tests only [default: 4].
    #[arg(long, value_name = "N")]
    llm_tests: Option<usize>,
    /// How hard reasoning models think: `minimal`, `low`, `medium` or `high` (sent as
    /// `reasoning_effort`; dropped for an endpoint that does not take it) [default: the
    /// endpoint's].
    #[arg(long, value_name = "LEVEL")]
    reasoning_effort: Option<String>,
    /// Let context-aware strategies see the function's source too (white-box; by default they
    /// see its signature and doc comment, generic ones its parameter types only).
    #[arg(long)]
    white_box: bool,
    /// The model of one role: `explorer`, `coordinator`, `ideator`, `generator` or `mutator`.
    /// Repeatable.
    #[arg(long, value_name = "ROLE=MODEL", value_parser = parse_role::<String>)]
    role_model: Vec<(abex::llm::config::Role, String)>,
    /// The temperature of one role. Repeatable.
    #[arg(long, value_name = "ROLE=T", value_parser = parse_role::<f64>)]
    role_temperature: Vec<(abex::llm::config::Role, f64)>,
}

/// Parses `ROLE=VALUE`.
fn parse_role<T: std::str::FromStr>(s: &str) -> Result<(abex::llm::config::Role, T), String> {
    use abex::llm::config::Role;
    let (role, value) = s.split_once('=').ok_or("expected ROLE=VALUE")?;
    let role = Role::ALL.into_iter().find(|r| r.name() == role.trim()).ok_or_else(|| {
        format!("unknown role `{role}` (explorer, coordinator, ideator, generator, mutator)")
    })?;
    let value = value.trim().parse().map_err(|_| format!("`{value}` is not a valid value"))?;
    Ok((role, value))
}

impl EngineArgs {
    fn options(&self, cwd: &std::path::Path) -> abex::llm::config::LlmOptions {
        let mut roles: std::collections::BTreeMap<_, abex::llm::config::RoleOverride> =
            std::collections::BTreeMap::new();
        for (r, m) in &self.role_model {
            roles.entry(*r).or_default().model = Some(m.clone());
        }
        for (r, t) in &self.role_temperature {
            roles.entry(*r).or_default().temperature = Some(*t);
        }
        abex::llm::config::LlmOptions {
            offline: self.offline,
            model: self.model.clone(),
            base_url: self.base_url.clone(),
            budget_usd: self.budget_usd,
            budget_tokens: self.budget_tokens,
            agents: self.agents,
            prompts: self.prompts.as_ref().map(|p| cwd.join(p)),
            timeout: self.llm_timeout,
            mutants: self.llm_mutants,
            explorer_calls: self.explorer_calls,
            tests: self.llm_tests,
            reasoning_effort: self.reasoning_effort.clone(),
            white_box: self.white_box.then_some(true),
            roles,
            project: Vec::new(),
        }
    }
}

/// Commands besides the analysis itself.
#[derive(clap::Subcommand, Debug)]
enum Sub {
    /// Explore one function three ways on the same pair budget (`--offline`, `--agents
    /// explorer-only`, `--agents full`) and print the three QD-scores, boundaries, gaps, model
    /// cells and tokens side by side. Arguments after `--` go to every run (`--base-url`,
    /// `--model`, budgets); outputs go to `.abex/bench/<way>/`.
    BenchAgents {
        /// The function, `FILE::NAME`.
        #[arg(long, value_name = "FILE::NAME")]
        function: String,
        /// Pairs each run explores.
        #[arg(long, default_value_t = 1000, value_name = "N")]
        pairs: usize,
        /// Arguments for every run.
        #[arg(last = true, value_name = "ARGS")]
        args: Vec<String>,
    },
    /// Combine the reports of the shards of one run (`--shard k/n`) into one output folder.
    Merge {
        /// The shards' `report.json` files.
        #[arg(required = true, value_name = "REPORT")]
        reports: Vec<PathBuf>,
        /// Output folder for the merged report in every format a run writes: `report.json`,
        /// `summary.md`, `report.html`, `suggested-tests.patch`, and when mutants were tested
        /// `mutation-report.json`, `junit.xml` and `abex.sarif`.
        #[arg(long, default_value = ".abex/out", value_name = "DIR")]
        out: PathBuf,
    },
    /// Hold the model's key for an analysis that runs the project's code in its own process
    /// (`pytest --abex` in the GitHub Action): read the key from stdin's first line, serve a
    /// loopback OpenAI-compatible endpoint, print its URL and the token it takes on one line of
    /// stdout, and forward each request to the trusted endpoint within the budgets.
    #[command(hide = true)]
    ModelProxy {
        /// The endpoint the key is for [env: ABEX_BASE_URL] [default: https://api.openai.com/v1].
        #[arg(long, value_name = "URL")]
        base_url: Option<String>,
        /// Most money the requests through this proxy may spend, in US dollars.
        #[arg(long, value_name = "USD")]
        budget_usd: Option<f64>,
        /// Most tokens (prompt and completion) the requests through this proxy may spend.
        #[arg(long, value_name = "N")]
        budget_tokens: Option<u64>,
    },
    /// Post a saved report as a review on its pull request, without running anything (for a
    /// `workflow_run` job that posts what a fork's pull request analysed; see docs/ci.md).
    Post {
        /// The `report.json` to post.
        #[arg(value_name = "REPORT")]
        report: PathBuf,
        /// Do not post: only write the job summary and the step outputs.
        #[arg(long)]
        summary_only: bool,
        #[command(flatten)]
        github: github::PostArgs,
    },
}

/// Parses `k/n` with 1 ≤ k ≤ n.
fn parse_shard(s: &str) -> Result<(usize, usize), String> {
    let (k, n) = s.split_once('/').ok_or("expected k/n, e.g. 1/4")?;
    let (k, n): (usize, usize) = (
        k.trim().parse().map_err(|_| "k is not a number")?,
        n.trim().parse().map_err(|_| "n is not a number")?,
    );
    if k == 0 || n == 0 || k > n {
        return Err(format!("shard {k}/{n}: need 1 ≤ k ≤ n"));
    }
    Ok((k, n))
}

#[derive(Args, Debug)]
#[command(next_help_heading = "Targets")]
struct SelectArgs {
    /// Analyse the named function instead of the diff: `FILE::NAME`, e.g.
    /// `src/date.rs::next_date` or `src/range.rs::Thermostat::mode`. Repeatable.
    #[arg(long, value_name = "FILE::NAME")]
    function: Vec<String>,
    /// Analyse every function of the selected packages instead of the diff.
    #[arg(long, conflicts_with = "function")]
    all: bool,
    /// Compare against this git ref instead of the default base.
    #[arg(long, value_name = "REF")]
    base: Option<String>,
    /// Take what changed from this unified diff file instead of git and a base (as
    /// cargo-mutants' `--in-diff`), e.g. `git diff origin/main.. > pr.diff`.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["function", "all", "base"])]
    in_diff: Option<PathBuf>,
    /// Only these packages of the workspace. Repeatable.
    #[arg(short, long, value_name = "SPEC")]
    package: Vec<String>,
    /// Every package of the workspace (the default without `-p`).
    #[arg(long, conflicts_with = "package")]
    workspace: bool,
    /// Path to `Cargo.toml`.
    #[arg(long, value_name = "PATH")]
    manifest_path: Option<PathBuf>,
    /// Analyse only shard `k` of `n` of the targets (deterministic split, for CI matrices);
    /// combine the shards' reports with `cargo abex merge`.
    #[arg(long, value_name = "k/n", value_parser = parse_shard)]
    shard: Option<(usize, usize)>,
}

#[derive(Args, Debug)]
#[command(next_help_heading = "Exploration")]
struct ExploreArgs {
    /// Input pairs to evaluate per function.
    #[arg(long, default_value_t = Defaults::PAIRS, value_name = "N")]
    pairs: usize,
    /// Wall-time budget for the whole run, e.g. `90s`, `10m`: half for exploration, split
    /// evenly over functions, the rest for mutants. Without it, each function's exploration
    /// stops after 30 s.
    #[arg(long, value_name = "DURATION", value_parser = humantime::parse_duration)]
    time_budget: Option<Duration>,
    /// Random seed: the same seed on the same code gives the same result.
    #[arg(long, default_value_t = Defaults::SEED, value_name = "N")]
    seed: u64,
}

#[derive(Args, Debug)]
#[command(next_help_heading = "Mutation")]
struct MutateArgs {
    /// Explore boundaries only: generate and test no mutants.
    #[arg(long)]
    no_mutants: bool,
    /// Mutants tested at a time [default: the number of CPUs].
    #[arg(short, long, value_name = "N")]
    jobs: Option<usize>,
    /// Inputs the differential search tries per survivor that no explored input tells apart
    /// (within 10 s per survivor, explored inputs included).
    #[arg(long, default_value_t = Defaults::WITNESS_EVALS, value_name = "N")]
    witness_evals: usize,
    /// Which tests run against a mutant: the owning package's, also those of the workspace
    /// packages that depend on it, or every workspace package's.
    #[arg(long, value_enum, default_value = "dependents", value_name = "SCOPE")]
    test_scope: Scope,
    /// Leave the test NAME out of every test run (baseline, mutants, doc-tests): its full name
    /// as libtest prints it (`tests::needs_network`), or a doc-test's (`src/lib.rs - parse (line
    /// 12)`). A test that cannot pass on this machine (one that needs the network, or must not
    /// run as root) would otherwise fail the baseline. Repeatable.
    #[arg(long, value_name = "NAME")]
    skip_test: Vec<String>,
    /// Time limit of one mutant's tests [default: five times the baseline, at least 2 s].
    #[arg(long, value_name = "DURATION", value_parser = humantime::parse_duration)]
    test_timeout: Option<Duration>,
}

/// `--test-scope` values.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
enum Scope {
    Package,
    Dependents,
    Workspace,
}

#[derive(Args, Debug)]
#[command(next_help_heading = "Execution")]
struct ExecArgs {
    /// Time limit of one call of the function under test [default: 1s].
    #[arg(long, value_name = "DURATION", value_parser = humantime::parse_duration)]
    call_timeout: Option<Duration>,
    /// Memory (address space) limit of each process abex runs from the project (harness
    /// workers, test binaries), in MiB; 0 for none. No more jobs run at once than the
    /// machine's memory holds at this limit.
    #[arg(long, default_value_t = Defaults::MEMORY_LIMIT_MIB, value_name = "MIB")]
    memory_limit: u64,
}

/// Cargo's feature selection, passed to every build and test abex runs.
#[derive(Args, Debug)]
#[command(next_help_heading = "Feature Selection")]
struct FeatureArgs {
    /// Space or comma separated list of features to activate. Repeatable.
    #[arg(short = 'F', long, value_name = "FEATURES")]
    features: Vec<String>,
    /// Activate all available features.
    #[arg(long)]
    all_features: bool,
    /// Do not activate the `default` feature.
    #[arg(long)]
    no_default_features: bool,
}

impl FeatureArgs {
    /// The flags as cargo takes them.
    fn cargo_flags(&self) -> Vec<String> {
        let mut flags = Vec::new();
        let features: Vec<&str> = self
            .features
            .iter()
            .flat_map(|f| f.split([' ', ',']))
            .filter(|f| !f.is_empty())
            .collect();
        if !features.is_empty() {
            flags.extend(["--features".to_string(), features.join(",")]);
        }
        if self.all_features {
            flags.push("--all-features".into());
        }
        if self.no_default_features {
            flags.push("--no-default-features".into());
        }
        flags
    }
}

/// `--color`.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
enum Color {
    /// Colour on a terminal, unless `NO_COLOR` is set.
    Auto,
    /// Always colour.
    Always,
    /// Never colour.
    Never,
}

#[derive(Args, Debug)]
#[command(next_help_heading = "Output")]
struct OutputArgs {
    /// Output folder [default: `.abex/out` at the workspace root].
    #[arg(short = 'o', long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Colour the terminal output [default: `CARGO_TERM_COLOR`, else auto].
    #[arg(long, value_enum, env = "CARGO_TERM_COLOR", default_value = "auto", value_name = "WHEN")]
    color: Color,
    /// Print the report as JSON on stdout.
    #[arg(long)]
    json: bool,
    /// Boundaries shown per validity group in the terminal.
    #[arg(long, default_value_t = 5, value_name = "N")]
    show: usize,
    /// Print only errors and the summary.
    #[arg(short, long)]
    quiet: bool,
    /// Write the suggested tests into the project (Rust: the function's file's `#[cfg(test)]
    /// mod tests`), as `suggested-tests.patch` in the output folder says; without it abex
    /// never changes the project's files.
    #[arg(long)]
    write_tests: bool,
}

fn parse() -> Cli {
    let mut argv: Vec<std::ffi::OsString> = std::env::args_os().collect();
    // `cargo abex …` passes `abex` first; accept plain `cargo-abex …` too.
    if argv.get(1).is_none_or(|a| a != "abex") {
        argv.insert(1, "abex".into());
    }
    let Cargo::Abex(cli) = Cargo::parse_from(argv);
    cli
}

/// `cargo abex merge`: read the shards' reports, write the combined one.
fn merge(reports: &[PathBuf], out: &std::path::Path) -> ExitCode {
    let mut parts = Vec::new();
    for path in reports {
        let parsed = std::fs::read_to_string(path).map_err(|e| e.to_string()).and_then(|t| {
            serde_json::from_str::<abex::report::Report>(&t).map_err(|e| e.to_string())
        });
        match parsed {
            Ok(r) => parts.push(r),
            Err(e) => {
                render::error(&format!("failed to read the report `{}`: {e}\nhint: pass the `report.json` files that `cargo abex --shard k/n` wrote", path.display()));
                return ExitCode::from(2);
            }
        }
    }
    let Some(mut merged) = abex::report::Report::merge(parts) else { return ExitCode::from(2) };
    // Each shard's figures are of its own functions: the merged report's are of all of them.
    merged.origins = abex::provenance::origins(&merged);
    let dir = match abex::out::OutDir::prepare(out, "`--out`") {
        Ok(dir) => dir,
        Err(e) => {
            render::error(&e.to_string());
            let io = matches!(e, abex::out::OutError::Io { .. });
            return ExitCode::from(if io { 3 } else { 2 });
        }
    };
    if let Err(e) = dir.write_all(&merged) {
        render::error(&format!("failed to write `{}`: {e}", out.display()));
        return ExitCode::from(3);
    }
    eprintln!(
        "abex: merged {} reports ({} functions) into {}",
        reports.len(),
        merged.targets.len(),
        out.join("report.json").display()
    );
    ExitCode::SUCCESS
}

/// `cargo abex model-proxy`: the key from stdin, the endpoint from the command line or the
/// environment, prices from the built-in table and `ABEX_PRICES`; serves until stopped.
fn model_proxy(base_url: Option<String>, usd: Option<f64>, tokens: Option<u64>) -> ExitCode {
    use std::io::Write as _;
    let key = match proxy::read_key() {
        Ok(k) if !k.is_empty() => k,
        _ => {
            render::error("model-proxy: no key on stdin");
            return ExitCode::from(2);
        }
    };
    if usd.is_some_and(|u| !u.is_finite() || u < 0.0) {
        render::error("model-proxy: --budget-usd must be a finite, non-negative amount");
        return ExitCode::from(2);
    }
    let trusted =
        match abex::secrets::var("ABEX_PRICES").map(|t| abex::llm::config::parse_prices(&t)) {
            Some(Err(e)) => {
                render::error(&e.to_string());
                return ExitCode::from(2);
            }
            Some(Ok(p)) => p,
            None => Default::default(),
        };
    let proxy = proxy::Proxy {
        upstream: base_url
            .or_else(|| abex::secrets::var("ABEX_BASE_URL").filter(|u| !u.is_empty()))
            .unwrap_or_else(|| abex::llm::config::DEFAULT_BASE_URL.into()),
        key,
        budget: abex::llm::budget::Budget {
            max_usd: usd,
            max_tokens: tokens,
            ..Default::default()
        },
        prices: abex::llm::prices::Prices { trusted, ..Default::default() },
    };
    let served = proxy.serve(|url, token| {
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "{url} {token}");
        let _ = out.flush();
    });
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            render::error(&format!("model-proxy: {e}"));
            ExitCode::from(3)
        }
    }
}

/// Ctrl-C, SIGTERM and SIGHUP: the first asks the run to stop (it kills its builds and tests and
/// writes the report of what was finished), a second ends the process at once.
fn on_signals() {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP]) else {
        return;
    };
    std::thread::spawn(move || {
        for signal in signals.forever() {
            let name = abex::interrupt::Interruption { signal }.name();
            if abex::interrupt::request(signal) > 1 {
                eprintln!("abex: {name} again: stopping now");
                std::process::exit(128 + signal);
            }
            eprintln!(
                "abex: {name}: stopping, saving what is finished (send it again to stop at once)"
            );
        }
    });
}

fn main() -> ExitCode {
    // Before anything else runs: the token and the model's key leave the environment (and the
    // block `/proc/<pid>/environ` shows), so no build script or test abex runs can read them.
    abex::secrets::withhold();
    let cli = parse();
    match cli.output.color {
        Color::Auto => {}
        Color::Always | Color::Never => {
            let on = matches!(cli.output.color, Color::Always);
            console::set_colors_enabled(on);
            console::set_colors_enabled_stderr(on);
        }
    }
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    if let Some(Sub::Merge { reports, out }) = &cli.command {
        return merge(reports, &cwd.join(out));
    }
    if let Some(Sub::BenchAgents { function, pairs, args }) = &cli.command {
        return bench::run(&cwd, function, *pairs, args);
    }
    if let Some(Sub::ModelProxy { base_url, budget_usd, budget_tokens }) = &cli.command {
        return model_proxy(base_url.clone(), *budget_usd, *budget_tokens);
    }
    if let Some(Sub::Post { report, summary_only, github }) = &cli.command {
        return github::post_saved(&cwd.join(report), !summary_only, github);
    }
    let selection = if cli.select.all {
        Selection::All
    } else if !cli.select.function.is_empty() {
        Selection::Functions(cli.select.function.clone())
    } else {
        Selection::Diff
    };
    let mut cfg = RunConfig::new(LanguageOptions::Rust(RustOptions {
        manifest_path: cli.select.manifest_path.clone(),
        packages: cli.select.package.clone(),
        cargo_flags: cli.features.cargo_flags(),
        skip_tests: cli.mutate.skip_test.clone(),
        test_scope: match cli.mutate.test_scope {
            Scope::Package => TestScope::Package,
            Scope::Dependents => TestScope::Dependents,
            Scope::Workspace => TestScope::Workspace,
        },
    }));
    cfg.llm = cli.engine.options(&cwd);
    cfg.selection = selection;
    cfg.base = cli.select.base.clone();
    cfg.diff_file = cli.select.in_diff.clone();
    cfg.out = cli.output.out.as_ref().map(|p| cwd.join(p));
    cfg.pairs = cli.explore.pairs;
    cfg.time_budget = cli.explore.time_budget;
    cfg.seed = cli.explore.seed;
    cfg.call_timeout = cli.exec.call_timeout.unwrap_or(Defaults::CALL_TIMEOUT);
    cfg.memory_limit_mib = cli.exec.memory_limit;
    cfg.cwd = cwd;
    cfg.mutate = !cli.mutate.no_mutants;
    cfg.jobs = cli.mutate.jobs.unwrap_or_else(Defaults::jobs).max(1);
    cfg.witness_evals = cli.mutate.witness_evals;
    cfg.test_timeout = cli.mutate.test_timeout;
    cfg.shard = cli.select.shard;
    cfg.write_tests = cli.output.write_tests;
    let mut ui = render::Terminal::new(cli.output.quiet, cli.output.show);
    on_signals();
    let result = abex::rust::run(&cfg, &mut |e| ui.event(e));
    ui.finish_bars();
    match result {
        Ok((report, out)) => {
            ui.summary(&report, &out);
            if cli.output.json {
                match serde_json::to_string_pretty(&report) {
                    Ok(text) => println!("{text}"),
                    Err(e) => {
                        eprintln!("error: failed to render the report as JSON: {e}");
                        return ExitCode::from(3);
                    }
                }
            }
            // What an interrupted run proved still reaches the pull request.
            let code = github::finish(
                &report,
                &out.join("report.json"),
                cli.post_review,
                true,
                &cli.github,
            );
            match abex::interrupt::requested().filter(|_| report.interrupted.is_some()) {
                Some(i) => ExitCode::from(i.exit_code()),
                None => code,
            }
        }
        Err(e) => {
            if let Some(i) = abex::interrupt::requested() {
                // Interrupted before the report was started (loading the workspace).
                eprintln!("abex: interrupted by {} before the analysis started", i.name());
                return ExitCode::from(i.exit_code());
            }
            render::error(&e.to_string());
            ExitCode::from(e.exit_code().code())
        }
    }
}
