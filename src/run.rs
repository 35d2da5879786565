//! One `cargo abex` run, start to end: load the workspace, choose targets, build a harness per
//! crate target in a scratch copy, explore each supported target, and write the report as it
//! goes. Progress is reported as [`Event`]s; nothing here prints.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::exec::worker::{TargetEvaluator, Worker, WorkerSpec};
use crate::exec::ExecError;
use crate::explore::{self, ExploreConfig, Progress};
use crate::report::{ExplorationReport, OutDir, Report, Settings, TargetReport};
use crate::rust::harness::{self, HarnessError, Host};
use crate::rust::{self, Chosen, WorkspaceError};
use crate::targets::diff::{self, DiffError};
use crate::targets::{Drive, Target};

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
            RunError::Harness(HarnessError::CrateDoesNotBuild { .. }) => 2,
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
    let (chosen, base, selection) = choose(&ws, cfg)?;
    let targets: Vec<Target> = chosen.iter().map(|c| c.target.clone()).collect();
    on_event(Event::Targets { root: &ws.root, targets: &targets });

    let out_path = cfg.out.clone().unwrap_or_else(|| ws.root.join(".abex").join("out"));
    let out = OutDir::prepare(&out_path)
        .map_err(|source| RunError::Output { path: out_path.clone(), source })?;
    let mut report = Report {
        format: "abex-report",
        version: crate::report::REPORT_VERSION,
        abex_version: env!("CARGO_PKG_VERSION"),
        language: "rust",
        project_root: ws.root.clone(),
        base,
        selection,
        settings: Settings {
            engine: "offline",
            pairs: cfg.pairs,
            time_budget_s: cfg.time_budget.map(|d| d.as_secs_f64()),
            seed: cfg.seed,
            call_timeout_ms: cfg.call_timeout.as_millis() as u64,
        },
        complete: false,
        targets: Vec::new(),
    };
    let save = |report: &Report| {
        out.write_report(report)
            .map_err(|source| RunError::Output { path: out_path.join("report.json"), source })
    };
    save(&report)?;

    // Group the supported targets by crate target: one harness each.
    let mut by_crate: Vec<(usize, Vec<usize>)> = Vec::new();
    for (i, c) in chosen.iter().enumerate() {
        if c.target.drive != Drive::Supported {
            continue;
        }
        match by_crate.iter_mut().find(|(k, _)| *k == c.krate) {
            Some((_, v)) => v.push(i),
            None => by_crate.push((c.krate, vec![i])),
        }
    }
    let mut results: Vec<Option<TargetReport>> = vec![None; chosen.len()];
    let mut done = 0usize;
    let finish = |i: usize,
                  tr: TargetReport,
                  results: &mut Vec<Option<TargetReport>>,
                  on_event: &mut dyn FnMut(Event<'_>)| {
        on_event(Event::Done { index: i, report: &tr });
        results[i] = Some(tr);
    };
    for (i, c) in chosen.iter().enumerate() {
        if c.target.drive != Drive::Supported {
            finish(
                i,
                TargetReport { target: c.target.clone(), exploration: None },
                &mut results,
                on_event,
            );
        }
    }
    let supported_total: usize = by_crate.iter().map(|(_, v)| v.len()).sum();
    for (krate, members) in &by_crate {
        let ct = &ws.crates[*krate];
        on_event(Event::Building { package: &ct.package, functions: members.len() });
        let kind = match &ct.host {
            Host::Lib { .. } => "lib".to_string(),
            Host::Bin { name } => format!("bin-{name}"),
        };
        let scratch = ws.root.join(".abex").join("scratch").join(format!("{}-{kind}", ct.package));
        let fns = members.iter().map(|&i| chosen[i].found).collect();
        let req = ct.harness_request(&ws.root, fns, &scratch);
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
        for (id, &i) in members.iter().enumerate() {
            let mut target = chosen[i].target.clone();
            if let Some(reason) = built.dropped.get(&id) {
                target.drive =
                    Drive::Unsupported { reason: format!("the harness cannot call it: {reason}") };
                finish(i, TargetReport { target, exploration: None }, &mut results, on_event);
                done += 1;
                continue;
            }
            let params = target.param_types().unwrap_or_default();
            // Split what is left of the time budget evenly over the targets still to explore.
            let time_budget = cfg.time_budget.map(|b| {
                let left = b.saturating_sub(started.elapsed());
                left / (supported_total - done).max(1) as u32
            });
            let ecfg = ExploreConfig {
                pairs: cfg.pairs,
                time_budget,
                seed: cfg.seed,
                ..ExploreConfig::default()
            };
            on_event(Event::Exploring { index: i, target: &target, pairs: cfg.pairs });
            let mut eval = TargetEvaluator { worker: &mut worker, id };
            let mut progress = |p: &Progress| on_event(Event::Progress { index: i, progress: p });
            let exploration =
                explore::explore(&params, &mut eval, &ecfg, &mut progress).map_err(|source| {
                    RunError::Exec { target: target.qualified_name.clone(), source }
                })?;
            let tr =
                TargetReport { target, exploration: Some(ExplorationReport::of(&exploration)) };
            finish(i, tr, &mut results, on_event);
            done += 1;
            report.targets = results.iter().flatten().cloned().collect();
            save(&report)?;
        }
    }
    report.targets = results.into_iter().flatten().collect();
    report.complete = true;
    save(&report)?;
    Ok((report, out_path))
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
