//! The survivors phase of a unit, for every language: the mutants' tests, a witness for each
//! survivor (the explored inputs first, then a search), the boundaries a witnessed survivor
//! moves (pinning), suggested tests that were compiled and run before they are suggested (the
//! smallest set that keeps every kill), and each target's mutation report.

use std::collections::{BTreeMap, BTreeSet};

use super::context::Ctx;
use super::error::{unless_cut, RunError};
use super::front::{FrontEnd, Lab, Numbered, Suggestion, Tested, Unit, Verdict};
use crate::archive::Pair;
use crate::event::Event;
use crate::report::{
    smallest_killing_set, MutantCounts, MutantReport, MutantStatus, MutationReport, SuggestedTest,
    TestOrigin, UnpinnedBoundary, Unwitnessed, Witness,
};
use crate::targets::Drive;
use crate::value::Outcome;
use crate::witness;

use super::searches::{searches, shared_slots, Plan, Searched, Searchers};

/// What the witness search found for one target.
#[derive(Clone, Default)]
struct Proven {
    /// Whether its search is over (before, a survivor is not "possibly equivalent" yet).
    settled: bool,
    witnesses: BTreeMap<u32, Witness>,
    /// Per survivor searched: why it stayed without a witness, and how long the search took.
    searches: BTreeMap<u32, (Option<crate::report::Unwitnessed>, u64)>,
    /// Archive elite index → the survivors that move it.
    unpinned: BTreeMap<usize, Vec<String>>,
    suggestions: Vec<Suggestion>,
}

/// What the survivors phase tells the run as it goes.
pub(crate) enum Heard<'h> {
    /// A mutant's tests gave their final result.
    Tested(&'h Numbered, &'h Tested),
    /// The mutation reports of the unit's targets so far (in its order): the mutants tested and
    /// the witnesses found up to now, the rest `not_tested` and unsearched.
    Reports(Vec<MutationReport>),
}

/// The shortest time between two builds of the reports while mutants are tested (see
/// [`analyse`]).
const REPORTS_EVERY: std::time::Duration = std::time::Duration::from_millis(100);

/// How many times its own duration a build of the reports waits before the next one: the
/// builds take at most a tenth of the time the tests run.
const REPORTS_SHARE: u32 = 10;

/// When a result that just came in is built into the reports: at once when the last build
/// ended at least `every` ago, and [`REPORTS_SHARE`] times what it took, else held for the
/// next one (or the build when the tests end). The results come in on the thread that hands
/// the runners their mutants, so a build makes them wait: semver 3.0.2's 137 mutants (a
/// 700-line file, every mutant's diff and every exploration cell in each build) waited 63 s
/// for builds after each result, with a fixed 100 ms.
struct Pace {
    every: std::time::Duration,
    /// When the last build started and ended.
    last: Option<(std::time::Instant, std::time::Instant)>,
    held: bool,
}

impl Pace {
    fn new(every: std::time::Duration) -> Pace {
        Pace { every, last: None, held: false }
    }

    /// A result came in: whether to build the reports now (which takes every result held);
    /// the caller says when that build is over ([`Pace::built`]).
    fn now(&mut self) -> bool {
        self.now_at(std::time::Instant::now())
    }

    /// [`Pace::now`] at `now`.
    fn now_at(&mut self, now: std::time::Instant) -> bool {
        if let Some((start, end)) = self.last {
            let wait = self.every.max(end.saturating_duration_since(start) * REPORTS_SHARE);
            if now.saturating_duration_since(end) < wait {
                self.held = true;
                return false;
            }
        }
        self.last = Some((now, now));
        self.held = false;
        true
    }

    /// The build [`Pace::now`] allowed is over.
    fn built(&mut self) {
        self.built_at(std::time::Instant::now());
    }

    /// [`Pace::built`] at `end`.
    fn built_at(&mut self, end: std::time::Instant) {
        if let Some((_, e)) = &mut self.last {
            *e = end;
        }
    }

    /// Whether a result came in after the last build.
    fn held(&self) -> bool {
        self.held
    }
}

/// Tests `mutants` (of `unit`'s targets, self-checks included), proves the survivors and
/// chooses the suggested tests; returns one report per target of `unit`, in its order.
/// `elites[k]` is the explored archive of `unit.targets[k]` (empty when not explored);
/// `cached` the results an earlier run finished (those mutants are not tested again);
/// `reached` whether the tests reach a target, where an earlier round's self-check said so
/// (a round without self-checks). `heard` hears each result as it comes.
///
/// A survivor is a gap only when the tests ran against it and reach its function: the
/// survivors of a function whose self-check survived are `not_reached` (untested, no witness
/// is searched, no test suggested), and those of a function whose self-check did not run are
/// not searched.
#[allow(clippy::too_many_arguments)]
pub(crate) fn analyse(
    ctx: &mut Ctx<'_>,
    lab: &mut dyn Lab,
    unit: &Unit,
    mutants: &[Numbered],
    elites: &[Vec<Pair>],
    cached: &BTreeMap<u32, Tested>,
    reached: &BTreeMap<usize, bool>,
    on_event: &mut dyn FnMut(Event<'_>),
    heard: &mut dyn FnMut(Heard<'_>),
) -> Result<Vec<MutationReport>, RunError> {
    // What the reports need of the lab, known before its tests run (the final reports ask again).
    let facts: Vec<Facts> = unit.targets.iter().map(|&i| Facts::of(lab, i)).collect();
    let todo: Vec<u32> = mutants.iter().map(|m| m.n).filter(|n| !cached.contains_key(n)).collect();
    // The same, to look up (the loops below ask of every mutant).
    let to_test: BTreeSet<u32> = todo.iter().copied().collect();
    let jobs = ctx.cfg.jobs.max(1);
    let survives = |m: &Numbered, results: &BTreeMap<u32, Tested>| {
        !m.self_check && results.get(&m.n).is_some_and(|r| r.status == MutantStatus::Survived)
    };
    // The mutants of target `i` that may survive: those to test, and an earlier run's survivors.
    let may_survive = |i: usize| -> Vec<&Numbered> {
        let mine = mutants.iter().filter(|m| m.target == i && !m.self_check);
        mine.filter(|m| to_test.contains(&m.n) || survives(m, cached)).collect()
    };
    let count: usize = unit.targets.iter().map(|&i| may_survive(i).len()).sum();
    let early = !todo.is_empty() && jobs > 1 && lab.searches_while_testing(count);
    let mut proven: Vec<Proven> = vec![Proven::default(); unit.targets.len()];
    let mut taken = BTreeSet::new();
    let shared_ctx = &*ctx;
    let results = std::thread::scope(|scope| -> Result<BTreeMap<u32, Tested>, RunError> {
        let ctx = shared_ctx;
        // Where the lab searches while its tests run, each target is planned on the mutants
        // that may survive, and its survivors are searched as soon as its tests are all in.
        let mut early_plans = None;
        if early {
            let (planned, plans, groups) =
                plan_targets(ctx, lab, unit, elites, &may_survive, &|_| false);
            if !groups.is_empty() {
                lab.prepare_witnesses(&groups)?;
            }
            if let Some(slots) = shared_slots(lab, &plans, jobs)? {
                let plans = std::sync::Arc::new(plans);
                let searchers = Searchers::start(scope, jobs, plans.clone(), slots);
                early_plans = Some((planned, plans, searchers));
            }
        }
        let mut results = cached.clone();
        if !todo.is_empty() {
            let none = vec![Proven::default(); unit.targets.len()];
            let mut so_far = cached.clone();
            // How many of each target's mutants are still to test.
            let mut left: BTreeMap<usize, usize> = BTreeMap::new();
            for m in mutants.iter().filter(|m| to_test.contains(&m.n)) {
                *left.entry(m.target).or_default() += 1;
            }
            // The reports are built again at most every `REPORTS_EVERY` (each build renders every
            // mutant's diff and copies every function's exploration, ~10 ms on examples/demo, where
            // a mutant's tests take 4 ms), and once more when the tests end or are cut; the results
            // cache has each result at once.
            let mut pace = Pace::new(REPORTS_EVERY);
            let mut on_result = |n: u32, t: &Tested| {
                let Some(m) = mutants.iter().find(|m| m.n == n) else { return };
                heard(Heard::Tested(m, t));
                so_far.insert(n, t.clone());
                if let Some((planned, plans, searchers)) = early_plans.as_mut() {
                    let i = m.target;
                    let done = left.get_mut(&i).is_some_and(|l| {
                        *l = l.saturating_sub(1);
                        *l == 0
                    });
                    // Its tests are all in and reach it: its survivors are searched now.
                    if done && reach_one(mutants, &so_far, reached, i) == Some(true) {
                        let mine = planned.iter().find(|x| unit.targets[x.k] == i);
                        if let Some(&Ok(p)) = mine.map(|x| &x.plan) {
                            for (k, n) in plans[p].numbers.iter().enumerate() {
                                if so_far.get(n).is_some_and(|r| r.status == MutantStatus::Survived)
                                {
                                    searchers.send(p, k);
                                }
                            }
                        }
                    }
                }
                if pace.now() {
                    heard(Heard::Reports(reports(
                        ctx, unit, mutants, elites, &facts, &so_far, &none,
                    )));
                    pace.built();
                }
            };
            let tested = lab.test(&todo, &mut on_result);
            if pace.held() {
                heard(Heard::Reports(reports(ctx, unit, mutants, elites, &facts, &so_far, &none)));
            }
            match unless_cut(tested)? {
                Some(tested) => results.extend(tested),
                // The deadline killed a test run the lab could not do without (the baseline): what
                // it gave before stays, the rest is `not_tested`.
                None => results = so_far,
            }
        }
        if crate::interrupt::requested().is_some() {
            return Err(RunError::Interrupted);
        }
        let reach = reach_of(unit, mutants, &results, reached);
        not_reached(mutants, &reach, &mut results);
        let survivors_of = |i: usize| -> Vec<&Numbered> {
            mutants.iter().filter(|m| m.target == i && survives(m, &results)).collect()
        };
        let survivors = mutants.iter().filter(|m| survives(m, &results)).count();
        on_event(Event::Proving { package: &unit.name, survivors });
        // Else each target is planned now, on its survivors.
        let (planned, plans, mut searchers) = match early_plans {
            Some((planned, plans, searchers)) => (planned, plans, Some(searchers)),
            None => {
                let unknown = |i: usize| !reach.contains_key(&i);
                let (planned, plans, groups) =
                    plan_targets(ctx, lab, unit, elites, &survivors_of, &unknown);
                if !groups.is_empty() {
                    lab.prepare_witnesses(&groups)?;
                }
                let slots = match jobs > 1 && survivors > 1 {
                    true => shared_slots(lab, &plans, jobs)?,
                    false => None,
                };
                let plans = std::sync::Arc::new(plans);
                let searchers =
                    slots.map(|slots| Searchers::start(scope, jobs, plans.clone(), slots));
                (planned, plans, searchers)
            }
        };
        // Every survivor is searched (those its target's tests fed already are not fed again).
        if let Some(searchers) = searchers.as_mut() {
            for x in &planned {
                let Ok(p) = x.plan else { continue };
                for m in survivors_of(unit.targets[x.k]) {
                    if let Some(k) = plans[p].numbers.iter().position(|&n| n == m.n) {
                        searchers.send(p, k);
                    }
                }
            }
            searchers.close();
        }
        // Each target is concluded in the unit's order (its suggested tests' names are chosen
        // in that order), as soon as its searches are all in; its tests' check starts then,
        // while the next target's searches go on.
        for x in &planned {
            let i = unit.targets[x.k];
            let mine = survivors_of(i);
            if !reach.contains_key(&i) {
                // Whether the tests reach the function is not known: no survivor of it is a gap.
                let why = reach_unknown(mutants, &results, i);
                for m in &mine {
                    proven[x.k].searches.insert(m.n, (Some(why.clone()), 0));
                }
                proven[x.k].settled = true;
                continue;
            }
            let concluded = match &x.plan {
                // Planned before the tests on every mutant that may survive: what is known of
                // its survivors.
                Err(known) => {
                    let mut known = known.clone();
                    known.searches.retain(|n, _| mine.iter().any(|m| m.n == *n));
                    known
                }
                Ok(_) if mine.is_empty() => Proven::default(),
                Ok(p) => {
                    let plan = &plans[*p];
                    let found: Vec<Option<Searched>> = match searchers.as_mut() {
                        Some(searchers) => mine
                            .iter()
                            .map(|m| {
                                let k = plan.numbers.iter().position(|&n| n == m.n)?;
                                searchers.result(*p, k)
                            })
                            .collect(),
                        // Planned on its survivors: one thread, or a lab without shared workers.
                        None => searches(lab, plan.d, &plan.numbers, &plan.search(), jobs)?,
                    };
                    conclude(ctx, lab, i, &elites[x.k], &mine, plan, found, &mut taken)?
                }
            };
            proven[x.k] = concluded;
            proven[x.k].settled = true;
            if !proven[x.k].suggestions.is_empty() && !ctx.past_deadline() {
                let witnessed: Vec<u32> = proven[x.k].witnesses.keys().copied().collect();
                lab.check_soon(&proven[x.k].suggestions, &witnessed);
            }
            if crate::interrupt::requested().is_some() {
                return Err(RunError::Interrupted);
            }
            heard(Heard::Reports(reports(ctx, unit, mutants, elites, &facts, &results, &proven)));
        }
        Ok(results)
    })?;
    let mut suggestions: Vec<Suggestion> =
        proven.iter().flat_map(|p| p.suggestions.iter().cloned()).collect();
    let witnessed: Vec<u32> = proven.iter().flat_map(|p| p.witnesses.keys().copied()).collect();
    // Only a test that kills the survivor it was written for is kept.
    let mut kills: BTreeMap<String, Vec<u32>> = BTreeMap::new();
    if !suggestions.is_empty() && !ctx.past_deadline() {
        // The deadline killed the tests' build: no test is suggested unchecked.
        let checked = unless_cut(lab.check(&suggestions, &witnessed))?.unwrap_or_default();
        for (name, verdict) in checked {
            let Verdict::Passed(killed) = verdict else { continue };
            let own = suggestions.iter().find(|s| s.name == name).map(|s| s.mutant);
            if own.is_some_and(|n| killed.contains(&n)) {
                kills.insert(name, killed);
            }
        }
    }
    // With a model, the Tester writes a test per witnessed survivor (generate-and-repair).
    let wanted = wanted_tests(ctx, lab, unit, mutants, &proven, &mut taken);
    let written = super::tester::write_tests(ctx, lab, &wanted, &witnessed)?;
    for (s, killed) in written.kept {
        kills.insert(s.name.clone(), killed);
        suggestions.push(s);
    }
    let ranks: BTreeMap<String, usize> =
        suggestions.iter().map(|s| (s.name.clone(), readability(s))).collect();
    let chosen = smallest_killing_set(&kills, &ranks);
    let (chosen, suggestions) = suggested_names(chosen, suggestions);
    // One test per behaviour: a boundary's two sides, or a parametrised test of every case.
    let witnesses: BTreeMap<u32, Witness> =
        proven.iter().flat_map(|p| p.witnesses.iter().map(|(n, w)| (*n, w.clone()))).collect();
    let (chosen, suggestions) = super::cases::join(
        ctx,
        lab,
        chosen,
        suggestions,
        &witnesses,
        mutants,
        &witnessed,
        &mut taken,
    )?;
    let mut reports = Vec::new();
    for (k, &i) in unit.targets.iter().enumerate() {
        let mine: Vec<&Numbered> = mutants.iter().filter(|m| m.target == i).collect();
        let facts = Facts::of(lab, i);
        let entry = Entry {
            facts: &facts,
            results: &results,
            chosen: &chosen,
            suggestions: &suggestions,
            fell_back: &written.fell_back,
        };
        reports.push(entry.report(ctx, i, &mine, &proven[k], &elites[k]));
    }
    Ok(reports)
}

/// The mutation reports of `unit`'s targets when the run's deadline passed before their
/// build was done: every mutant `not_tested`.
pub(crate) fn untested(ctx: &Ctx<'_>, unit: &Unit, mutants: &[Numbered]) -> Vec<MutationReport> {
    let facts: Vec<Facts> = unit
        .targets
        .iter()
        .map(|_| Facts {
            not_compiled: false,
            test_tool: "none: the time budget ran out before the build".into(),
            reached_by: None,
        })
        .collect();
    let none = vec![Proven::default(); unit.targets.len()];
    let elites = vec![Vec::new(); unit.targets.len()];
    reports(ctx, unit, mutants, &elites, &facts, &BTreeMap::new(), &none)
}

/// The mutation reports of `unit`'s targets while the phase runs: `results` so far, witnesses
/// `proven` so far, no suggested test yet.
fn reports(
    ctx: &Ctx<'_>,
    unit: &Unit,
    mutants: &[Numbered],
    elites: &[Vec<Pair>],
    facts: &[Facts],
    results: &BTreeMap<u32, Tested>,
    proven: &[Proven],
) -> Vec<MutationReport> {
    let none = BTreeMap::new();
    unit.targets
        .iter()
        .enumerate()
        .map(|(k, &i)| {
            let mine: Vec<&Numbered> = mutants.iter().filter(|m| m.target == i).collect();
            let entry = Entry {
                facts: &facts[k],
                results,
                chosen: &[],
                suggestions: &[],
                fell_back: &none,
            };
            entry.report(ctx, i, &mine, &proven[k], &elites[k])
        })
        .collect()
}

/// The search plan of target `i`'s `survivors` (`elites` is its explored archive), or what is
/// already known of them when there is nothing to search: none survived, or the function that
/// reaches it cannot be called.
fn plan(
    ctx: &Ctx<'_>,
    lab: &mut dyn Lab,
    i: usize,
    elites: &[Pair],
    survivors: &[&Numbered],
) -> Result<Plan, Proven> {
    let mut proven = Proven::default();
    let front = ctx.front;
    let target = &front.targets()[i];
    if survivors.is_empty() {
        return Err(proven);
    }
    let Some(d) = driver(ctx, lab, i) else {
        // Not proven either way: what abex cannot call, it says so (never "possibly equivalent").
        let reason = called(front, i)
            .and_then(|d| lab.uncallable(d))
            .map(|u| u.reason)
            .or_else(|| target.drive.reason().map(str::to_string))
            .unwrap_or_default();
        let function = target.qualified_name.clone();
        for m in survivors {
            let why =
                Unwitnessed::NotCallable { function: function.clone(), reason: reason.clone() };
            proven.searches.insert(m.n, (Some(why), 0));
        }
        return Err(proven);
    };
    // Distinct explored inputs with their original outcomes, strongest boundaries first.
    let known = witness::known_inputs(elites);
    let params = super::exploration::driven_types(front, lab, d);
    let planned = lab.hints(i);
    let hints: Vec<witness::Hints> =
        survivors.iter().map(|m| front.hints(i, &m.mutant).and(planned.clone())).collect();
    Ok(Plan {
        d,
        params,
        known,
        hints,
        seed: witness::search_seed(ctx.cfg.seed, &target.qualified_name),
        evals: ctx.cfg.witness_evals,
        deadline: ctx.deadline,
        numbers: survivors.iter().map(|m| m.n).collect(),
    })
}

/// One target of a unit to prove: its index in the unit and its search plan (an index into
/// the plans the searching threads share), or what is known of its survivors without one.
struct Planned {
    k: usize,
    plan: Result<usize, Proven>,
}

/// Each function called, with the mutants searched through it (see [`Lab::prepare_witnesses`]).
type Groups = Vec<(usize, Vec<u32>)>;

/// Each target's plan for `candidates` (its mutants to search: its survivors, or every mutant
/// that may survive), in the unit's order (those `skip` names left out), and each function
/// called with the mutants searched through it (for [`Lab::prepare_witnesses`]).
fn plan_targets<'m>(
    ctx: &Ctx<'_>,
    lab: &mut dyn Lab,
    unit: &Unit,
    elites: &[Vec<Pair>],
    candidates: &dyn Fn(usize) -> Vec<&'m Numbered>,
    skip: &dyn Fn(usize) -> bool,
) -> (Vec<Planned>, Vec<Plan>, Groups) {
    let (mut planned, mut plans, mut groups): (_, _, Groups) = (Vec::new(), Vec::new(), Vec::new());
    for (k, &i) in unit.targets.iter().enumerate() {
        if skip(i) {
            continue;
        }
        let mine = candidates(i);
        if let Some(d) = driver(ctx, lab, i) {
            // What the tests taught of its parameters goes into the workers' spec: learnt now.
            lab.params(d);
            let ns = mine.iter().map(|m| m.n);
            match groups.iter_mut().find(|(g, _)| *g == d) {
                Some((_, have)) => have.extend(ns),
                None => groups.push((d, ns.collect())),
            }
        }
        let plan = match plan(ctx, lab, i, &elites[k], &mine) {
            Ok(p) => {
                plans.push(p);
                Ok(plans.len() - 1)
            }
            Err(known) => Err(known),
        };
        planned.push(Planned { k, plan });
    }
    groups.retain(|(_, ns)| !ns.is_empty());
    (planned, plans, groups)
}

/// What target `i`'s searches found (`searched`, per survivor in `plan`'s order), made into
/// witnesses, pinned boundaries and suggested tests; `taken` the names the unit's suggested
/// tests have so far.
#[allow(clippy::too_many_arguments)]
fn conclude(
    ctx: &Ctx<'_>,
    lab: &mut dyn Lab,
    i: usize,
    elites: &[Pair],
    survivors: &[&Numbered],
    plan: &Plan,
    searched: Vec<Option<Searched>>,
    taken: &mut BTreeSet<String>,
) -> Result<Proven, RunError> {
    let mut proven = Proven::default();
    let front = ctx.front;
    let target = &front.targets()[i];
    let (d, known) = (plan.d, &plan.known);
    let exec = |source| RunError::Exec {
        target: target.qualified_name.clone(),
        source,
        hint: front.exec_hint().map(|h| format!("\nhint: {h}")).unwrap_or_default(),
    };
    for (m, searched) in survivors.iter().zip(searched) {
        let Some(searched) = searched else {
            let because = "the time budget ran out".to_string();
            proven.searches.insert(m.n, (Some(Unwitnessed::NotSearched { because }), 0));
            continue;
        };
        let (found, shrunk) = searched.map_err(exec)?;
        // Pinning: the boundaries whose inputs this survivor moves.
        if found.witness.is_some() {
            for ci in witness::moved_boundaries(elites, known, &found.outcomes) {
                proven.unpinned.entry(ci).or_default().push(m.mutant.id.clone());
            }
        }
        let ms = found.time.as_millis() as u64;
        let Some(shrunk) = shrunk else {
            let why = found.unwitnessed.or_else(|| {
                Some(Unwitnessed::NoProbe { why: "the mutant could not be loaded".into() })
            });
            proven.searches.insert(m.n, (why, ms));
            continue;
        };
        let w = shrunk.witness;
        proven.searches.insert(m.n, (None, ms));
        let base = lab.test_name(d, &w);
        let through =
            if d == i { String::new() } else { format!(" through `{}`", front.function(d).name) };
        let why = format!(
            "abex: pins `{}`{through} on {} (the tests missed: {}, line {}){}",
            target.name,
            escape_untypable(&crate::value::shown_input(&w.input)),
            m.mutant.description.replace('\n', " "),
            m.mutant.line,
            unusual_note(&w.input, shrunk.settled),
        );
        // A test another survivor's witness already wrote (the same call, the same outcome,
        // the same need for the error's message) is checked once: it kills both or neither.
        let written = proven.suggestions.iter().any(|s| {
            s.calls == d && proven.witnesses.get(&s.mutant).is_some_and(|x| same_test(x, &w))
        });
        if !written {
            let name = crate::testname::unique(&base, taken);
            let codes = lab.suggest(d, &w, &name, &why);
            if codes.is_empty() {
                taken.remove(&name);
            }
            for (rank, code) in codes.into_iter().enumerate() {
                let name = crate::testname::candidate(&name, rank);
                let s = Suggestion {
                    target: i,
                    calls: d,
                    mutant: m.n,
                    name,
                    code,
                    rank,
                    origin: TestOrigin::Offline,
                    repair_rounds: 0,
                    spared: Vec::new(),
                };
                proven.suggestions.push(s);
            }
        }
        proven.witnesses.insert(m.n, w);
    }
    if lab.skips_spared() && !ctx.past_deadline() {
        spare(lab, d, &mut proven);
    }
    Ok(proven)
}

/// Fills in each suggested test's [`Suggestion::spared`]: the witnessed survivors of `proven`
/// (called through `d`) whose outcome on the test's input is the original's, one batch of calls
/// per survivor. A call that fails spares nothing: the check then runs the test there.
fn spare(lab: &mut dyn Lab, d: usize, proven: &mut Proven) {
    // Each test's survivor, the outcome it asserts and where its input is in `inputs` (the
    // distinct inputs, one call each per survivor).
    let mut inputs: Vec<crate::value::Args> = Vec::new();
    let mut asserted: Vec<(u32, &Outcome, usize)> = Vec::new();
    for s in &proven.suggestions {
        let Some(w) = proven.witnesses.get(&s.mutant) else { continue };
        let at = inputs.iter().position(|i| *i == w.input).unwrap_or_else(|| {
            inputs.push(w.input.clone());
            inputs.len() - 1
        });
        asserted.push((s.mutant, &w.original, at));
    }
    let mut spared: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
    for &n in proven.witnesses.keys() {
        let Ok(mut mutant) = lab.mutant(d, n) else { continue };
        let Ok(outcomes) = mutant.evaluate_outcomes(&inputs) else { continue };
        for &(own, original, at) in &asserted {
            if own != n && outcomes.get(at) == Some(original) {
                spared.entry(own).or_default().push(n);
            }
        }
    }
    for s in &mut proven.suggestions {
        s.spared = spared.get(&s.mutant).cloned().unwrap_or_default();
        s.spared.dedup();
    }
}

/// The function that is called to reach target `i`: the target itself, or the caller that
/// drives it.
fn called(front: &dyn FrontEnd, i: usize) -> Option<usize> {
    match &front.targets()[i].drive {
        Drive::Supported => Some(i),
        Drive::Via { .. } => front.vehicle(i),
        Drive::Unsupported { .. } => None,
    }
}

/// The function called to search target `i`'s witnesses ([`called`]), when `lab` can call it.
fn driver(ctx: &Ctx<'_>, lab: &dyn Lab, i: usize) -> Option<usize> {
    called(ctx.front, i).filter(|&d| lab.uncallable(d).is_none())
}

/// Whether the tests written for witnesses `a` and `b` are the same test: the same input, the
/// same original outcome, and the same need for the error's message. A mutant that raises (or
/// panics with) the original's own error type differs only in the message, so its test must
/// check the message (`pytest.raises(…, match=…)`, `#[should_panic(expected = …)]`), which a
/// test written for a mutant that returns instead does not.
fn same_test(a: &Witness, b: &Witness) -> bool {
    let message_only = |w: &Witness| match (&w.original, &w.mutant) {
        (Outcome::Error { ty: x, .. }, Outcome::Error { ty: y, .. }) => x == y,
        (Outcome::Panic { .. }, Outcome::Panic { .. }) => true,
        _ => false,
    };
    a.input == b.input
        && a.original.stringify() == b.original.stringify()
        && message_only(a) == message_only(b)
}

/// How readable a suggestion is for the smallest set (lower is preferred when two tests kill
/// the same survivors): abex's readable template first (a plain value assertion, written the
/// same way for every function), then the model's test (readable, but each one written
/// differently and longer to review), then the template's `Debug`/`repr` fall-back.
fn readability(s: &Suggestion) -> usize {
    match (s.origin, s.rank) {
        (TestOrigin::Offline, 0) => 0,
        (TestOrigin::Model, _) => 1,
        (TestOrigin::Offline, rank) => 1 + rank,
    }
}

/// The survivors of `unit` the Tester writes for, when a model is configured: every witnessed
/// survivor of a target called directly (a test through a caller stays offline), each with
/// abex's own test of its witness as the template and a name of its own.
fn wanted_tests(
    ctx: &Ctx<'_>,
    lab: &dyn Lab,
    unit: &Unit,
    mutants: &[Numbered],
    proven: &[Proven],
    taken: &mut BTreeSet<String>,
) -> Vec<super::tester::Wanted> {
    if ctx.session.as_ref().is_none_or(|s| s.stopped().is_some()) {
        return Vec::new();
    }
    let mut out = Vec::new();
    for (k, &i) in unit.targets.iter().enumerate() {
        let target = &ctx.front.targets()[i];
        if target.drive != Drive::Supported {
            continue;
        }
        let file = target.file.display().to_string();
        for (&n, w) in &proven[k].witnesses {
            let Some(m) = mutants.iter().find(|m| m.n == n) else { continue };
            // abex's own test of the same call: written for this survivor, or for another
            // whose witness is the same call with the same outcome.
            let same = |s: &&Suggestion| {
                s.rank == 0 && proven[k].witnesses.get(&s.mutant).is_some_and(|x| same_test(x, w))
            };
            let template = proven[k].suggestions.iter().find(same).map(|s| s.code.clone());
            out.push(super::tester::Wanted {
                target: i,
                mutant: n,
                witness: w.clone(),
                diff: m.mutant.diff(ctx.front.file_text(i), &file),
                template: template.unwrap_or_default(),
                name: crate::testname::unique(&lab.test_name(i, w), taken),
            });
        }
    }
    out
}

/// The chosen tests under the names they are suggested by: a fall-back chosen alone (the most
/// readable way of writing it was not) loses its fall-back's mark, in its name and its code.
fn suggested_names(
    chosen: Vec<(String, Vec<u32>)>,
    mut suggestions: Vec<Suggestion>,
) -> (Vec<(String, Vec<u32>)>, Vec<Suggestion>) {
    let names: BTreeSet<String> = chosen.iter().map(|(n, _)| n.clone()).collect();
    let mut out = Vec::new();
    for (name, kills) in chosen {
        let base = crate::testname::base_name(&name).to_string();
        if base == name || names.contains(&base) {
            out.push((name, kills));
            continue;
        }
        // The readable way of writing it was not chosen: the fall-back takes its name.
        suggestions.retain(|s| s.name != base);
        for s in suggestions.iter_mut().filter(|s| s.name == name) {
            s.code = s.code.replacen(&name, &base, 1);
            s.name = base.clone();
        }
        out.push((base, kills));
    }
    (out, suggestions)
}

/// What a target's report needs of the lab.
struct Facts {
    /// Its code is not compiled under the current features.
    not_compiled: bool,
    /// The test tool and selection, in words.
    test_tool: String,
    /// How many tests call it, where the lab traces them.
    reached_by: Option<usize>,
}

impl Facts {
    fn of(lab: &dyn Lab, i: usize) -> Facts {
        Facts {
            not_compiled: lab.uncallable(i).is_some_and(|u| u.not_compiled),
            test_tool: lab.test_tool(i),
            reached_by: lab.reached_by(i),
        }
    }
}

/// Whether the tests reach each target of `unit`: its self-check was killed (absent: its
/// self-check has no result, and no earlier round said). `reached` holds what earlier rounds
/// found.
fn reach_of(
    unit: &Unit,
    mutants: &[Numbered],
    results: &BTreeMap<u32, Tested>,
    reached: &BTreeMap<usize, bool>,
) -> BTreeMap<usize, bool> {
    let mut out = BTreeMap::new();
    for &i in &unit.targets {
        if let Some(r) = reach_one(mutants, results, reached, i) {
            out.insert(i, r);
        }
    }
    out
}

/// Whether the tests reach target `i`, when `results` tell ([`reach_of`]).
fn reach_one(
    mutants: &[Numbered],
    results: &BTreeMap<u32, Tested>,
    reached: &BTreeMap<usize, bool>,
    i: usize,
) -> Option<bool> {
    let own = self_check_of(mutants, results, i).and_then(|r| r.status.reach_shown());
    // Where the self-check shows nothing (it did not build: a panic is no `impl Trait`
    // alone), a test that killed another of its mutants ran the function.
    let killed = || {
        let mut theirs = mutants.iter().filter(|m| m.target == i && !m.self_check);
        theirs
            .any(|m| results.get(&m.n).is_some_and(|r| r.status == MutantStatus::Killed))
            .then_some(true)
    };
    own.or_else(|| reached.get(&i).copied()).or_else(killed)
}

/// The result of target `i`'s self-check, if it has one.
fn self_check_of<'r>(
    mutants: &[Numbered],
    results: &'r BTreeMap<u32, Tested>,
    i: usize,
) -> Option<&'r Tested> {
    mutants.iter().filter(|m| m.target == i && m.self_check).find_map(|m| results.get(&m.n))
}

/// Why no survivor of target `i` is searched when whether the tests reach it is not known: its
/// self-check did not build (no test run can show it), or did not run (the run stopped first).
fn reach_unknown(mutants: &[Numbered], results: &BTreeMap<u32, Tested>, i: usize) -> Unwitnessed {
    match self_check_of(mutants, results, i).map(|r| r.status) {
        Some(MutantStatus::Unviable) => Unwitnessed::ReachUnknown {
            because: "the function's self-check (its body replaced by a raise or a panic) does not build, and no test killed another of its mutants".into(),
        },
        _ => Unwitnessed::NotSearched {
            because: "the function's self-check (its body replaced by a raise or a panic) did not run, so whether the tests reach it is not known".into(),
        },
    }
}

/// The survivors of a function no test reaches become `not_reached`: the tests did not judge
/// them.
fn not_reached(
    mutants: &[Numbered],
    reach: &BTreeMap<usize, bool>,
    results: &mut BTreeMap<u32, Tested>,
) {
    for m in mutants {
        if reach.get(&m.target) != Some(&false) {
            continue;
        }
        if let Some(r) = results.get_mut(&m.n) {
            if r.status == MutantStatus::Survived {
                r.status = MutantStatus::NotReached;
            }
        }
    }
}

/// What the mutation report of one target is made of.
struct Entry<'a> {
    facts: &'a Facts,
    results: &'a BTreeMap<u32, Tested>,
    /// The chosen suggested tests and the survivors each kills.
    chosen: &'a [(String, Vec<u32>)],
    suggestions: &'a [Suggestion],
    /// Per survivor whose model-written test was not kept: why (see `super::tester`).
    fell_back: &'a BTreeMap<u32, String>,
}

impl Entry<'_> {
    /// The report of target `i`, whose mutants (self-check included) are `mine`.
    fn report(
        &self,
        ctx: &Ctx<'_>,
        i: usize,
        mine: &[&Numbered],
        proven: &Proven,
        elites: &[Pair],
    ) -> MutationReport {
        let target = &ctx.front.targets()[i];
        let not_compiled = self.facts.not_compiled;
        let text = ctx.front.file_text(i);
        let file = target.file.display().to_string();
        let mut counts = MutantCounts::default();
        let mut entries = Vec::new();
        let mut self_check_killed = None;
        for m in mine {
            let r = self.results.get(&m.n);
            if m.self_check {
                // Unknown when it was not tested (budget) or the function is not compiled.
                self_check_killed =
                    r.filter(|_| !not_compiled).and_then(|r| r.status.reach_shown());
                continue;
            }
            counts.total += 1;
            let status = if not_compiled {
                MutantStatus::NotExercised
            } else {
                r.map_or(MutantStatus::NotTested, |r| r.status)
            };
            let witness = proven.witnesses.get(&m.n).cloned();
            counts.add(status, witness.is_some());
            let mu = &m.mutant;
            entries.push(MutantReport {
                id: mu.id.clone(),
                origin: mu.origin,
                operator: mu.operator,
                description: mu.description.clone(),
                peer_name: mu.peer_name.clone(),
                file: target.file.clone(),
                line: mu.line,
                column: mu.column,
                original: mu.original.clone(),
                replacement: mu.replacement.clone(),
                diff: mu.diff(text, &file),
                status,
                killed_by: r.and_then(|r| r.killed_by.clone()),
                failure: r.and_then(|r| r.failure.clone()),
                possibly_equivalent: status == MutantStatus::Survived
                    && proven.settled
                    && witness.is_none()
                    && !proven
                        .searches
                        .get(&m.n)
                        .and_then(|s| s.0.as_ref())
                        .is_some_and(Unwitnessed::proves_nothing),
                unwitnessed: proven.searches.get(&m.n).and_then(|s| s.0.clone()),
                search_ms: proven.searches.get(&m.n).map(|s| s.1),
                witness,
                suggested_test: self
                    .chosen
                    .iter()
                    .find(|(_, k)| k.contains(&m.n))
                    .map(|(name, _)| name.clone()),
                time_ms: r.map_or(0, |r| r.time.as_millis() as u64),
            });
        }
        // Survivors with a witness first, then the other survivors, then the rest.
        entries.sort_by_key(|m| (m.status != MutantStatus::Survived, m.witness.is_none(), m.line));
        let id_of = |n: u32| mine.iter().find(|m| m.n == n).map(|m| m.mutant.id.clone());
        let suggested_tests = self
            .chosen
            .iter()
            .filter_map(|(name, k)| {
                let s = self.suggestions.iter().find(|s| &s.name == name && s.target == i)?;
                let calls = ctx.front.function(s.calls);
                Some(SuggestedTest {
                    name: name.clone(),
                    code: s.code.clone(),
                    kills: k.iter().filter_map(|n| id_of(*n)).collect(),
                    file: calls.file.clone(),
                    function: calls.name.clone(),
                    origin: s.origin,
                    repair_rounds: s.repair_rounds,
                    fallback: match s.origin {
                        TestOrigin::Offline => {
                            k.iter().find_map(|n| self.fell_back.get(n)).cloned()
                        }
                        TestOrigin::Model => None,
                    },
                })
            })
            .collect();
        let unpinned = proven
            .unpinned
            .iter()
            .map(|(ci, ms)| UnpinnedBoundary::of(&elites[*ci], ms.clone()))
            .collect();
        MutationReport {
            self_check_killed,
            reached_by: self.facts.reached_by,
            test_tool: self.facts.test_tool.clone(),
            counts,
            mutants: entries,
            unpinned,
            suggested_tests,
        }
    }
}

/// `text` with the characters a person would not type written as escapes (`\u{10ffff}`), so that
/// a suggested test's comment holds none of them.
fn escape_untypable(text: &str) -> String {
    text.chars()
        .map(
            |c| {
                if witness::typable(c) {
                    c.to_string()
                } else {
                    format!("\\u{{{:x}}}", u32::from(c))
                }
            },
        )
        .collect()
}

/// Why a shrunk witness still holds characters outside printable ASCII: nothing simpler tells
/// the mutant apart, when shrinking settled (`; the input holds U+0000, a character people do
/// not type: no simpler input tells them apart`; `U+00E9, a character outside ASCII`), or it
/// stopped first (`…: shrinking stopped before it tried every simpler input`); empty when it
/// holds none. The untypable ones are named first.
fn unusual_note(input: &crate::value::Args, settled: bool) -> String {
    let untypable = witness::untypable(input);
    let mut odd = untypable.clone();
    for c in witness::unusual(input) {
        if !odd.contains(&c) {
            odd.push(c);
        }
    }
    if odd.is_empty() {
        return String::new();
    }
    let names: Vec<String> = odd.iter().map(|c| format!("U+{:04X}", u32::from(*c))).collect();
    let what = match (odd.len(), untypable.len() == odd.len()) {
        (1, true) => "a character people do not type",
        (_, true) => "characters people do not type",
        (1, false) => "a character outside ASCII",
        (_, false) => "characters outside printable ASCII",
    };
    let why = if settled {
        "no simpler input tells them apart"
    } else {
        "shrinking stopped before it tried every simpler input"
    };
    format!("; the input holds {}, {what}: {why}", names.join(", "))
}

#[cfg(test)]
mod tests {
    use super::super::searches::tests::Compare;
    use super::*;
    use crate::value::Value;

    #[test]
    fn results_that_come_in_quick_succession_are_built_into_the_reports_together() {
        let mut pace = Pace::new(std::time::Duration::from_secs(3600));
        assert!(pace.now(), "the first result is built at once");
        assert!(!pace.held());
        assert!((0..10).all(|_| !pace.now()), "the next ones within the hour are held");
        assert!(pace.held(), "and built when the tests end");
        let mut every = Pace::new(std::time::Duration::ZERO);
        assert!((0..10).all(|_| every.now()));
        assert!(!every.held());
    }

    #[test]
    fn a_slow_build_of_the_reports_holds_the_results_ten_times_as_long() {
        // A build of 30 ms: the results of the next 300 ms wait for one build, whatever the
        // shortest time between builds says.
        let ms = std::time::Duration::from_millis;
        let t = std::time::Instant::now();
        let mut pace = Pace::new(std::time::Duration::ZERO);
        assert!(pace.now_at(t));
        pace.built_at(t + ms(30));
        assert!(!pace.now_at(t + ms(31)), "held: the build took 30 ms, the next waits 300 ms");
        assert!(!pace.now_at(t + ms(320)));
        assert!(pace.held());
        assert!(pace.now_at(t + ms(331)), "built once ten times its time has passed");
        pace.built_at(t + ms(331));
        assert!(pace.now_at(t + ms(331)), "a build that took no time holds nothing");
    }

    #[test]
    fn a_kill_shows_the_tests_reach_a_function_whose_self_check_does_not_build() {
        let numbered = |n: u32, target: usize, self_check: bool| Numbered {
            n,
            target,
            self_check,
            mutant: crate::mutate::Mutant {
                id: format!("m{n}"),
                origin: crate::mutate::Origin::Rules,
                operator: crate::mutate::Operator::ReplaceBody,
                function: "f".into(),
                file: "src/lib.rs".into(),
                line: 1,
                column: 1,
                span: (0, 1),
                original: "a".into(),
                replacement: "b".into(),
                switchable: true,
                description: "d".into(),
                peer_name: None,
            },
        };
        let tested =
            |status| Tested { status, killed_by: None, failure: None, time: Default::default() };
        // Targets 0 and 1: self-checks 1 and 2 did not build (a panic is no `impl Trait`);
        // target 0's mutant 3 was killed, target 1's mutant 4 survived. Target 2's self-check 5
        // did not run (the run stopped first).
        let mutants: Vec<Numbered> =
            [(1, 0, true), (2, 1, true), (3, 0, false), (4, 1, false), (5, 2, true), (6, 2, false)]
                .into_iter()
                .map(|(n, t, s)| numbered(n, t, s))
                .collect();
        let results: BTreeMap<u32, Tested> = [
            (1, MutantStatus::Unviable),
            (2, MutantStatus::Unviable),
            (3, MutantStatus::Killed),
            (4, MutantStatus::Survived),
            (5, MutantStatus::NotTested),
            (6, MutantStatus::Survived),
        ]
        .into_iter()
        .map(|(n, s)| (n, tested(s)))
        .collect();
        let unit = Unit { name: "p".into(), targets: vec![0, 1, 2], vehicles: Vec::new() };
        let reach = reach_of(&unit, &mutants, &results, &BTreeMap::new());
        assert_eq!(reach, BTreeMap::from([(0, true)]));
        // Target 1's survivor is no gap, and a longer run would not make it one: not "not
        // searched" (that is what a budget leaves, and makes the run incomplete).
        assert!(matches!(reach_unknown(&mutants, &results, 1), Unwitnessed::ReachUnknown { .. }));
        assert!(matches!(reach_unknown(&mutants, &results, 2), Unwitnessed::NotSearched { .. }));
    }

    #[test]
    fn a_test_spares_the_survivors_whose_outcome_on_its_input_is_the_originals() {
        // Survivor n compares with `10 + n`: the witness of 1 is 11, that of 5 is 15. The test
        // on 15 passes on survivor 1 (15 > 11, as 15 > 10): it spares it; the test on 11 fails
        // on survivor 5 (11 > 15 is false): it spares nothing.
        let mut lab = Compare { threads: Default::default(), shared: true };
        let witness = |x: i128| Witness {
            input: vec![Value::Int(x)],
            original: Outcome::Ok { value: "true".into() },
            mutant: Outcome::Ok { value: "false".into() },
            found_by: "search".into(),
            shrunk_from: None,
        };
        let mut proven = Proven::default();
        proven.witnesses.insert(1, witness(11));
        proven.witnesses.insert(5, witness(15));
        for (n, name) in [(1, "f_is_true_for_11"), (5, "f_is_true_for_15")] {
            let mut s = suggestion(name, 0, "");
            s.mutant = n;
            proven.suggestions.push(s);
        }
        spare(&mut lab, 0, &mut proven);
        let spared: Vec<(&str, Vec<u32>)> =
            proven.suggestions.iter().map(|s| (s.name.as_str(), s.spared.clone())).collect();
        assert_eq!(spared, [("f_is_true_for_11", vec![]), ("f_is_true_for_15", vec![1])]);
    }

    #[test]
    fn a_mutant_that_only_changes_the_error_message_gets_a_test_of_its_own() {
        let error = |m: &str| Outcome::Error { ty: "ValueError".into(), message: m.into() };
        let witness = |mutant: Outcome| Witness {
            input: vec![crate::value::Value::Int(90)],
            original: error("bad (90)"),
            mutant,
            found_by: "search".into(),
            shrunk_from: None,
        };
        let returns = witness(Outcome::Ok { value: "'B'".into() });
        let message = witness(error("None"));
        let other_message = witness(error("bad"));
        // The test for a mutant that returns does not read the message: not the same test.
        assert!(!same_test(&returns, &message));
        assert!(same_test(&message, &other_message));
        assert!(same_test(&returns, &witness(Outcome::Ok { value: "'C'".into() })));
        let panics = |m: &str| Witness {
            original: Outcome::Panic { message: "out of range".into() },
            ..witness(Outcome::Panic { message: m.into() })
        };
        assert!(same_test(&panics("x"), &panics("y")));
    }

    fn suggestion(name: &str, rank: usize, code: &str) -> Suggestion {
        Suggestion {
            target: 0,
            calls: 0,
            mutant: 1,
            name: name.into(),
            code: code.into(),
            rank,
            origin: TestOrigin::Offline,
            repair_rounds: 0,
            spared: Vec::new(),
        }
    }

    #[test]
    fn a_fall_back_chosen_alone_takes_the_readable_test_s_name_and_place() {
        let alt = crate::testname::candidate("f_is_0_for_0", 1);
        let all = vec![
            suggestion("f_is_0_for_0", 0, "fn f_is_0_for_0() { assert_eq!(f(0), 0.0) }"),
            suggestion(&alt, 1, &format!("fn {alt}() {{ debug }}")),
        ];
        let (chosen, kept) = suggested_names(vec![(alt.clone(), vec![1])], all);
        assert_eq!(chosen, vec![("f_is_0_for_0".to_string(), vec![1])]);
        let named: Vec<&Suggestion> = kept.iter().filter(|s| s.name == "f_is_0_for_0").collect();
        assert_eq!(named.len(), 1);
        assert_eq!(named[0].code, "fn f_is_0_for_0() { debug }");
    }
}
