//! The spine of a run, for every language: the report and the output folder, the results cache,
//! the model session, then per unit: mutants, the build, exploration of each callable target,
//! the mutants' tests, the survivors' witnesses and suggested tests, and the model's feedback
//! rounds. The report is rewritten as the run goes; progress goes out as [`Event`]s.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use super::config::RunConfig;
use super::context::{Ctx, ExploreClock};
use super::error::RunError;
use super::event::Event;
use super::front::{FrontEnd, Numbered, Unit};
use super::{exploration, feedback, survivors};
use crate::archive::Pair;
use crate::cache::ResultCache;
use crate::llm::session::Session;
use crate::llm::usage::LlmReport;
use crate::out::OutDir;
use crate::report::{Report, Settings, TargetReport};
use crate::targets::{Drive, Target};

/// How often the report is rewritten while a unit is analysed.
const SAVE_EVERY: Duration = Duration::from_secs(1);

/// The report and where it is written, rewritten at most every [`SAVE_EVERY`] as the run goes.
struct Writer {
    out: OutDir,
    path: PathBuf,
    last: Option<Instant>,
}

impl Writer {
    fn save(&mut self, report: &Report, force: bool) -> Result<(), RunError> {
        if !force && self.last.is_some_and(|t| t.elapsed() < SAVE_EVERY) {
            return Ok(());
        }
        self.last = Some(Instant::now());
        self.out
            .write_report(report)
            .map(|_| ())
            .map_err(|source| RunError::Output { path: self.path.join("report.json"), source })
    }
}

/// Runs the whole pipeline on `front`'s targets; returns the report and the folder it was
/// written to.
pub fn run(
    cfg: &RunConfig,
    front: &dyn FrontEnd,
    on_event: &mut dyn FnMut(Event<'_>),
) -> Result<(Report, PathBuf), RunError> {
    let started = Instant::now();
    let root = front.root();
    let targets = front.targets();
    on_event(Event::Targets { root, targets });
    for message in front.warnings() {
        on_event(Event::Warning { message });
    }
    let deadline = cfg.time_budget.map(|b| started + b);
    let (session, offline) = match crate::llm::engine::start(&cfg.llm, root, deadline)? {
        Ok(s) => (Some(s), None),
        Err(r) => (None, Some(r)),
    };
    let path = cfg.out.clone().unwrap_or_else(|| root.join(".abex").join("out"));
    let out =
        OutDir::prepare(&path).map_err(|source| RunError::Output { path: path.clone(), source })?;
    let mut writer = Writer { out, path, last: None };
    let mut report = empty_report(cfg, front, session.is_some(), offline);
    writer.save(&report, true)?;

    let cache = ResultCache::open(root);
    let keys = cache_keys(cfg, front, session.as_ref());
    let driven =
        targets.iter().filter(|t| matches!(t.drive, Drive::Supported | Drive::Via { .. })).count();
    let clock = ExploreClock { started, budget: cfg.time_budget, left: driven };
    let mut ctx = Ctx { cfg, front, session, deadline, clock };
    let mut results: Vec<Option<TargetReport>> = vec![None; targets.len()];
    for unit in front.units() {
        let mut todo = Vec::new();
        for &i in &unit.targets {
            match cache.get(&keys[i]) {
                Some(mut tr) => {
                    // Where the function is now (lines may have moved) comes from this run.
                    tr.target = targets[i].clone();
                    if matches!(tr.target.drive, Drive::Supported | Drive::Via { .. }) {
                        ctx.clock.skip();
                    }
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
        let mut progress = |partial: &[TargetReport], force: bool| {
            report.targets = results.iter().flatten().chain(partial).cloned().collect();
            writer.save(&report, force)
        };
        let done = run_unit(&mut ctx, &unit, on_event, &mut progress)?;
        for (&i, tr) in unit.targets.iter().zip(done) {
            on_event(Event::Done { index: i, report: &tr });
            cache.put(&keys[i], &tr);
            results[i] = Some(tr);
        }
        report.targets = results.iter().flatten().cloned().collect();
        if let Some(s) = &ctx.session {
            report.llm = Some(s.report.clone());
        }
        writer.save(&report, true)?;
    }
    report.targets = results.into_iter().flatten().collect();
    if let Some(s) = &ctx.session {
        report.llm = Some(s.report.clone());
    }
    report.complete = true;
    writer
        .out
        .write_all(&report)
        .map_err(|source| RunError::Output { path: writer.path.clone(), source })?;
    Ok((report, writer.path))
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
        targets: Vec::new(),
        llm: offline,
    }
}

/// The results-cache key of each target: the run's settings (the model's and the language's
/// included), the tests that can reach it, and its name and source.
fn cache_keys(cfg: &RunConfig, front: &dyn FrontEnd, session: Option<&Session>) -> Vec<String> {
    let model = session.map(crate::llm::engine::settings_fingerprint);
    let settings = format!("{}|{}|{model:?}", front.language(), cfg.fingerprint());
    front
        .targets()
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let mut parts = vec![settings.as_bytes().to_vec()];
            parts.extend(front.cache_parts(i));
            parts.push(t.qualified_name.as_bytes().to_vec());
            parts.push(t.source.as_bytes().to_vec());
            let refs: Vec<&[u8]> = parts.iter().map(Vec::as_slice).collect();
            crate::cache::key(&refs)
        })
        .collect()
}

/// Every mutant of `unit`'s targets, numbered from 1: rule-based, then model-written, per
/// target; then one self-check per target.
fn number_mutants(ctx: &mut Ctx<'_>, unit: &Unit) -> Vec<Numbered> {
    let mut all = Vec::new();
    if !ctx.cfg.mutate {
        return all;
    }
    let mut n = 1u32;
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
    for &i in &unit.targets {
        all.push(Numbered { n, target: i, mutant: ctx.front.self_check(i), self_check: true });
        n += 1;
    }
    all
}

/// Saves the report with the finished targets and a unit's `partial` ones (`force`: now, not
/// at most once a second).
type Progress<'p> = dyn FnMut(&[TargetReport], bool) -> Result<(), RunError> + 'p;

/// Analyses one unit's targets (none of them cached): their reports, in `unit.targets` order.
fn run_unit(
    ctx: &mut Ctx<'_>,
    unit: &Unit,
    on_event: &mut dyn FnMut(Event<'_>),
    progress: &mut Progress<'_>,
) -> Result<Vec<TargetReport>, RunError> {
    let numbered = number_mutants(ctx, unit);
    let targets = ctx.front.targets();
    let callable = unit
        .targets
        .iter()
        .filter(|&&i| matches!(targets[i].drive, Drive::Supported | Drive::Via { .. }))
        .count();
    on_event(Event::Building { package: &unit.name, functions: callable });
    let built = Instant::now();
    let mut lab = ctx.front.open(ctx.cfg, unit, &numbered, ctx.deadline)?;
    on_event(Event::Built { package: &unit.name, time: built.elapsed() });

    let mut reports: Vec<TargetReport> = Vec::new();
    let mut elites: Vec<Vec<Pair>> = Vec::new();
    for &i in &unit.targets {
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
                    let x = exploration::explore(ctx, lab.as_mut(), i, d, on_event)?;
                    kept = x.archive.elites().into_iter().cloned().collect();
                    exploration = Some(crate::report::ExplorationReport::of(&x));
                }
            }
        }
        elites.push(kept);
        reports.push(TargetReport { target, exploration, mutation: None });
        progress(&reports, false)?;
    }
    if ctx.cfg.mutate {
        let tests = lab.test_count();
        let count = numbered.iter().filter(|m| !m.self_check).count();
        on_event(Event::Testing { package: &unit.name, mutants: count, tests });
        let mutation = survivors::analyse(ctx, lab.as_mut(), unit, &numbered, &elites, on_event);
        for message in lab.warnings() {
            on_event(Event::Warning { message });
        }
        let mutation = mutation?;
        for (r, m) in reports.iter_mut().zip(mutation) {
            r.mutation = Some(m);
        }
        progress(&reports, false)?;
        if ctx.session.is_some() {
            let next = numbered.iter().map(|m| m.n).max().unwrap_or(0) + 1;
            feedback::rounds(ctx, lab.as_mut(), unit, &elites, &mut reports, next, on_event)?;
        }
    }
    Ok(reports)
}
