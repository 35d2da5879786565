//! The mutation phase of a run, for the targets of one crate: the baseline, a self-check per
//! target, every mutant's tests (switched mutants share one build; the others get a build of
//! their own), witnesses for the survivors, the boundaries they unpin, and suggested tests that
//! are built and run before they are suggested.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::archive::Pair;
use crate::exec::worker::{TargetEvaluator, Worker, WorkerSpec};
use crate::exec::ExecError;
use crate::lab::{self, TestResult, TestSuite};
use crate::mutate::{Mutant, Operator, Origin};
use crate::report::{
    MutantCounts, MutantReport, MutantStatus, MutationReport, SuggestedTest, UnpinnedBoundary,
    Witness,
};
use crate::rust::harness::{self, Harness, HarnessError, HarnessRequest, Part};
use crate::rust::source::FoundFn;
use crate::rust::suggest;
use crate::value::stringify_input;
use crate::witness;

/// Which tests run against a mutant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TestScope {
    /// The tests of the package that owns the function.
    Package,
    /// Those, and the tests of the workspace packages that depend on it.
    Dependents,
    /// Every workspace package's tests.
    Workspace,
}

/// Settings of the mutation phase.
#[derive(Clone, Debug)]
pub struct MutationConfig {
    /// Mutants tested at a time.
    pub jobs: usize,
    /// Inputs tried by the differential witness search per survivor.
    pub witness_evals: usize,
    /// Random seed (witness search).
    pub seed: u64,
    /// Per-call time limit of the harness.
    pub call_timeout: Duration,
    /// Harness memory limit in bytes.
    pub memory_limit: Option<u64>,
    /// When the run's time budget ends.
    pub deadline: Option<Instant>,
    /// Time limit of one mutant's tests (default: from the baseline).
    pub test_timeout: Option<Duration>,
}

/// Errors that end the mutation phase.
#[derive(Debug, thiserror::Error)]
pub enum MutationError {
    /// The tests fail without any mutant.
    #[error("the tests of `{package}` fail before any mutation (test `{test}`):\n{output}\nhint: fix the failing test first; abex needs a passing baseline")]
    BaselineFails {
        /// The package.
        package: String,
        /// The failing test.
        test: String,
        /// The end of its output.
        output: String,
    },
    /// The tests hang without any mutant.
    #[error("the tests of `{package}` did not finish within {secs} s before any mutation")]
    BaselineHangs {
        /// The package.
        package: String,
        /// The limit.
        secs: u64,
    },
    /// A build failed.
    #[error(transparent)]
    Harness(#[from] HarnessError),
    /// A worker failed.
    #[error(transparent)]
    Exec(#[from] ExecError),
}

/// One target of the phase.
pub struct PhaseTarget<'a> {
    /// The function.
    pub found: &'a FoundFn,
    /// Its harness id, when it can be driven.
    pub harness_id: Option<usize>,
    /// Its explored archive elites, strongest first (empty when not explored).
    pub elites: Vec<Pair>,
    /// Its mutants, numbered.
    pub mutants: Vec<(u32, Mutant)>,
    /// The number of its self-check mutant.
    pub self_check: u32,
    /// Whether its code is not compiled under the current features (its mutants are then
    /// "not exercised", never survivors).
    pub not_compiled: bool,
}

/// The self-check mutant of a function: its body replaced by a panic.
pub fn self_check_mutant(f: &FoundFn, file_rel: &Path, text: &str) -> Mutant {
    let (s, e) = f.body_span;
    Mutant {
        id: "self-check".into(),
        origin: Origin::Rules,
        operator: Operator::ReplaceBody,
        function: f.qualified_name(),
        file: f.file.clone(),
        line: f.span.start_line,
        column: 1,
        span: (s, e),
        original: text.get(s..e).unwrap_or_default().to_string(),
        replacement: "{ ::std::panic!(\"abex self-check\") }".into(),
        switchable: true,
        description: format!(
            "self-check: the body of `{}` replaced by a panic ({})",
            f.name,
            file_rel.display()
        ),
    }
}

fn worker(h: &Harness, cfg: &MutationConfig, mutant: Option<u32>) -> Worker {
    Worker::new(WorkerSpec {
        program: h.exe.clone(),
        args: Vec::new(),
        env: mutant.map(|n| vec![("ABEX_MUTANT".to_string(), n.to_string())]).unwrap_or_default(),
        cwd: h.cwd.clone(),
        call_timeout: cfg.call_timeout,
        memory_limit: cfg.memory_limit,
    })
}

fn suite(h: &Harness, package: &str) -> TestSuite {
    TestSuite {
        binaries: h.tests.clone(),
        cwd: h.cwd.clone(),
        env: lab::cargo_test_env(&h.cwd, package),
    }
}

/// What happened to one mutant number.
#[derive(Clone, Debug)]
struct Tested {
    status: MutantStatus,
    killed_by: Option<String>,
    /// The killing test's own output (killed), or the build error (unviable).
    detail: Option<String>,
    time: Duration,
}

fn tested(r: &TestResult, time: Duration) -> Tested {
    match r {
        TestResult::Pass => {
            Tested { status: MutantStatus::Survived, killed_by: None, detail: None, time }
        }
        TestResult::Fail { test, output } => Tested {
            status: MutantStatus::Killed,
            killed_by: Some(test.clone()),
            detail: Some(crate::lab::failure_of(output, test)),
            time,
        },
        TestResult::Timeout => {
            Tested { status: MutantStatus::Timeout, killed_by: None, detail: None, time }
        }
    }
}

/// Runs the phase. `req` is the request the harness `h` was built from (with every mutant
/// switched); it is rebuilt with the suggested tests, and cloned for mutants built alone.
pub fn run(
    req: &HarnessRequest<'_>,
    h: &Harness,
    targets: &[PhaseTarget<'_>],
    cfg: &MutationConfig,
    workspace_root: &Path,
) -> Result<Vec<MutationReport>, MutationError> {
    let package = req.package;
    let past_deadline = || cfg.deadline.is_some_and(|d| Instant::now() >= d);
    // Baseline.
    let base_suite = suite(h, package);
    let t = Instant::now();
    match base_suite.run(None, Duration::from_secs(600), None) {
        TestResult::Pass => {}
        TestResult::Fail { test, output } => {
            return Err(MutationError::BaselineFails { package: package.into(), test, output })
        }
        TestResult::Timeout => {
            return Err(MutationError::BaselineHangs { package: package.into(), secs: 600 })
        }
    }
    let timeout = cfg.test_timeout.unwrap_or_else(|| lab::timeout_from_baseline(t.elapsed()));

    // Switched mutants (and self-checks) first, then the ones that need their own build.
    let mut results: BTreeMap<u32, Tested> = BTreeMap::new();
    let mut switched = Vec::new();
    let mut alone = Vec::new();
    for t in targets.iter().filter(|t| !t.not_compiled) {
        for n in t.mutants.iter().map(|(n, _)| *n).chain([t.self_check]) {
            if h.dropped.contains_key(&Part::Mutant(n)) {
                alone.push(n);
            } else {
                switched.push(n);
            }
        }
    }
    let stop = || past_deadline();
    let outs = lab::run_all(&base_suite, &switched, cfg.jobs, timeout, &stop, &|_, _, _| {});
    for (n, r) in switched.iter().zip(outs) {
        if let Some((r, time)) = r {
            results.insert(*n, tested(&r, time));
        }
    }
    // Survivors of the test binaries meet the doc-tests too, when the packages have any.
    let doc = lab::DocTests {
        tree: h.tree.clone(),
        target_dir: req.scratch.join("target"),
        packages: req.test_packages.clone(),
    };
    let survivors: Vec<u32> = results
        .iter()
        .filter(|(_, r)| r.status == MutantStatus::Survived)
        .map(|(n, _)| *n)
        .collect();
    if !survivors.is_empty()
        && !past_deadline()
        && doc.run(None, Duration::from_secs(600)) == Some(TestResult::Pass)
    {
        for n in survivors {
            if past_deadline() {
                break;
            }
            let t0 = Instant::now();
            if let Some(r @ TestResult::Fail { .. }) =
                doc.run(Some(n), timeout.max(Duration::from_secs(60)))
            {
                results.insert(n, tested(&r, t0.elapsed()));
            }
        }
    }

    // Mutants built alone: a build each, in a scratch copy of their own.
    let single = req.scratch.with_file_name(format!(
        "{}-single",
        req.scratch.file_name().and_then(|s| s.to_str()).unwrap_or("harness")
    ));
    let mut alone_harness: BTreeMap<u32, Harness> = BTreeMap::new();
    for n in alone {
        if past_deadline() {
            break;
        }
        let Some(m) = targets.iter().find_map(|t| {
            if t.self_check == n {
                None
            } else {
                t.mutants.iter().find(|(k, _)| *k == n).map(|(_, m)| m)
            }
        }) else {
            continue;
        };
        let one = HarnessRequest {
            switches: Vec::new(),
            inserts: Vec::new(),
            apply: Some((n, m)),
            scratch: &single,
            known_dropped: h
                .dropped
                .iter()
                .filter(|(p, _)| matches!(p, Part::Wrapper(_)))
                .map(|(p, r)| (*p, r.clone()))
                .collect(),
            ..req.clone()
        };
        let built = harness::build(&one)?;
        if let Some(reason) = built.dropped.get(&Part::Mutant(n)) {
            let t = Tested {
                status: MutantStatus::Unviable,
                killed_by: Some(reason.clone()),
                detail: Some(reason.clone()),
                time: built.build_time,
            };
            results.insert(n, t);
            continue;
        }
        let t0 = Instant::now();
        let mut r = suite(&built, package).run(None, timeout, None);
        if r == TestResult::Timeout {
            r = suite(&built, package).run(None, timeout, None);
        }
        results.insert(n, tested(&r, t0.elapsed()));
        alone_harness.insert(n, built);
    }

    // Witnesses, pinning and suggested tests, per target.
    let mut reports = Vec::new();
    let mut suggestions: Vec<(usize, u32, String, String)> = Vec::new(); // (target, mutant, name, code)
    let mut witnesses: BTreeMap<u32, Witness> = BTreeMap::new();
    let mut searches: BTreeMap<u32, (Option<witness::Unwitnessed>, u64)> = BTreeMap::new();
    let mut unpinned_by_target: Vec<Vec<UnpinnedBoundary>> = Vec::new();
    for (ti, t) in targets.iter().enumerate() {
        let mut unpinned: BTreeMap<usize, Vec<String>> = BTreeMap::new();
        let Some(id) = t.harness_id else {
            unpinned_by_target.push(Vec::new());
            continue;
        };
        // Distinct explored inputs with their original outcomes, strongest boundaries first.
        let known = witness::known_inputs(&t.elites);
        let params = t
            .found
            .params
            .iter()
            .map(|p| p.ty.clone())
            .collect::<Option<Vec<_>>>()
            .unwrap_or_default();
        let mut original = worker(h, cfg, None);
        let mut oe = TargetEvaluator { worker: &mut original, id };
        let mut oe = witness::Remembered::new(&mut oe);
        // One seed per function: its searches try the same inputs, the original's run once.
        let search_seed = witness::search_seed(cfg.seed, &t.found.name);
        for (n, m) in &t.mutants {
            if results.get(n).map(|r| r.status) != Some(MutantStatus::Survived) || past_deadline() {
                continue;
            }
            let host = alone_harness.get(n).unwrap_or(h);
            let env_n = if alone_harness.contains_key(n) { None } else { Some(*n) };
            // A switched mutant's worker runs in probe mode (its site reports reach/infection).
            let probes = env_n.map(|n| h.probe_env(n)).unwrap_or_default();
            let mut mw = worker(host, cfg, env_n).with_env(probes);
            let mut me = TargetEvaluator { worker: &mut mw, id };
            let hints = crate::rust::constants::of_source(&t.found.source).for_mutant(m);
            let survivor = witness::Survivor { params: &params, known: &known, hints: &hints };
            let limits = witness::Limits {
                evals: cfg.witness_evals,
                seed: search_seed,
                until: Some(witness::search_until(cfg.deadline)),
            };
            let found = witness::find(&survivor, &mut oe, &mut me, &limits)?;
            let (w, outs) = (found.witness, found.outcomes);
            // Pinning: the boundaries whose inputs this survivor moves.
            if w.is_some() {
                for ci in witness::moved_boundaries(&t.elites, &known, &outs) {
                    unpinned.entry(ci).or_default().push(m.id.clone());
                }
            }
            searches.insert(*n, (found.unwitnessed, found.time.as_millis() as u64));
            if let Some(w) = w {
                if let Ok(plan) = &t.found.plan {
                    let name = format!(
                        "abex_{}_{}",
                        t.found.name.to_lowercase(),
                        &m.id[..m.id.len().min(8)]
                    );
                    let why = format!(
                        "abex: pins `{}` on {} (kills mutant {}: {})",
                        t.found.name,
                        stringify_input(&w.input),
                        m.id,
                        m.description.replace('\n', " ")
                    );
                    if let Some(code) = suggest::test_fn(t.found, plan, &w, &name, &why) {
                        suggestions.push((ti, *n, name, code));
                    }
                }
                witnesses.insert(*n, w);
            }
        }
        let list = unpinned
            .into_iter()
            .map(|(ci, mutants)| {
                let p = &t.elites[ci];
                UnpinnedBoundary::of(p, mutants)
            })
            .collect();
        unpinned_by_target.push(list);
    }

    // Suggested tests: built next to their functions, run on the original and on each survivor.
    let mut kills: BTreeMap<String, Vec<u32>> = BTreeMap::new();
    let mut codes: BTreeMap<String, (usize, String)> = BTreeMap::new();
    if !suggestions.is_empty() && !past_deadline() {
        let mut by_fn: BTreeMap<usize, Vec<String>> = BTreeMap::new();
        for (ti, _, _, code) in &suggestions {
            by_fn.entry(*ti).or_default().push(code.clone());
        }
        let inserts: Vec<(PathBuf, usize, String)> = by_fn
            .iter()
            .map(|(ti, codes)| {
                (
                    targets[*ti].found.file.clone(),
                    targets[*ti].found.inject_at,
                    suggest::module(codes),
                )
            })
            .collect();
        let with_tests =
            HarnessRequest { inserts, known_dropped: h.dropped.clone(), ..req.clone() };
        let built = harness::build(&with_tests)?;
        let s = suite(&built, package);
        let survivors: Vec<u32> =
            witnesses.keys().copied().filter(|n| !alone_harness.contains_key(n)).collect();
        for (ti, n, name, code) in &suggestions {
            let path = suggest::test_path(targets[*ti].found, name);
            if s.run(None, timeout, Some(&path)) != TestResult::Pass {
                continue;
            }
            let killed: Vec<u32> = survivors
                .iter()
                .copied()
                .filter(|k| {
                    matches!(s.run(Some(*k), timeout, Some(&path)), TestResult::Fail { .. })
                })
                .collect();
            if killed.contains(n) {
                kills.insert(name.clone(), killed);
                codes.insert(name.clone(), (*ti, code.clone()));
            }
        }
    }
    // The smallest set of suggested tests that kills every survivor some test kills.
    let chosen = crate::report::smallest_killing_set(&kills);

    for (ti, t) in targets.iter().enumerate() {
        let id_of = |n: u32| t.mutants.iter().find(|(k, _)| *k == n).map(|(_, m)| m.id.clone());
        let mut mutants = Vec::new();
        let mut counts = MutantCounts { total: t.mutants.len(), ..Default::default() };
        for (n, m) in &t.mutants {
            let r = results.get(n).cloned();
            let status = if t.not_compiled {
                MutantStatus::NotExercised
            } else {
                r.as_ref().map_or(MutantStatus::NotTested, |r| r.status)
            };
            let witness = witnesses.get(n).cloned();
            counts.add(status, witness.is_some());
            let suggested =
                chosen.iter().find(|(_, k)| k.contains(n)).map(|(name, _)| name.clone());
            let file_text = std::fs::read_to_string(&m.file).unwrap_or_default();
            let rel = m.file.strip_prefix(workspace_root).unwrap_or(&m.file).to_path_buf();
            mutants.push(MutantReport {
                id: m.id.clone(),
                origin: m.origin,
                operator: m.operator,
                description: m.description.clone(),
                file: rel.clone(),
                line: m.line,
                column: m.column,
                original: m.original.clone(),
                replacement: m.replacement.clone(),
                diff: m.diff(&file_text, &rel.display().to_string()),
                status,
                killed_by: r.as_ref().and_then(|r| r.killed_by.clone()),
                failure: r.as_ref().and_then(|r| r.detail.clone()),
                possibly_equivalent: status == MutantStatus::Survived && witness.is_none(),
                unwitnessed: searches.get(n).and_then(|s| s.0.clone()),
                search_ms: searches.get(n).map(|s| s.1),
                witness,
                suggested_test: suggested,
                time_ms: r.map_or(0, |r| r.time.as_millis() as u64),
            });
        }
        // Survivors with a witness first, then the other survivors, then the rest.
        mutants.sort_by_key(|m| (m.status != MutantStatus::Survived, m.witness.is_none(), m.line));
        let suggested_tests = chosen
            .iter()
            .filter(|(name, _)| codes.get(name).is_some_and(|(i, _)| *i == ti))
            .map(|(name, k)| SuggestedTest {
                name: name.clone(),
                code: codes[name].1.clone(),
                kills: k.iter().filter_map(|n| id_of(*n)).collect(),
            })
            .collect();
        // Unknown when it was not tested (budget) or the function is not compiled.
        let self_check_killed = results
            .get(&t.self_check)
            .filter(|_| !t.not_compiled)
            .map(|r| r.status == MutantStatus::Killed);
        reports.push(MutationReport {
            self_check_killed,
            test_tool: "cargo test (test binaries run directly)".into(),
            counts,
            mutants,
            unpinned: unpinned_by_target[ti].clone(),
            suggested_tests,
        });
    }
    Ok(reports)
}
