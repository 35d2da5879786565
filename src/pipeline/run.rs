//! The spine of a run, for every language: the report and the output folder, the results cache,
//! the model session, then per unit: mutants, the build, exploration of each callable target,
//! the mutants' tests, the survivors' witnesses and suggested tests, and the model's feedback
//! rounds. Every finished exploration and every tested mutant reaches the report (and the
//! results cache, so that a re-run resumes) as it is found; progress goes out as [`Event`]s.
//!
//! An interruption (`crate::interrupt`) stops the run between two steps: what a step gave after
//! it is dropped, and the run ends with the report of what was finished, `"complete": false`
//! and the signal in `interrupted`.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Instant;

use super::config::RunConfig;
use super::context::{Ctx, ExploreClock};
use super::error::{unless_cut, RunError};
use super::front::{FrontEnd, Numbered, Tested, Unit};
use super::saver::Saver;
use super::survivors::Heard;
use super::{exploration, feedback, survivors};
use crate::archive::Pair;
use crate::cache::{Partial, ResultCache};
use crate::event::Event;
use crate::llm::session::Session;
use crate::out::OutDir;
use crate::report::usage::LlmReport;
use crate::report::Unwitnessed;
use crate::report::{
    ExplorationReport, Interrupted, MutantStatus, Report, Reused, Settings, TargetReport,
};
use crate::targets::{Drive, Target};

/// Runs the whole pipeline on `front`'s targets; returns the report and the folder it was
/// written to. An interrupted run returns the report of what was finished (its `interrupted`
/// says why); the front end exits with the signal's code.
pub fn run(
    cfg: &RunConfig,
    front: &dyn FrontEnd,
    on_event: &mut dyn FnMut(Event<'_>),
) -> Result<(Report, PathBuf), RunError> {
    let started = Instant::now();
    let within;
    let cfg = match crate::safety::jobs_within(
        cfg.jobs,
        cfg.memory_limit(),
        crate::safety::machine_memory(),
    ) {
        jobs if jobs < cfg.jobs => {
            let message = format!(
                "{} jobs at once with a memory limit of {} MiB each would ask for more than this \
                 machine's memory: abex runs {jobs} at a time\nhint: a lower memory limit lets \
                 more run at once",
                cfg.jobs, cfg.memory_limit_mib
            );
            on_event(Event::Warning { message });
            within = RunConfig { jobs, ..cfg.clone() };
            &within
        }
        _ => cfg,
    };
    let root = front.root();
    let targets = front.targets();
    on_event(Event::Targets { root, targets });
    for message in front.warnings() {
        on_event(Event::Warning { message });
    }
    let deadline = cfg.time_budget.map(|b| started + b);
    // Kills the builds and test runs still going when the deadline passes.
    let _watchdog = crate::interrupt::Watchdog::start(deadline);
    let (session, offline) = match crate::llm::engine::start(&cfg.llm, root, deadline)? {
        Ok(s) => (Some(s), None),
        Err(r) => (None, Some(r)),
    };
    let path = cfg.out.clone().unwrap_or_else(|| root.join(".abex").join("out"));
    let out = OutDir::prepare(&path, &cfg.out_flag)?;
    let saver = Saver::start(out);
    let mut report = empty_report(cfg, front, session.is_some(), offline);
    saver.save_now(&report)?;

    let cache = ResultCache::open(root);
    let keys = cache_keys(cfg, front, session.as_ref());
    let push = push_keys(cfg, front, session.as_ref());
    let driven =
        targets.iter().filter(|t| matches!(t.drive, Drive::Supported | Drive::Via { .. })).count();
    let clock = ExploreClock { started, budget: cfg.time_budget, left: driven };
    let mut ctx = Ctx { cfg, front, session, deadline, clock, reused: Reused::default() };
    let mut results: Vec<Option<TargetReport>> = vec![None; targets.len()];
    // The current unit's targets as last saved: what it finished before an interruption.
    let mut snapshot: Vec<TargetReport> = Vec::new();
    for unit in front.units() {
        if crate::interrupt::requested().is_some() {
            break;
        }
        snapshot.clear();
        let mut todo = Vec::new();
        // Cached results with suggested tests: reported once their tests are checked again.
        let mut reused = BTreeMap::new();
        for &i in &unit.targets {
            match cache.get(&keys[i]) {
                Some(mut tr) => {
                    // Where the function is now (lines may have moved) comes from this run.
                    tr.target = targets[i].clone();
                    if tr.mutation.as_ref().is_some_and(|m| !m.suggested_tests.is_empty()) {
                        reused.insert(i, tr);
                        todo.push(i);
                        continue;
                    }
                    if matches!(tr.target.drive, Drive::Supported | Drive::Via { .. }) {
                        ctx.clock.skip();
                    }
                    ctx.reused.functions += 1;
                    on_event(Event::Done { index: i, report: &tr });
                    results[i] = Some(tr);
                }
                None => todo.push(i),
            }
        }
        if todo.is_empty() {
            continue;
        }
        let vehicles = unit
            .vehicles
            .iter()
            .copied()
            .filter(|v| todo.iter().any(|&i| front.vehicle(i) == Some(*v)))
            .collect();
        let unit = Unit { name: unit.name, targets: todo, vehicles };
        let mut progress = |partial: &[TargetReport], reused: &Reused, force: bool| {
            snapshot = partial.to_vec();
            report.targets = results.iter().flatten().chain(partial).cloned().collect();
            report.reused = reused.clone();
            if force {
                saver.save_now(&report)
            } else {
                saver.save(&report)
            }
        };
        let resume = Resume { cache: &cache, keys: &keys, push: &push, reused: &reused };
        let done = run_unit(&mut ctx, &unit, &resume, on_event, &mut progress);
        if crate::interrupt::requested().is_some() {
            // What it gave after the interruption is no result; the snapshot is what it finished.
            break;
        }
        for (&i, tr) in unit.targets.iter().zip(done?) {
            on_event(Event::Done { index: i, report: &tr });
            // What the deadline left unfinished is no result to reuse (`ResultCache::put`).
            cache.put(&keys[i], &tr);
            results[i] = Some(tr);
        }
        snapshot.clear();
        report.targets = results.iter().flatten().cloned().collect();
        report.reused = ctx.reused.clone();
        if let Some(s) = &ctx.session {
            report.llm = Some(s.report.clone());
        }
        saver.save_now(&report)?;
    }
    report.targets = results.into_iter().flatten().chain(snapshot).collect();
    report.reused = ctx.reused.clone();
    if let Some(s) = &ctx.session {
        report.llm = Some(s.report.clone());
    }
    report.origins = crate::provenance::origins(&report);
    match crate::interrupt::requested() {
        Some(i) => {
            let reason = format!("interrupted by {}", i.name());
            unsearched(&mut report, &reason);
            report.interrupted = Some(Interrupted { signal: i.name(), reason });
            report.unfinished = Some(report.unfinished_work());
        }
        // Complete only when every function was explored, every mutant tested and every
        // survivor searched: a run the time budget cut says so, with what it left.
        None => match report.unfinished_work() {
            left if left.is_empty() => report.complete = true,
            left => {
                report.exhausted = Some("time budget".into());
                report.unfinished = Some(left);
            }
        },
    }
    let path = saver.path();
    saver.finish(&report)?;
    if cfg.write_tests {
        let edits = crate::patch::of_report(&report);
        let files = crate::patch::apply(root, &edits)
            .map_err(|source| RunError::Output { path: root.to_path_buf(), source })?;
        let tests = edits.iter().map(|e| e.tests.len()).sum();
        on_event(Event::TestsWritten { tests, files: &files });
    }
    Ok((report, path))
}

/// Records on every survivor of `report` that has neither a witness nor a reason why not that
/// its search never ran, `because` the run stopped first.
fn unsearched(report: &mut Report, because: &str) {
    let mutants = report
        .targets
        .iter_mut()
        .flat_map(|t| t.mutation.iter_mut())
        .flat_map(|m| m.mutants.iter_mut());
    for m in mutants {
        if m.status == MutantStatus::Survived && m.witness.is_none() && m.unwitnessed.is_none() {
            m.unwitnessed = Some(Unwitnessed::NotSearched { because: because.into() });
            m.possibly_equivalent = false;
        }
    }
}

/// Where a unit finds what an earlier run finished of its targets, and keeps what it finishes.
struct Resume<'a> {
    cache: &'a ResultCache,
    /// The results-cache key of each target.
    keys: &'a [String],
    /// The key of each target whose kills serve the next push ([`push_keys`]).
    push: &'a [Option<String>],
    /// The targets whose whole result is cached, with suggested tests to check again
    /// (`super::reuse`) before it is reported.
    reused: &'a BTreeMap<usize, TargetReport>,
}

impl Resume<'_> {
    /// The pairs of an exploration kept in the cache, as the archive's elites.
    fn elites(x: &ExplorationReport) -> Vec<Pair> {
        x.cells
            .iter()
            .filter_map(|c| {
                let [a, b] = c.inputs.clone();
                let [o, p] = c.outcomes.clone();
                Pair::new(a, b, o, p)
            })
            .collect()
    }
}

/// The report before any target is analysed.
fn empty_report(
    cfg: &RunConfig,
    front: &dyn FrontEnd,
    model: bool,
    offline: Option<LlmReport>,
) -> Report {
    Report {
        format: "abex-report".into(),
        version: crate::report::REPORT_VERSION,
        abex_version: env!("CARGO_PKG_VERSION").into(),
        language: front.language().into(),
        project_root: front.root().to_path_buf(),
        repo_prefix: crate::targets::diff::repo_prefix(front.root()),
        base: front.base().cloned(),
        selection: cfg.selection.name().into(),
        settings: Settings {
            engine: if model { "model" } else { "offline" }.into(),
            pairs: cfg.pairs,
            time_budget_s: cfg.time_budget.map(|d| d.as_secs_f64()),
            seed: cfg.seed,
            call_timeout_ms: cfg.call_timeout.as_millis() as u64,
            shard: cfg.shard.map(|(k, n)| format!("{k}/{n}")),
        },
        complete: false,
        interrupted: None,
        exhausted: None,
        unfinished: None,
        reused: Reused::default(),
        targets: Vec::new(),
        llm: offline,
        origins: Vec::new(),
    }
}

/// A hash of the sources this build of abex was compiled from (`build.rs`).
pub const SOURCE_ID: &str = env!("ABEX_SOURCE_ID");

/// The results-cache key of each target: the run's settings (the model's and the language's
/// included), every `ABEX_*` knob, what the front end says the result depends on (the code
/// and tests behind the function, manifests, lock files, the toolchain or interpreter), and
/// its name and source. abex's version is in every fingerprint, and the identity of the build's
/// own sources ([`SOURCE_ID`]) in these keys: a result of another build of the same version
/// (a checkout between releases) is not reused.
fn cache_keys(cfg: &RunConfig, front: &dyn FrontEnd, session: Option<&Session>) -> Vec<String> {
    let settings = settings_of(cfg, front, session);
    let targets = front.targets().iter().enumerate();
    targets.map(|(i, t)| key_of(&settings, front.cache_parts(i), t)).collect()
}

/// The key under which target `i`'s kills serve the next push of the same pull request: its
/// own text, the run's settings and everything its results depend on but the bodies of the
/// run's targets ([`FrontEnd::push_parts`]). A push that changes only the body of another
/// target leaves it the same, and this target's mutants that were killed, timed out or did not
/// build are not tested again ([`serves_next_push`]); survivors always are, so no claim comes
/// from it. A change to its own text, a signature, a doc-test, a test or a function that is no
/// target of the run makes another key. `None` where the front end keeps none.
fn push_keys(
    cfg: &RunConfig,
    front: &dyn FrontEnd,
    session: Option<&Session>,
) -> Vec<Option<String>> {
    let settings = format!("push|{}", settings_of(cfg, front, session));
    let targets = front.targets().iter().enumerate();
    targets.map(|(i, t)| Some(key_of(&settings, front.push_parts(i)?, t))).collect()
}

/// What every key of a run shares: the language, the run's settings, the model's, the knobs of
/// the environment and abex's own build.
fn settings_of(cfg: &RunConfig, front: &dyn FrontEnd, session: Option<&Session>) -> String {
    let model = session.map(crate::llm::engine::settings_fingerprint);
    let knobs = crate::cache_key::env(|_| false);
    format!("{}|{}|{model:?}|{knobs}|{SOURCE_ID}", front.language(), cfg.fingerprint())
}

/// The key of target `t` from `settings` and the front end's `parts`.
fn key_of(settings: &str, front_parts: Vec<Vec<u8>>, t: &crate::targets::Target) -> String {
    let mut parts = vec![settings.as_bytes().to_vec()];
    parts.extend(front_parts);
    parts.push(t.qualified_name.as_bytes().to_vec());
    parts.push(t.source.as_bytes().to_vec());
    let refs: Vec<&[u8]> = parts.iter().map(Vec::as_slice).collect();
    crate::cache::key(&refs)
}

/// Whether a mutant's result is kept for the next push ([`push_keys`]): it was killed, timed
/// out or did not build. A survivor is tested again.
fn serves_next_push(t: &Tested) -> bool {
    matches!(t.status, MutantStatus::Killed | MutantStatus::Timeout | MutantStatus::Unviable)
}

/// Every mutant of `unit`'s targets, numbered from 1: one self-check per target first (tested
/// first, so that a run the budget cuts still knows which functions its tests reach), then
/// rule-based and model-written mutants, per target.
fn number_mutants(ctx: &mut Ctx<'_>, unit: &Unit) -> Vec<Numbered> {
    let mut all = Vec::new();
    if !ctx.cfg.mutate {
        return all;
    }
    let mut n = 1u32;
    for &i in &unit.targets {
        all.push(Numbered { n, target: i, mutant: ctx.front.self_check(i), self_check: true });
        n += 1;
    }
    for &i in &unit.targets {
        let mut mutants = ctx.front.rule_mutants(i);
        if let Some(s) = ctx.session.as_mut() {
            let count = s.cfg.mutants;
            mutants.extend(ctx.front.model_mutants(s, i, count, ""));
        }
        for mutant in mutants {
            all.push(Numbered { n, target: i, mutant, self_check: false });
            n += 1;
        }
    }
    all
}

/// Saves the report with the finished targets, a unit's `partial` ones and what was reused
/// (`force`: now, not within [`super::saver::SAVE_EVERY`]).
type Progress<'p> = dyn FnMut(&[TargetReport], &Reused, bool) -> Result<(), RunError> + 'p;

/// Analyses one unit's targets (none of them fully cached, some maybe partly): their reports,
/// in `unit.targets` order.
fn run_unit(
    ctx: &mut Ctx<'_>,
    unit: &Unit,
    resume: &Resume<'_>,
    on_event: &mut dyn FnMut(Event<'_>),
    progress: &mut Progress<'_>,
) -> Result<Vec<TargetReport>, RunError> {
    // Cached results are reported once their suggested tests still kill their mutants (in a
    // build of their own); the others are analysed with the rest.
    let kept = match resume.reused.is_empty() {
        true => BTreeMap::new(),
        false => super::reuse::verify(ctx, unit, resume.reused, on_event)?,
    };
    interrupted()?;
    ctx.reused.functions += kept.len();
    for tr in kept.values() {
        if matches!(tr.target.drive, Drive::Supported | Drive::Via { .. }) {
            ctx.clock.skip();
        }
    }
    let whole = unit;
    let unit = &Unit {
        name: whole.name.clone(),
        targets: whole.targets.iter().copied().filter(|i| !kept.contains_key(i)).collect(),
        vehicles: whole
            .vehicles
            .iter()
            .copied()
            .filter(|v| {
                whole
                    .targets
                    .iter()
                    .any(|&i| !kept.contains_key(&i) && ctx.front.vehicle(i) == Some(*v))
            })
            .collect(),
    };
    if unit.targets.is_empty() {
        return Ok(whole.targets.iter().filter_map(|i| kept.get(i).cloned()).collect());
    }
    let numbered = number_mutants(ctx, unit);
    // What an earlier run finished of each target under its own key, read once.
    let mut partials: BTreeMap<usize, Partial<Tested>> =
        unit.targets.iter().map(|&i| (i, resume.cache.partial(&resume.keys[i]))).collect();
    // Kills an earlier push left of targets whose push key is the same: not built nor tested
    // again (the results of the target's own key come first).
    let mut kept_kills: BTreeMap<u32, Tested> = BTreeMap::new();
    let mut kept_count = 0;
    for (&i, own) in &partials {
        let Some(key) = &resume.push[i] else { continue };
        let earlier = resume.cache.partial::<Tested>(key);
        for m in numbered.iter().filter(|m| m.target == i && !own.tested.contains_key(&m.mutant.id))
        {
            if let Some(t) = earlier.tested.get(&m.mutant.id).filter(|t| serves_next_push(t)) {
                kept_kills.insert(m.n, t.clone());
                kept_count += usize::from(!m.self_check);
            }
        }
    }
    let to_build: Vec<Numbered> =
        numbered.iter().filter(|m| !kept_kills.contains_key(&m.n)).cloned().collect();
    let targets = ctx.front.targets();
    let callable = unit
        .targets
        .iter()
        .filter(|&&i| matches!(targets[i].drive, Drive::Supported | Drive::Via { .. }))
        .count();
    on_event(Event::Building { package: &unit.name, functions: callable });
    let built = Instant::now();
    // Past the deadline nothing more is built: the targets are reported with their mutants
    // `not_tested` (a build the watchdog killed ends the same way).
    let opened = match crate::interrupt::expired() {
        true => None,
        false => unless_cut(ctx.front.open(ctx.cfg, unit, &to_build, ctx.deadline))?,
    };
    interrupted()?;
    let Some(mut lab) = opened else {
        let message = format!(
            "the time budget ran out before `{}` was built: its {} function(s) were neither explored nor tested\nhint: give --time-budget more than the build takes",
            unit.name,
            unit.targets.len()
        );
        on_event(Event::Warning { message });
        let mutation = survivors::untested(ctx, unit, &numbered);
        let targets = unit.targets.iter().zip(mutation);
        let out = targets.map(|(&i, m)| TargetReport {
            target: ctx.front.targets()[i].clone(),
            exploration: None,
            mutation: ctx.cfg.mutate.then_some(m),
        });
        return Ok(out.collect());
    };
    on_event(Event::Built { package: &unit.name, time: built.elapsed() });
    let mut reports: Vec<TargetReport> = Vec::new();
    let mut elites: Vec<Vec<Pair>> = Vec::new();
    // The mutants' results an earlier run finished, by number.
    let mut cached: BTreeMap<u32, Tested> = BTreeMap::new();
    ctx.reused.mutants += kept_count;
    cached.extend(kept_kills);
    for &i in &unit.targets {
        let key = &resume.keys[i];
        let partial = partials.remove(&i).expect("read above for every target");
        for m in numbered.iter().filter(|m| m.target == i) {
            if let Some(t) = partial.tested.get(&m.mutant.id) {
                ctx.reused.mutants += usize::from(!m.self_check);
                cached.insert(m.n, t.clone());
            }
        }
        let mut target: Target = targets[i].clone();
        let mut exploration = None;
        let mut kept = Vec::new();
        // The function that is called: the target itself, or the caller that drives it.
        let driver = match &target.drive {
            Drive::Supported => Some(i),
            Drive::Via { .. } => ctx.front.vehicle(i),
            Drive::Unsupported { .. } => None,
        };
        if let Some(d) = driver {
            match lab.uncallable(d) {
                Some(u) if d == i => {
                    target.drive = Drive::Unsupported { reason: u.reason };
                    ctx.clock_next();
                }
                Some(u) => {
                    let why = target.drive.reason().unwrap_or_default().to_string();
                    let caller = &ctx.front.function(d).qualified_name;
                    let reason = format!(
                        "{why}; its caller `{caller}` cannot be called either: {}",
                        u.reason
                    );
                    target.drive = Drive::Unsupported { reason };
                    ctx.clock_next();
                }
                None => {
                    if d == i {
                        if let Some(params) = lab.params(i) {
                            target.params = params;
                        }
                    }
                    let x = match partial.exploration {
                        Some(x) => {
                            ctx.clock.skip();
                            ctx.reused.explorations += 1;
                            x
                        }
                        None => {
                            let x = exploration::explore(ctx, lab.as_mut(), i, d, on_event)?;
                            interrupted()?;
                            let mut x = crate::report::ExplorationReport::of(&x);
                            x.origins = crate::provenance::shares(&x.cells);
                            resume.cache.put_exploration(key, &x);
                            x
                        }
                    };
                    kept = Resume::elites(&x);
                    exploration = Some(x);
                }
            }
        }
        elites.push(kept);
        reports.push(TargetReport { target, exploration, mutation: None });
        progress(&reports, &ctx.reused, false)?;
    }
    if ctx.cfg.mutate {
        let tests = lab.test_count();
        // Those to test: a push's kept kills and what an earlier run finished are not.
        let count = numbered.iter().filter(|m| !m.self_check && !cached.contains_key(&m.n)).count();
        on_event(Event::Testing { package: &unit.name, mutants: count, tests });
        let reused = ctx.reused.clone();
        let mut failed = None;
        let mut heard = |h: Heard<'_>| match h {
            Heard::Tested(m, t) => {
                resume.cache.put_tested(&resume.keys[m.target], &m.mutant.id, t);
                if let Some(key) = resume.push[m.target].as_ref().filter(|_| serves_next_push(t)) {
                    resume.cache.put_tested(key, &m.mutant.id, t);
                }
            }
            Heard::Reports(so_far) => {
                for (r, m) in reports.iter_mut().zip(so_far) {
                    r.mutation = Some(m);
                }
                if let Err(e) = progress(&reports, &reused, false) {
                    failed.get_or_insert(e);
                }
            }
        };
        let mutation = survivors::analyse(
            ctx,
            lab.as_mut(),
            unit,
            &numbered,
            &elites,
            &cached,
            &BTreeMap::new(),
            on_event,
            &mut heard,
        );
        for message in lab.warnings() {
            on_event(Event::Warning { message });
        }
        let mutation = mutation?;
        if let Some(e) = failed {
            return Err(e);
        }
        interrupted()?;
        for (r, m) in reports.iter_mut().zip(mutation) {
            r.mutation = Some(m);
        }
        progress(&reports, &ctx.reused, false)?;
        if ctx.session.is_some() {
            let next = numbered.iter().map(|m| m.n).max().unwrap_or(0) + 1;
            feedback::rounds(ctx, lab.as_mut(), unit, &elites, &mut reports, next, on_event)?;
        }
    }
    let mut analysed: BTreeMap<usize, TargetReport> =
        unit.targets.iter().copied().zip(reports).collect();
    let mut kept = kept;
    Ok(whole.targets.iter().filter_map(|i| kept.remove(i).or_else(|| analysed.remove(i))).collect())
}

/// [`RunError::Interrupted`] once the run is interrupted: what the last step gave is no result.
fn interrupted() -> Result<(), RunError> {
    match crate::interrupt::requested() {
        Some(_) => Err(RunError::Interrupted),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_build_s_identity_is_a_hash_of_its_sources() {
        // `build.rs` hashes `src/` and `prompts/`: sixteen hex digits, never the empty hash.
        let id = super::SOURCE_ID;
        assert_eq!(id.len(), 16, "{id}");
        assert!(id.chars().all(|c| c.is_ascii_hexdigit()), "{id}");
        assert_ne!(id, "cbf29ce484222325", "no file was hashed");
    }
}
