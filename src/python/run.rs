//! One Python run, start to end: read the project, choose the changed (or named) functions,
//! copy the project to a scratch folder, explore each callable function through the Python
//! worker, test its mutants with the runner, and write the same report as `cargo abex` with
//! `"language": "python"`. Nothing here prints.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde::Deserialize;

use super::{model, phase, Chosen, Project};
use crate::exec::worker::{TargetEvaluator, Worker, WorkerSpec};
use crate::exec::ExecError;
use crate::explore::{self, ExploreConfig};
use crate::out::OutDir;
use crate::report::{ExplorationReport, Report, Settings, TargetReport};
use crate::targets::diff::{self, DiffError};
use crate::targets::Drive;

/// Exploration time of one function when the run has no time budget.
const EXPLORE_CAP: Duration = Duration::from_secs(30);

/// The settings of a Python run, as the pytest plugin sends them (JSON).
#[derive(Clone, Debug, Deserialize)]
#[serde(default)]
pub struct PyRunConfig {
    /// The project folder (pytest's rootdir).
    pub root: PathBuf,
    /// The project's interpreter (`sys.executable`).
    pub python: PathBuf,
    /// `--abex-function FILE::NAME`; empty: the functions the diff touches.
    pub functions: Vec<String>,
    /// Every function of the project instead of the diff's.
    pub all: bool,
    /// `--abex-base`.
    pub base: Option<String>,
    /// `--abex-out` (default `.abex/out` at the root).
    pub out: Option<PathBuf>,
    /// Pairs per function.
    pub pairs: usize,
    /// Wall-time budget of the run, in seconds.
    pub time_budget_s: Option<f64>,
    /// Random seed.
    pub seed: u64,
    /// Per-call time limit in milliseconds.
    pub call_timeout_ms: u64,
    /// Worker memory limit in MiB (0: none).
    pub memory_limit_mib: u64,
    /// Mutants tested at a time (one runner process each).
    pub jobs: usize,
    /// Whether to test mutants.
    pub mutate: bool,
    /// Inputs of the differential witness search per survivor.
    pub witness_evals: usize,
    /// Time limit of one mutant's tests, in seconds (default: from the baseline).
    pub test_timeout_s: Option<f64>,
    /// The model settings (`--abex-model`, `--abex-base-url`, budgets, agents, `--abex-offline`).
    pub llm: crate::llm::config::LlmOptions,
}

impl Default for PyRunConfig {
    fn default() -> Self {
        PyRunConfig {
            root: PathBuf::from("."),
            python: PathBuf::from("python3"),
            functions: Vec::new(),
            all: false,
            base: None,
            out: None,
            pairs: 1000,
            time_budget_s: None,
            seed: 0,
            call_timeout_ms: 1000,
            memory_limit_mib: 4096,
            jobs: 1,
            mutate: true,
            witness_evals: 2000,
            test_timeout_s: None,
            llm: Default::default(),
        }
    }
}

/// Errors that end a Python run.
#[derive(Debug, thiserror::Error)]
pub enum PyRunError {
    /// The diff could not be computed.
    #[error(transparent)]
    Diff(#[from] DiffError),
    /// A `--abex-function` does not name a function.
    #[error("{0}")]
    UnknownFunction(String),
    /// The project could not be read or copied.
    #[error(transparent)]
    Scratch(#[from] crate::scratch::ScratchError),
    /// A worker failed beyond recovery.
    #[error("failed to run `{target}`: {source}\nhint: check that `{python}` can import pytest_abex and the project")]
    Exec {
        /// The target.
        target: String,
        /// The interpreter.
        python: String,
        /// Why.
        source: ExecError,
    },
    /// The mutation phase failed.
    #[error(transparent)]
    Phase(#[from] phase::PhaseError),
    /// The model settings are broken.
    #[error(transparent)]
    Engine(#[from] crate::llm::engine::EngineError),
    /// Writing the output failed.
    #[error("failed to write `{path}`: {source}")]
    Output {
        /// Where.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
}

/// The worker's description of one target (see `pytest_abex/worker.py`).
pub(crate) fn worker_target(project: &Project, c: &Chosen) -> serde_json::Value {
    let pf = &project.files[c.file];
    let f = &pf.fns[c.func];
    let params: Vec<serde_json::Value> = f
        .params
        .iter()
        .zip(&f.tuples)
        .map(|(p, t)| serde_json::json!({ "ty": p.ty, "tuple": t }))
        .collect();
    serde_json::json!({
        "module": pf.module,
        "qualname": f.qualname,
        "kind": f.kind,
        "params": params,
    })
}

/// The import roots of the project inside `scratch`.
pub(crate) fn sys_path(project: &Project, scratch: &Path) -> Vec<PathBuf> {
    let mut roots: Vec<PathBuf> =
        project.files.iter().map(|f| scratch.join(&f.import_root)).collect();
    roots.sort();
    roots.dedup();
    roots
}

/// The spec of a worker over `targets`, written to `file`; the worker to run it.
pub(crate) fn worker_for(
    cfg: &PyRunConfig,
    scratch: &Path,
    spec_file: &Path,
    targets: &[serde_json::Value],
    sys_path: &[PathBuf],
) -> std::io::Result<Worker> {
    let spec = serde_json::json!({ "targets": targets, "sys_path": sys_path });
    std::fs::write(spec_file, spec.to_string())?;
    let env = vec![
        ("PYTHONDONTWRITEBYTECODE".to_string(), "1".to_string()),
        ("ABEX_INNER".to_string(), "1".to_string()),
    ];
    Ok(Worker::new(WorkerSpec {
        program: cfg.python.clone(),
        args: vec!["-m".into(), "pytest_abex.worker".into(), spec_file.display().to_string()],
        env,
        cwd: scratch.to_path_buf(),
        call_timeout: Duration::from_millis(cfg.call_timeout_ms),
        memory_limit: (cfg.memory_limit_mib > 0).then_some(cfg.memory_limit_mib << 20),
    }))
}

/// Runs abex on a Python project; returns the report and the folder it was written to.
pub fn run(cfg: &PyRunConfig) -> Result<(Report, PathBuf), PyRunError> {
    let started = Instant::now();
    let start_dir = cfg.root.canonicalize().unwrap_or_else(|_| cfg.root.clone());
    // The project is pytest's rootdir; the diff is taken in its repository.
    let root = start_dir.clone();
    let project = Project::load(&root)?;
    let (chosen, base, selection) = if !cfg.functions.is_empty() {
        let mut out: Vec<Chosen> = Vec::new();
        for spec in &cfg.functions {
            for c in project.named(spec, &start_dir).map_err(PyRunError::UnknownFunction)? {
                if !out.iter().any(|o| o.file == c.file && o.func == c.func) {
                    out.push(c);
                }
            }
        }
        (out, None, "function")
    } else if cfg.all {
        (project.every(), None, "all")
    } else {
        let base = diff::resolve_base(&root, cfg.base.as_deref())?;
        let changes = diff::changes(&root, &base)?;
        (project.changed(&changes), Some(base), "diff")
    };

    let out_path = cfg.out.clone().map_or_else(
        || root.join(".abex").join("out"),
        |o| {
            if o.is_absolute() {
                o
            } else {
                start_dir.join(o)
            }
        },
    );
    let out = OutDir::prepare(&out_path)
        .map_err(|source| PyRunError::Output { path: out_path.clone(), source })?;
    let time_budget = cfg.time_budget_s.map(Duration::from_secs_f64);
    let deadline = time_budget.map(|b| started + b);
    let (mut session, offline) = match crate::llm::engine::start(&cfg.llm, &root, deadline)? {
        Ok(s) => (Some(s), None),
        Err(r) => (None, Some(r)),
    };
    let mut report = Report {
        format: "abex-report".into(),
        version: crate::report::REPORT_VERSION,
        abex_version: env!("CARGO_PKG_VERSION").into(),
        language: "python".into(),
        project_root: root.clone(),
        base,
        selection: selection.into(),
        settings: Settings {
            engine: if session.is_some() { "model" } else { "offline" }.into(),
            pairs: cfg.pairs,
            time_budget_s: cfg.time_budget_s,
            seed: cfg.seed,
            call_timeout_ms: cfg.call_timeout_ms,
            shard: None,
        },
        complete: false,
        targets: Vec::new(),
        llm: offline,
    };
    let save = |report: &Report| {
        out.write_report(report)
            .map_err(|source| PyRunError::Output { path: out_path.join("report.json"), source })
    };
    save(&report)?;
    // Results of unchanged functions with unchanged tests and settings come from the cache.
    let cache = crate::cache::ResultCache::open(&root);
    let keys = cache_keys(cfg, &project, &chosen, session.as_ref());
    let cached: Vec<Option<TargetReport>> = keys
        .iter()
        .zip(&chosen)
        .map(|(k, c)| {
            cache.get(k).map(|mut tr| {
                tr.target = c.target.clone();
                tr
            })
        })
        .collect();
    if cached.iter().all(Option::is_some) {
        report.targets = cached.into_iter().flatten().collect();
        report.llm = report.llm.take().or_else(|| session.as_ref().map(|s| s.report.clone()));
        report.complete = true;
        out.write_all(&report)
            .map_err(|source| PyRunError::Output { path: out_path.clone(), source })?;
        return Ok((report, out_path));
    }

    // The scratch copy: everything runs there, never in the user's tree.
    let scratch = root.join(".abex").join("scratch").join("python");
    let skip: Vec<PathBuf> = super::SKIP_DIRS.iter().map(|d| root.join(d)).collect();
    crate::scratch::sync(&root, &scratch, &BTreeMap::new(), &skip)?;
    let work = tempfile::tempdir_in(root.join(".abex"))
        .map_err(|source| PyRunError::Output { path: root.join(".abex"), source })?;
    let sys_path = sys_path(&project, &scratch);
    let driven: Vec<usize> =
        (0..chosen.len()).filter(|&i| chosen[i].target.drive == Drive::Supported).collect();
    let specs: Vec<serde_json::Value> =
        driven.iter().map(|&i| worker_target(&project, &chosen[i])).collect();
    let spec_file = work.path().join("worker.json");
    let mut worker = worker_for(cfg, &scratch, &spec_file, &specs, &sys_path)
        .map_err(|source| PyRunError::Output { path: spec_file.clone(), source })?;

    let traced: Vec<(String, String)> = chosen
        .iter()
        .map(|c| {
            let pf = &project.files[c.file];
            (pf.module.clone(), pf.fns[c.func].qualname.clone())
        })
        .collect();
    let mut reports: Vec<TargetReport> = Vec::new();
    let mut archives = Vec::new();
    // The mutation phase's test runners start (collection, traced baseline) while the
    // functions are explored.
    let (explored, warmed) = std::thread::scope(|s| {
        let warm = s.spawn(|| {
            if !cfg.mutate {
                return Vec::new();
            }
            let spec = work.path().join("warm");
            phase::warm_runners(cfg, &project, &scratch, &spec, &sys_path, &traced, &chosen)
        });
        let explored = (|| -> Result<(), PyRunError> {
            for (i, c) in chosen.iter().enumerate() {
                let mut exploration = None;
                let mut elites = Vec::new();
                if let Some(tr) = &cached[i] {
                    archives.push(elites);
                    reports.push(tr.clone());
                    continue;
                }
                if let Some(id) = driven.iter().position(|&d| d == i) {
                    let params = c.target.param_types().unwrap_or_default();
                    let left = driven.len() - id;
                    let budget = Some(time_budget.map_or(EXPLORE_CAP, |b| {
                        (b / 2).saturating_sub(started.elapsed()) / left.max(1) as u32
                    }));
                    let ecfg = ExploreConfig {
                        pairs: cfg.pairs,
                        time_budget: budget,
                        seed: cfg.seed,
                        ..ExploreConfig::default()
                    };
                    let mut eval = TargetEvaluator { worker: &mut worker, id };
                    let subject =
                        session.as_ref().map(|_| model::subject(&project, c, params.clone()));
                    let mut agents = session.as_mut().zip(subject.as_ref()).map(|(s, subject)| {
                        let calls = s.cfg.explorer_calls;
                        crate::llm::agents::Agents::new(s, subject, &root, calls, cfg.seed)
                    });
                    let proposer = agents.as_mut().map(|a| a as &mut dyn explore::Proposer);
                    let x = explore::explore_with(&params, &mut eval, &ecfg, &mut |_| {}, proposer)
                        .map_err(|source| PyRunError::Exec {
                            target: c.target.qualified_name.clone(),
                            python: cfg.python.display().to_string(),
                            source,
                        })?;
                    if let Some(a) = agents {
                        a.finish();
                    }
                    elites = x.archive.elites().into_iter().cloned().collect();
                    exploration = Some(ExplorationReport::of(&x));
                }
                archives.push(elites);
                reports.push(TargetReport {
                    target: c.target.clone(),
                    exploration,
                    mutation: None,
                });
                report.targets = reports.clone();
                report.llm = session.as_ref().map(|s| s.report.clone()).or(report.llm.take());
                save(&report)?;
            }
            Ok(())
        })();
        (explored, warm.join().unwrap_or_default())
    });
    explored?;

    if cfg.mutate {
        let ctx = phase::Context {
            cfg,
            project: &project,
            scratch: &scratch,
            work: work.path(),
            sys_path: &sys_path,
            deadline,
            traced,
            runners: std::cell::RefCell::new(warmed),
        };
        for (k, c) in chosen.iter().enumerate() {
            if cached[k].is_some() {
                continue;
            }
            let id = driven.iter().position(|&d| d == k);
            let mut mutants = phase::rule_mutants(&project, c);
            if let Some(s) = session.as_mut() {
                let count = s.cfg.mutants;
                mutants.extend(model::mutants(s, &project, c, count, ""));
            }
            let mut m = phase::run(&ctx, c, &archives[k], &mutants, (&mut worker, id))?;
            if let Some(s) = session.as_mut() {
                let mut again = |fresh: &[crate::mutate::Mutant]| {
                    phase::run(&ctx, c, &archives[k], fresh, (&mut worker, id))
                };
                model::feedback_rounds(s, &project, c, &mut m, &mut again)?;
            }
            reports[k].mutation = Some(m);
            report.targets = reports.clone();
            report.llm = session.as_ref().map(|s| s.report.clone()).or(report.llm.take());
            save(&report)?;
        }
    }
    for (k, tr) in reports.iter().enumerate() {
        if cached[k].is_none() {
            cache.put(&keys[k], tr);
        }
    }
    report.targets = reports;
    report.llm = session.as_ref().map(|s| s.report.clone()).or(report.llm.take());
    report.complete = true;
    out.write_all(&report)
        .map_err(|source| PyRunError::Output { path: out_path.clone(), source })?;
    Ok((report, out_path))
}

/// The results-cache key of each chosen function: the run's settings (the model's included),
/// every test file of the project, and the function's name and source.
fn cache_keys(
    cfg: &PyRunConfig,
    project: &Project,
    chosen: &[Chosen],
    session: Option<&crate::llm::session::Session>,
) -> Vec<String> {
    let model = session.map(crate::llm::engine::settings_fingerprint);
    let settings = format!(
        "python|{}|{}|{}|{}|{}|{:?}|{:?}|{model:?}",
        cfg.pairs,
        cfg.seed,
        cfg.call_timeout_ms,
        cfg.mutate,
        cfg.witness_evals,
        cfg.test_timeout_s,
        cfg.python,
    );
    let mut tests: Vec<u8> = Vec::new();
    for t in &project.tests {
        tests.extend_from_slice(t.display().to_string().as_bytes());
        tests.push(0);
        tests.extend(std::fs::read(project.root.join(t)).unwrap_or_default());
        tests.push(0);
    }
    let tests_fp = crate::cache::key(&[&tests]);
    chosen
        .iter()
        .map(|c| {
            let pf = &project.files[c.file];
            let f = &pf.fns[c.func];
            crate::cache::key(&[
                settings.as_bytes(),
                tests_fp.as_bytes(),
                pf.module.as_bytes(),
                f.qualname.as_bytes(),
                &pf.text.as_bytes()[f.byte_span.0..f.byte_span.1],
            ])
        })
        .collect()
}
