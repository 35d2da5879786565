//! One `cargo abex` run, start to end: load the workspace, choose targets, build a harness per
//! crate target in a scratch copy, explore each supported target, and write the report as it
//! goes. Progress is reported as [`Event`]s; nothing here prints.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::exec::worker::{TargetEvaluator, Worker, WorkerSpec};
use crate::exec::ExecError;
use crate::explore::{self, ExploreConfig, Progress};
use crate::mutate::{rust_rules, Mutant};
use crate::mutation::{MutationConfig, MutationError, PhaseTarget, TestScope};
use crate::out::OutDir;
use crate::report::{ExplorationReport, Report, Settings, TargetReport};
use crate::rust::harness::{self, HarnessError, Host};
use crate::rust::{self, Chosen, WorkspaceError};
use crate::targets::diff::{self, DiffError};
use crate::targets::{Drive, Target};

/// Exploration time of one function when the run has no time budget.
const EXPLORE_CAP: Duration = Duration::from_secs(30);

/// How targets are chosen.
#[derive(Clone, Debug)]
pub enum Selection {
    /// Functions touched by the diff against the base.
    Diff,
    /// Functions named `FILE::NAME`.
    Functions(Vec<String>),
    /// Every function of the selected packages.
    All,
}

/// Everything a run needs to know, resolved from the command line and defaults.
#[derive(Clone, Debug)]
pub struct RunConfig {
    /// `--manifest-path`.
    pub manifest_path: Option<PathBuf>,
    /// `-p/--package`.
    pub packages: Vec<String>,
    /// How targets are chosen.
    pub selection: Selection,
    /// `--base`.
    pub base: Option<String>,
    /// `--out` (default `.abex/out` at the workspace root).
    pub out: Option<PathBuf>,
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
    /// Which tests run against a mutant.
    pub test_scope: TestScope,
    /// Time limit of one mutant's tests (default: five times the baseline, at least 5 s).
    pub test_timeout: Option<Duration>,
    /// `(k, n)`: analyse only shard `k` (1-based) of `n` of the targets.
    pub shard: Option<(usize, usize)>,
    /// The model options of the command line (resolved with the environment and the project's
    /// config in [`crate::llm::config::resolve`]).
    pub llm: crate::llm::config::LlmOptions,
}

/// Errors that end a run. [`RunError::exit_code`] maps them to the documented exit codes.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The workspace could not be loaded.
    #[error(transparent)]
    Workspace(#[from] WorkspaceError),
    /// The diff could not be computed.
    #[error(transparent)]
    Diff(#[from] DiffError),
    /// A `--function` does not name a function.
    #[error("{0}")]
    UnknownFunction(String),
    /// The harness could not be built.
    #[error(transparent)]
    Harness(#[from] HarnessError),
    /// A worker failed beyond recovery.
    #[error("failed to run `{target}`: {source}")]
    Exec {
        /// The target.
        target: String,
        /// Why.
        source: ExecError,
    },
    /// The mutation phase failed.
    #[error(transparent)]
    Mutation(#[from] MutationError),
    /// The model settings are broken.
    #[error(transparent)]
    Llm(#[from] crate::llm::engine::EngineError),
    /// Writing the output failed.
    #[error("failed to write `{path}`: {source}")]
    Output {
        /// Where.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
}

impl RunError {
    /// 2 for usage and configuration errors (the user can fix them), 3 for infrastructure.
    pub fn exit_code(&self) -> i32 {
        match self {
            RunError::Workspace(_) | RunError::Diff(_) | RunError::UnknownFunction(_) => 2,
            RunError::Llm(_) => 2,
            RunError::Harness(HarnessError::CrateDoesNotBuild { .. }) => 2,
            RunError::Mutation(MutationError::Harness(HarnessError::CrateDoesNotBuild {
                ..
            })) => 2,
            RunError::Mutation(
                MutationError::BaselineFails { .. } | MutationError::BaselineHangs { .. },
            ) => 2,
            _ => 3,
        }
    }
}

/// Progress of a run, for front ends to render.
#[derive(Debug)]
pub enum Event<'a> {
    /// Targets are chosen.
    Targets {
        /// The workspace root.
        root: &'a Path,
        /// Every target, supported or not.
        targets: &'a [Target],
    },
    /// A harness build starts.
    Building {
        /// The package.
        package: &'a str,
        /// Functions it will reach.
        functions: usize,
    },
    /// A harness is built.
    Built {
        /// The package.
        package: &'a str,
        /// How long it took.
        time: Duration,
    },
    /// Exploration of a target starts.
    Exploring {
        /// Its position.
        index: usize,
        /// The target.
        target: &'a Target,
        /// Its pair budget.
        pairs: usize,
    },
    /// Exploration progress.
    Progress {
        /// The target's position.
        index: usize,
        /// The figures so far.
        progress: &'a Progress,
    },
    /// Mutants of a crate are being tested.
    Testing {
        /// The package.
        package: &'a str,
        /// Mutants to test.
        mutants: usize,
        /// Test binaries.
        tests: usize,
    },
    /// A target is done (explored or listed as not driven).
    Done {
        /// Its position.
        index: usize,
        /// Its report entry.
        report: &'a TargetReport,
    },
}

/// Runs the whole pipeline; returns the report and the folder it was written to.
pub fn run(
    cfg: &RunConfig,
    on_event: &mut dyn FnMut(Event<'_>),
) -> Result<(Report, PathBuf), RunError> {
    let started = Instant::now();
    let ws = rust::load(cfg.manifest_path.as_deref(), &cfg.packages)?;
    let (mut chosen, base, selection) = choose(&ws, cfg)?;
    if let Some((k, n)) = cfg.shard {
        chosen = shard(chosen, k, n);
    }
    let targets: Vec<Target> = chosen.iter().map(|c| c.target.clone()).collect();
    on_event(Event::Targets { root: &ws.root, targets: &targets });

    let deadline = cfg.time_budget.map(|b| started + b);
    let (mut session, offline) = match crate::llm::engine::start(&cfg.llm, &ws.root, deadline)? {
        Ok(s) => (Some(s), None),
        Err(r) => (None, Some(r)),
    };
    let out_path = cfg.out.clone().unwrap_or_else(|| ws.root.join(".abex").join("out"));
    let out = OutDir::prepare(&out_path)
        .map_err(|source| RunError::Output { path: out_path.clone(), source })?;
    let mut report = Report {
        format: "abex-report".into(),
        version: crate::report::REPORT_VERSION,
        abex_version: env!("CARGO_PKG_VERSION").into(),
        language: "rust".into(),
        project_root: ws.root.clone(),
        base,
        selection: selection.into(),
        settings: Settings {
            engine: if session.is_some() { "model" } else { "offline" }.into(),
            pairs: cfg.pairs,
            time_budget_s: cfg.time_budget.map(|d| d.as_secs_f64()),
            seed: cfg.seed,
            call_timeout_ms: cfg.call_timeout.as_millis() as u64,
            shard: cfg.shard.map(|(k, n)| format!("{k}/{n}")),
        },
        complete: false,
        targets: Vec::new(),
        llm: offline,
    };
    let save = |report: &Report| {
        out.write_report(report)
            .map_err(|source| RunError::Output { path: out_path.join("report.json"), source })
    };
    save(&report)?;

    // Group every target by crate target: one scratch build each.
    let mut by_crate: Vec<(usize, Vec<usize>)> = Vec::new();
    for (i, c) in chosen.iter().enumerate() {
        match by_crate.iter_mut().find(|(k, _)| *k == c.krate) {
            Some((_, v)) => v.push(i),
            None => by_crate.push((c.krate, vec![i])),
        }
    }
    let mut results: Vec<Option<TargetReport>> = vec![None; chosen.len()];
    let mut explored = 0usize;
    let driven_total = chosen.iter().filter(|c| c.target.drive == Drive::Supported).count();
    let cache = crate::cache::ResultCache::open(&ws.root);
    let model = session.as_ref().map(crate::llm::engine::settings_fingerprint);
    let settings = format!(
        "{}|{}|{:?}|{}|{}|{:?}|{:?}|{model:?}",
        cfg.pairs,
        cfg.seed,
        cfg.call_timeout,
        cfg.mutate,
        cfg.witness_evals,
        cfg.test_scope,
        cfg.test_timeout
    );
    let mut keys: Vec<String> = vec![String::new(); chosen.len()];
    for (krate, members) in &by_crate {
        let ct = &ws.crates[*krate];
        // Results of unchanged functions with unchanged tests come from the cache.
        let tests_fp = tests_fingerprint(&ws, ct, &test_packages(&ws, &ct.package, cfg.test_scope));
        let mut todo = Vec::new();
        for &i in members {
            let f = chosen[i].found;
            keys[i] = crate::cache::key(&[
                settings.as_bytes(),
                tests_fp.as_bytes(),
                f.qualified_name().as_bytes(),
                f.source.as_bytes(),
            ]);
            match cache.get(&keys[i]) {
                Some(mut tr) => {
                    // Where the function is now (lines may have moved) comes from this run.
                    tr.target = chosen[i].target.clone();
                    on_event(Event::Done { index: i, report: &tr });
                    results[i] = Some(tr);
                }
                None => todo.push(i),
            }
        }
        if todo.is_empty() {
            continue;
        }
        let members = &todo;
        // Mutants of every target (driven or not), numbered from 1, and a self-check each.
        let mut mutants: Vec<Vec<(u32, Mutant)>> = vec![Vec::new(); members.len()];
        let mut self_checks: Vec<Mutant> = Vec::new();
        if cfg.mutate {
            let rules = rust_rules::load_skip_rules(&ct.package_dir);
            let mut n = 1u32;
            for (k, &i) in members.iter().enumerate() {
                let f = chosen[i].found;
                let text = ct
                    .sources
                    .files
                    .iter()
                    .find(|s| s.path == f.file)
                    .map_or("", |s| s.text.as_str());
                let rel = f.file.strip_prefix(&ws.root).unwrap_or(&f.file).to_path_buf();
                for mut m in
                    rust_rules::mutants_of(text, &rel, &f.qualified_name(), f.byte_span, &rules)
                {
                    m.file = f.file.clone();
                    mutants[k].push((n, m));
                    n += 1;
                }
                if let Some(session) = session.as_mut() {
                    let count = session.cfg.mutants;
                    let model = crate::llm::engine::rust_mutants(
                        session,
                        f,
                        text,
                        &rel,
                        &ct.sources.test_code,
                        count,
                        "",
                    );
                    for m in model {
                        mutants[k].push((n, m));
                        n += 1;
                    }
                }
                self_checks.push(crate::mutation::self_check_mutant(f, &rel, text));
            }
        }
        let first_check = mutants.iter().map(Vec::len).sum::<usize>() as u32 + 1;
        let driven: Vec<usize> = members
            .iter()
            .copied()
            .filter(|&i| chosen[i].target.drive == Drive::Supported)
            .collect();
        on_event(Event::Building { package: &ct.package, functions: driven.len() });
        let kind = match &ct.host {
            Host::Lib { .. } => "lib".to_string(),
            Host::Bin { name } => format!("bin-{name}"),
        };
        let scratch = ws.root.join(".abex").join("scratch").join(format!("{}-{kind}", ct.package));
        let fns = driven.iter().map(|&i| chosen[i].found).collect();
        let mut req = ct.harness_request(&ws.root, fns, &scratch);
        req.switches = mutants.iter().flatten().map(|(n, m)| (*n, m)).collect();
        req.switches
            .extend(self_checks.iter().enumerate().map(|(k, m)| (first_check + k as u32, m)));
        if cfg.mutate {
            req.test_packages = test_packages(&ws, &ct.package, cfg.test_scope);
        }
        let built = harness::build(&req)?;
        on_event(Event::Built { package: &ct.package, time: built.build_time });
        let mut worker = Worker::new(WorkerSpec {
            program: built.exe.clone(),
            args: Vec::new(),
            env: Vec::new(),
            cwd: built.cwd.clone(),
            call_timeout: cfg.call_timeout,
            memory_limit: (cfg.memory_limit_mib > 0).then_some(cfg.memory_limit_mib << 20),
        });
        let mut reports: Vec<TargetReport> = Vec::new();
        let mut archives: Vec<Vec<crate::archive::Pair>> = Vec::new();
        let mut harness_ids: Vec<Option<usize>> = Vec::new();
        let mut not_compiled: Vec<bool> = Vec::new();
        for &i in members {
            let mut target = chosen[i].target.clone();
            let id = driven.iter().position(|&d| d == i);
            let mut exploration = None;
            let mut elites = Vec::new();
            match id.map(|id| (id, built.dropped_fn(id))) {
                Some((_, Some(reason))) => {
                    // The compiler's headline, e.g. "the trait bound `Counter: Default` is not satisfied".
                    let headline = reason.lines().next().unwrap_or(reason);
                    let headline = headline.split_once("]: ").map_or(headline, |(_, h)| h);
                    let reason = if headline.contains("cannot find") {
                        "not compiled under the current features".to_string()
                    } else {
                        format!("the harness cannot call it: {headline}")
                    };
                    target.drive = Drive::Unsupported { reason };
                    explored += 1;
                }
                Some((id, None)) => {
                    let params = target.param_types().unwrap_or_default();
                    // Split what is left of the exploration budget (half the run's) evenly.
                    let time_budget = Some(cfg.time_budget.map_or(EXPLORE_CAP, |b| {
                        let left = (b / 2).saturating_sub(started.elapsed());
                        left / (driven_total - explored).max(1) as u32
                    }));
                    let ecfg = ExploreConfig {
                        pairs: cfg.pairs,
                        time_budget,
                        seed: cfg.seed,
                        ..ExploreConfig::default()
                    };
                    on_event(Event::Exploring { index: i, target: &target, pairs: cfg.pairs });
                    let mut eval = TargetEvaluator { worker: &mut worker, id };
                    let mut progress =
                        |p: &Progress| on_event(Event::Progress { index: i, progress: p });
                    let subject = session.as_ref().map(|_| {
                        crate::llm::engine::rust_subject(
                            chosen[i].found,
                            params.clone(),
                            &ct.sources.test_code,
                        )
                    });
                    let mut agents = session.as_mut().zip(subject.as_ref()).map(|(s, subject)| {
                        let calls = s.cfg.explorer_calls;
                        crate::llm::agents::Agents::new(s, subject, &ws.root, calls, cfg.seed)
                    });
                    let proposer = agents.as_mut().map(|a| a as &mut dyn crate::explore::Proposer);
                    let x =
                        explore::explore_with(&params, &mut eval, &ecfg, &mut progress, proposer)
                            .map_err(|source| RunError::Exec {
                            target: target.qualified_name.clone(),
                            source,
                        })?;
                    if let Some(a) = agents {
                        a.finish();
                    }
                    elites = x.archive.elites().into_iter().cloned().collect();
                    exploration = Some(ExplorationReport::of(&x));
                    explored += 1;
                }
                None => {}
            }
            let usable = id.filter(|&id| built.dropped_fn(id).is_none());
            harness_ids.push(usable);
            // The wrapper cannot find the function: it is `cfg`'d out under these features.
            not_compiled.push(id.and_then(|id| built.dropped_fn(id)).is_some_and(|r| {
                r.contains("E0425") || r.contains("E0433") || r.contains("cannot find")
            }));
            archives.push(elites);
            reports.push(TargetReport { target, exploration, mutation: None });
        }
        if cfg.mutate {
            on_event(Event::Testing {
                package: &ct.package,
                mutants: mutants.iter().map(Vec::len).sum(),
                tests: built.tests.len(),
            });
            let phase: Vec<PhaseTarget<'_>> = members
                .iter()
                .enumerate()
                .map(|(k, &i)| PhaseTarget {
                    found: chosen[i].found,
                    harness_id: harness_ids[k],
                    elites: std::mem::take(&mut archives[k]),
                    mutants: mutants[k].clone(),
                    self_check: first_check + k as u32,
                    not_compiled: not_compiled[k],
                })
                .collect();
            let mcfg = MutationConfig {
                jobs: cfg.jobs,
                witness_evals: cfg.witness_evals,
                seed: cfg.seed,
                call_timeout: cfg.call_timeout,
                memory_limit: (cfg.memory_limit_mib > 0).then_some(cfg.memory_limit_mib << 20),
                deadline,
                test_timeout: cfg.test_timeout,
            };
            let phase_reports = crate::mutation::run(&req, &built, &phase, &mcfg, &ws.root)?;
            for (r, m) in reports.iter_mut().zip(phase_reports) {
                r.mutation = Some(m);
            }
            if let Some(session) = session.as_mut() {
                let next = first_check + members.len() as u32;
                crate::llm::engine::feedback_rounds(
                    session,
                    &req,
                    &phase,
                    &mut reports,
                    &mcfg,
                    next,
                )?;
            }
        }
        for (&i, tr) in members.iter().zip(reports) {
            on_event(Event::Done { index: i, report: &tr });
            cache.put(&keys[i], &tr);
            results[i] = Some(tr);
        }
        report.targets = results.iter().flatten().cloned().collect();
        if let Some(s) = &session {
            report.llm = Some(s.report.clone());
        }
        save(&report)?;
    }
    report.targets = results.into_iter().flatten().collect();
    if let Some(s) = &session {
        report.llm = Some(s.report.clone());
    }
    report.complete = true;
    out.write_all(&report).map_err(|source| RunError::Output { path: out_path.clone(), source })?;
    Ok((report, out_path))
}

/// A fingerprint of the test code that runs against a crate's functions: its `#[cfg(test)]`
/// code and the integration tests (`tests/`) of the test packages.
fn tests_fingerprint(ws: &rust::Workspace, ct: &rust::CrateTarget, packages: &[String]) -> String {
    let mut parts: Vec<Vec<u8>> =
        ct.sources.test_code.iter().map(|s| s.as_bytes().to_vec()).collect();
    for p in packages {
        let Some(dir) =
            ws.crates.iter().find(|c| &c.package == p).map(|c| c.package_dir.join("tests"))
        else {
            continue;
        };
        let mut files: Vec<PathBuf> = crate::scratch::list_files(&dir, &[]).unwrap_or_default();
        files.sort();
        for f in files {
            parts.push(f.display().to_string().into_bytes());
            parts.push(std::fs::read(dir.join(&f)).unwrap_or_default());
        }
    }
    let refs: Vec<&[u8]> = parts.iter().map(Vec::as_slice).collect();
    crate::cache::key(&refs)
}

/// Shard `k` (1-based) of `n`: the targets in file and name order, every `n`-th from the `k`-th,
/// so that the shards of a run split it without overlap, whatever the machine.
fn shard(mut chosen: Vec<Chosen<'_>>, k: usize, n: usize) -> Vec<Chosen<'_>> {
    chosen.sort_by(|a, b| {
        (&a.target.file, &a.target.qualified_name, a.target.span.start_line).cmp(&(
            &b.target.file,
            &b.target.qualified_name,
            b.target.span.start_line,
        ))
    });
    chosen.into_iter().enumerate().filter(|(i, _)| i % n == k - 1).map(|(_, c)| c).collect()
}

/// The packages whose tests run against mutants of `package`.
fn test_packages(ws: &rust::Workspace, package: &str, scope: TestScope) -> Vec<String> {
    match scope {
        TestScope::Package => vec![package.to_string()],
        TestScope::Dependents => {
            let mut v = vec![package.to_string()];
            v.extend(ws.dependents.get(package).cloned().unwrap_or_default());
            v
        }
        TestScope::Workspace => ws.members.clone(),
    }
}

type Choice<'a> = (Vec<Chosen<'a>>, Option<diff::Base>, &'static str);

fn choose<'a>(ws: &'a rust::Workspace, cfg: &RunConfig) -> Result<Choice<'a>, RunError> {
    match &cfg.selection {
        Selection::All => Ok((ws.every(), None, "all")),
        Selection::Functions(specs) => {
            let mut out: Vec<Chosen<'a>> = Vec::new();
            for spec in specs {
                for c in ws.named(spec, &cfg.cwd).map_err(RunError::UnknownFunction)? {
                    if !out.iter().any(|o| std::ptr::eq(o.found, c.found)) {
                        out.push(c);
                    }
                }
            }
            Ok((out, None, "function"))
        }
        Selection::Diff => {
            let base = diff::resolve_base(&ws.root, cfg.base.as_deref())?;
            let changes = diff::changes(&ws.root, &base)?;
            Ok((ws.changed(&changes), Some(base), "diff"))
        }
    }
}
