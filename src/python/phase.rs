//! The mutation phase of one Python function: the baseline and a self-check through the runner,
//! every rule-based mutant's tests, witnesses for the survivors (the explored archive first,
//! then a differential search), the boundaries they unpin, and suggested pytest tests that are
//! run on the original and on each survivor before they are suggested.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::run::{worker_for, worker_target, PyRunConfig};
use super::runner::{Patch, RunResult, Runner, RunnerError};
use super::suggest::{self, Callee};
use super::{Chosen, Project, PyFile};
use crate::archive::Pair;
use crate::exec::worker::{TargetEvaluator, Worker};
use crate::exec::ExecError;
use crate::mutate::{python_rules, Mutant};
use crate::report::{
    MutantCounts, MutantReport, MutantStatus, MutationReport, SuggestedTest, UnpinnedBoundary,
    Witness,
};
use crate::targets::Drive;
use crate::value::{stringify_input, Outcome};
use crate::witness;

/// What the phase shares across functions.
pub struct Context<'a> {
    /// The run's settings.
    pub cfg: &'a PyRunConfig,
    /// The project.
    pub project: &'a Project,
    /// The scratch copy.
    pub scratch: &'a Path,
    /// A private folder for specs and patches.
    pub work: &'a Path,
    /// The import roots inside the scratch copy.
    pub sys_path: &'a [PathBuf],
    /// When the run's time budget ends.
    pub deadline: Option<Instant>,
    /// Every function of the run, (module, qualname): a runner's baseline traces them all.
    pub traced: Vec<(String, String)>,
    /// Runners kept for the next function with the same test files (collection is paid once).
    pub runners: std::cell::RefCell<Vec<(Vec<PathBuf>, Runner)>>,
}

/// Errors that end the phase.
#[derive(Debug, thiserror::Error)]
pub enum PhaseError {
    /// The runner failed.
    #[error(transparent)]
    Runner(#[from] RunnerError),
    /// The tests fail without any mutant.
    #[error("the tests that reach `{function}` fail before any mutation ({failed})\nhint: fix the failing tests first; abex needs a passing baseline")]
    BaselineFails {
        /// The function.
        function: String,
        /// What failed.
        failed: String,
    },
    /// A worker failed.
    #[error("failed to run `{function}` for a witness: {source}")]
    Exec {
        /// The function.
        function: String,
        /// Why.
        source: ExecError,
    },
    /// A spec or patch file could not be written.
    #[error("failed to write `{path}`: {source}")]
    Io {
        /// Where.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
}

/// The test files that can reach `f`: those that name its module and the function (or its
/// class), the selection by import and name.
pub fn reaching_tests(project: &Project, pf: &PyFile, qualname: &str) -> Vec<PathBuf> {
    let last = pf.module.rsplit('.').next().unwrap_or(&pf.module).to_string();
    let head = qualname.split('.').next().unwrap_or(qualname);
    let tail = qualname.rsplit('.').next().unwrap_or(qualname);
    project
        .tests
        .iter()
        .filter(|t| t.file_name().is_some_and(|n| n != "conftest.py"))
        .filter(|t| {
            std::fs::read_to_string(project.root.join(t)).is_ok_and(|text| {
                text.contains(&last) && (text.contains(head) || text.contains(tail))
            })
        })
        .cloned()
        .collect()
}

fn write(path: &Path, text: &str) -> Result<(), PhaseError> {
    std::fs::write(path, text).map_err(|source| PhaseError::Io { path: path.to_path_buf(), source })
}

struct Tested {
    status: MutantStatus,
    killed_by: Option<String>,
    /// The killing test's exception, or why the mutant is unviable (fed back to the model).
    failure: Option<String>,
    time: Duration,
}

fn tested(r: &RunResult) -> Tested {
    let status = match r.status.as_str() {
        "pass" => MutantStatus::Survived,
        "timeout" => MutantStatus::Timeout,
        "unviable" => MutantStatus::Unviable,
        _ => MutantStatus::Killed,
    };
    let killed_by =
        r.failed.first().cloned().or_else(|| (!r.detail.is_empty()).then(|| r.detail.clone()));
    let failure = match status {
        MutantStatus::Killed => Some(&r.message),
        MutantStatus::Unviable => Some(&r.detail),
        _ => None,
    }
    .filter(|f| !f.is_empty())
    .cloned();
    Tested { status, killed_by, failure, time: Duration::from_secs_f64(r.time.max(0.0)) }
}

/// Starts a runner for each distinct set of test files of `chosen` and runs its traced
/// baseline over `traced`, so that it is ready when the phase reaches the function (it runs on
/// a thread while the functions are explored). A runner that fails to start is left out: the
/// phase starts it again and reports why.
pub fn warm_runners(
    cfg: &PyRunConfig,
    project: &Project,
    scratch: &Path,
    spec_prefix: &Path,
    sys_path: &[PathBuf],
    traced: &[(String, String)],
    chosen: &[Chosen],
) -> Vec<(Vec<PathBuf>, Runner)> {
    let mut sets: Vec<Vec<PathBuf>> = Vec::new();
    for c in chosen {
        let pf = &project.files[c.file];
        let tests = reaching_tests(project, pf, &pf.fns[c.func].qualname);
        if !tests.is_empty() && !sets.contains(&tests) {
            sets.push(tests);
        }
    }
    let mut out = Vec::new();
    for (i, tests) in sets.into_iter().enumerate() {
        let spec = spec_prefix.with_file_name(format!("warm-{i}.json"));
        let Ok(mut runner) = Runner::start(cfg, scratch, &spec, &tests, sys_path) else {
            continue;
        };
        if runner.baseline(traced, Duration::from_secs(600)).is_ok() {
            out.push((tests, runner));
        }
    }
    out
}

/// The rule-based mutants of `c`.
pub fn rule_mutants(project: &Project, c: &Chosen) -> Vec<Mutant> {
    let pf = &project.files[c.file];
    python_rules::mutants_of(&pf.text, &pf.rel, &c.target.qualified_name, pf.fns[c.func].body_span)
}

/// Runs the phase for `c`, whose explored archive elites are `elites`, on `mutants` (rule-based
/// and validated model-written ones); `original` is the explorer's worker and `c`'s id in it
/// (the original's side of the differential search).
pub fn run(
    ctx: &Context<'_>,
    c: &Chosen,
    elites: &[Pair],
    mutants: &[Mutant],
    original: (&mut Worker, Option<usize>),
) -> Result<MutationReport, PhaseError> {
    let pf = &ctx.project.files[c.file];
    let f = &pf.fns[c.func];
    let qn = &c.target.qualified_name;
    let deadline = ctx.deadline;
    let past_deadline = move || deadline.is_some_and(|d| Instant::now() >= d);

    let check = python_rules::self_check(&pf.text, &pf.rel, qn, f.body_span);
    let patch = |m: &Mutant| {
        let file = ctx.scratch.join(&pf.rel);
        Patch::of_function(&pf.module, &f.qualname, file, &pf.text, f.byte_span, &m.apply(&pf.text))
    };
    let tests = reaching_tests(ctx.project, pf, &f.qualname);
    let files = tests.iter().map(|t| t.display().to_string()).collect::<Vec<_>>().join(", ");
    let mut reached: Option<usize> = None;

    let mut results: BTreeMap<usize, Tested> = BTreeMap::new();
    let mut self_check_killed = Some(false);
    let mut timeout =
        ctx.cfg.test_timeout_s.map_or(Duration::from_secs(5), Duration::from_secs_f64);
    if tests.is_empty() {
        // No test reaches the function: every mutant survives them.
        for k in 0..mutants.len() {
            results.insert(
                k,
                Tested {
                    status: MutantStatus::Survived,
                    killed_by: None,
                    failure: None,
                    time: Duration::ZERO,
                },
            );
        }
    } else {
        let spec = ctx.work.join(format!("runner-{}.json", c.file * 10_000 + c.func));
        let kept = ctx.runners.borrow().iter().position(|(t, _)| *t == tests);
        let mut runner = match kept {
            Some(i) => ctx.runners.borrow_mut().swap_remove(i).1,
            None => Runner::start(ctx.cfg, ctx.scratch, &spec, &tests, ctx.sys_path)?,
        };
        // One traced baseline serves every function that shares the runner.
        let key = format!("{}:{}", pf.module, f.qualname);
        let base = match runner.traced.clone().filter(|b| b.reached.contains_key(&key)) {
            Some(b) => b,
            None => runner.baseline(&ctx.traced, Duration::from_secs(600))?,
        };
        reached = Some(base.reached.get(&key).map_or(0, Vec::len));
        if base.status != "pass" {
            let failed =
                if base.failed.is_empty() { base.detail.clone() } else { base.failed.join(", ") };
            return Err(PhaseError::BaselineFails { function: qn.clone(), failed });
        }
        if ctx.cfg.test_timeout_s.is_none() {
            timeout = crate::lab::timeout_from_baseline(Duration::from_secs_f64(base.time));
        }
        self_check_killed =
            Some(runner.run(Some(&patch(&check)), timeout, false)?.status != "pass");
        // `jobs` runners, each with its share of the mutants, one thread each.
        let jobs = ctx.cfg.jobs.clamp(1, mutants.len().max(1));
        let mut runners = vec![runner];
        for j in 1..jobs {
            let spec = ctx.work.join(format!("runner-{}-{j}.json", c.file * 10_000 + c.func));
            let mut r = Runner::start(ctx.cfg, ctx.scratch, &spec, &tests, ctx.sys_path)?;
            r.baseline(&ctx.traced, Duration::from_secs(600))?;
            runners.push(r);
        }
        let (patch, past_deadline, mutants) = (&patch, &past_deadline, &mutants);
        let outs: Vec<Result<Vec<(usize, Tested)>, RunnerError>> = std::thread::scope(|s| {
            let handles: Vec<_> = runners
                .iter_mut()
                .enumerate()
                .map(|(j, r)| {
                    s.spawn(move || {
                        let mut got = Vec::new();
                        for k in (j..mutants.len()).step_by(jobs) {
                            if past_deadline() {
                                break;
                            }
                            got.push((
                                k,
                                tested(&r.run(Some(&patch(&mutants[k])), timeout, false)?),
                            ));
                        }
                        Ok(got)
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| {
                    h.join().unwrap_or_else(|_| {
                        Err(RunnerError::Broken("a runner thread panicked".into()))
                    })
                })
                .collect()
        });
        for got in outs {
            results.extend(got?);
        }
        if let Some(first) = runners.into_iter().next() {
            ctx.runners.borrow_mut().push((tests.clone(), first));
        }
    }

    // Witnesses and pinning, when the function can be driven.
    let mut witnesses: BTreeMap<usize, Witness> = BTreeMap::new();
    let mut searches: BTreeMap<usize, (Option<witness::Unwitnessed>, u64)> = BTreeMap::new();
    let mut unpinned: BTreeMap<usize, Vec<String>> = BTreeMap::new();
    let mut suggestions: Vec<(usize, String, String)> = Vec::new();
    let (original, original_id) = original;
    if let (Drive::Supported, Some(original_id)) = (&c.target.drive, original_id) {
        let exec_err = |source| PhaseError::Exec { function: qn.clone(), source };
        let known = witness::known_inputs(elites);
        let params = c.target.param_types().unwrap_or_default();
        // One worker calls every survivor: target `i` is the `i`-th survivor's mutant.
        let survivors: Vec<usize> = (0..mutants.len())
            .filter(|k| results.get(k).map(|r| r.status) == Some(MutantStatus::Survived))
            .collect();
        let with_patches: Vec<serde_json::Value> = survivors
            .iter()
            .map(|&k| {
                let mut t = worker_target(ctx.project, c);
                t["patch"] = serde_json::to_value(patch(&mutants[k])).unwrap_or_default();
                // Probe mode: the worker instruments the mutant's site (reach/infection).
                t["probe"] = serde_json::json!(witness::directed_enabled());
                t
            })
            .collect();
        let mspec = ctx.work.join("mutants.json");
        let mut mw = worker_for(ctx.cfg, ctx.scratch, &mspec, &with_patches, ctx.sys_path)
            .map_err(|source| PhaseError::Io { path: mspec.clone(), source })?;
        let mut oe = TargetEvaluator { worker: original, id: original_id };
        let mut oe = witness::Remembered::new(&mut oe);
        // One seed per function: its searches try the same inputs, the original's run once.
        let search_seed = witness::search_seed(ctx.cfg.seed, qn);
        for (id, &k) in survivors.iter().enumerate() {
            let m = &mutants[k];
            if past_deadline() {
                break;
            }
            let mut me = TargetEvaluator { worker: &mut mw, id };
            let source = pf.text.get(f.byte_span.0..f.byte_span.1).unwrap_or_default();
            let hints = super::constants::of_source(source).for_mutant(m);
            let survivor = witness::Survivor { params: &params, known: &known, hints: &hints };
            let limits = witness::Limits {
                evals: ctx.cfg.witness_evals,
                seed: search_seed,
                until: Some(witness::search_until(deadline)),
            };
            let found = witness::find(&survivor, &mut oe, &mut me, &limits).map_err(exec_err)?;
            let (w, outs) = (found.witness, found.outcomes);
            if w.is_some() {
                for ci in witness::moved_boundaries(elites, &known, &outs) {
                    unpinned.entry(ci).or_default().push(m.id.clone());
                }
            }
            searches.insert(k, (found.unwitnessed, found.time.as_millis() as u64));
            // A mutant the worker could not load answers "bad arguments": no witness.
            let w = w.filter(
                |w| !matches!(&w.mutant, Outcome::Error { ty, .. } if ty == "abex: bad arguments"),
            );
            if let Some(w) = w {
                let name = format!(
                    "test_abex_{}_{}",
                    f.name.to_lowercase().trim_start_matches('_'),
                    &m.id[..8.min(m.id.len())]
                );
                let why = format!(
                    "abex: pins `{}` on {} (kills mutant {}: {})",
                    f.qualname,
                    stringify_input(&w.input),
                    m.id,
                    m.description.replace('\n', " ")
                );
                let callee = Callee {
                    module: &pf.module,
                    qualname: &f.qualname,
                    kind: f.kind,
                    params: &params,
                    tuples: &f.tuples,
                };
                if let Some(code) = suggest::test_fn(&callee, &w, &name, &why) {
                    suggestions.push((k, name, code));
                }
                witnesses.insert(k, w);
            }
        }
    }

    // Suggested tests: run on the original (must pass) and on every witnessed survivor.
    let mut kills: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    let mut codes: BTreeMap<String, String> = BTreeMap::new();
    if !suggestions.is_empty() && !past_deadline() {
        let text: Vec<&str> = suggestions.iter().map(|(_, _, code)| code.as_str()).collect();
        let text = text.join("\n\n");
        // Named after its content: a runner collects a file once (and imports it as a module
        // of that name), so a later round's tests of the same function need a new name.
        let file = PathBuf::from(format!(
            "test_abex_suggested_{}_{}.py",
            f.name.to_lowercase().trim_start_matches('_'),
            &crate::cache::key(&[text.as_bytes()])[..8]
        ));
        write(&ctx.scratch.join(&file), &text)?;
        let spec = ctx.work.join("suggested.json");
        let files = [file.clone()];
        // The runner of the function's tests collects the file in its forks; without one, a
        // runner of the file alone.
        let kept = ctx.runners.borrow().iter().position(|(t, _)| *t == tests);
        let mut runner = match kept {
            Some(i) => ctx.runners.borrow_mut().swap_remove(i).1,
            None => Runner::start(ctx.cfg, ctx.scratch, &spec, &files, ctx.sys_path)?,
        };
        let node = |name: &str| format!("{}::{name}", file.display());
        let base = runner.run_files(None, timeout, &files)?;
        let passing: Vec<&(usize, String, String)> = suggestions
            .iter()
            .filter(|(_, name, _)| !base.failed.contains(&node(name)) && base.status != "timeout")
            .collect();
        let mut killed_by: BTreeMap<usize, Vec<String>> = BTreeMap::new();
        for k in witnesses.keys() {
            let r = runner.run_files(Some(&patch(&mutants[*k])), timeout, &files)?;
            killed_by.insert(*k, r.failed);
        }
        for (k, name, code) in passing {
            let killed: Vec<usize> = killed_by
                .iter()
                .filter(|(_, failed)| failed.contains(&node(name)))
                .map(|(n, _)| *n)
                .collect();
            if killed.contains(k) {
                kills.insert(name.clone(), killed);
                codes.insert(name.clone(), code.clone());
            }
        }
        if kept.is_some() {
            ctx.runners.borrow_mut().push((tests.clone(), runner));
        }
        let _ = std::fs::remove_file(ctx.scratch.join(&file));
    }
    // The smallest set of suggested tests that kills every survivor some test kills.
    let chosen = crate::report::smallest_killing_set(&kills);

    let mut counts = MutantCounts { total: mutants.len(), ..Default::default() };
    let mut reports = Vec::new();
    for (k, m) in mutants.iter().enumerate() {
        let r = results.get(&k);
        let status = r.map_or(MutantStatus::NotTested, |r| r.status);
        let witness = witnesses.get(&k).cloned();
        counts.add(status, witness.is_some());
        reports.push(MutantReport {
            id: m.id.clone(),
            origin: m.origin,
            operator: m.operator,
            description: m.description.clone(),
            file: pf.rel.clone(),
            line: m.line,
            column: m.column,
            original: m.original.clone(),
            replacement: m.replacement.clone(),
            diff: m.diff(&pf.text, &pf.rel.display().to_string()),
            status,
            killed_by: r.and_then(|r| r.killed_by.clone()),
            failure: r.and_then(|r| r.failure.clone()),
            possibly_equivalent: status == MutantStatus::Survived && witness.is_none(),
            unwitnessed: searches.get(&k).and_then(|s| s.0.clone()),
            search_ms: searches.get(&k).map(|s| s.1),
            witness,
            suggested_test: chosen.iter().find(|(_, ks)| ks.contains(&k)).map(|(n, _)| n.clone()),
            time_ms: r.map_or(0, |r| r.time.as_millis() as u64),
        });
    }
    reports.sort_by_key(|m| (m.status != MutantStatus::Survived, m.witness.is_none(), m.line));
    let id_of = |k: usize| mutants[k].id.clone();
    let suggested_tests = chosen
        .iter()
        .map(|(name, ks)| SuggestedTest {
            name: name.clone(),
            code: codes[name].clone(),
            kills: ks.iter().map(|k| id_of(*k)).collect(),
        })
        .collect();
    let unpinned =
        unpinned.into_iter().map(|(ci, ms)| UnpinnedBoundary::of(&elites[ci], ms)).collect();
    // Which tests ran: files by import and name, then the tests that call the function.
    let test_tool = match reached {
        None => "pytest in a forked runner: no test file names the function".to_string(),
        Some(n) => format!(
            "pytest in a forked runner: {n} tests that call the function (per-test call tracing) of {files} (selected by import and name)"
        ),
    };
    Ok(MutationReport {
        self_check_killed,
        test_tool,
        counts,
        mutants: reports,
        unpinned,
        suggested_tests,
    })
}
