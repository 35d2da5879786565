//! Results taken from the results cache are claims about the code as it is now: before one is
//! reported (or posted), each of its suggested tests is compiled and run once more against the
//! mutants it kills ([`verify`]), in a build of its own (a lab's check rebuilds the test
//! binaries, so it is not the build the unit's other targets are then tested in). Those mutants
//! are the report's own, built again from it ([`cached_mutants`]: a model's, or one of a
//! feedback round, is not asked for again). A test that no longer kills its mutant (a change
//! the cache key could not see) sends its function back to be analysed again, with a warning.

use std::collections::{BTreeMap, BTreeSet};

use super::context::Ctx;
use super::error::{unless_cut, RunError};
use super::front::{Lab, Numbered, Suggestion, Unit, Verdict};
use crate::event::Event;
use crate::mutate::{Mutant, Origin};
use crate::report::{MutantReport, TargetReport};
use crate::targets::Drive;

/// Of the cached `reused` results of `unit`'s targets, those whose suggested tests still kill
/// their mutants; the others are warned about and left out (the caller analyses them again).
/// Past the deadline none is kept.
pub(crate) fn verify(
    ctx: &Ctx<'_>,
    unit: &Unit,
    reused: &BTreeMap<usize, TargetReport>,
    on_event: &mut dyn FnMut(Event<'_>),
) -> Result<BTreeMap<usize, TargetReport>, RunError> {
    let targets: Vec<usize> =
        unit.targets.iter().copied().filter(|i| reused.contains_key(i)).collect();
    let vehicles = unit
        .vehicles
        .iter()
        .copied()
        .filter(|v| targets.iter().any(|&i| ctx.front.vehicle(i) == Some(*v)))
        .collect();
    let checked = Unit { name: unit.name.clone(), targets, vehicles };
    let numbered = cached_mutants(ctx, reused);
    if numbered.is_empty() || ctx.past_deadline() {
        return verified(ctx, None, &numbered, reused, on_event);
    }
    let callable = checked.callable(ctx.front.targets());
    on_event(Event::Building { package: &checked.name, functions: callable.len() });
    let built = std::time::Instant::now();
    let opened = unless_cut(ctx.front.open(ctx.cfg, &checked, &numbered, ctx.deadline))?;
    let Some(mut lab) = opened else { return Ok(BTreeMap::new()) };
    on_event(Event::Built { package: &checked.name, time: built.elapsed() });
    // Their tests run first: a mutant that cannot be switched beside the others is built
    // alone there, where its check finds it.
    let numbers: Vec<u32> = numbered.iter().map(|m| m.n).collect();
    unless_cut(lab.test(&numbers, &mut |_, _| {}))?;
    verified(ctx, Some(lab.as_mut()), &numbered, reused, on_event)
}

/// The mutants the suggested tests of the cached `reused` results kill, built again from the
/// reports (the key saw the same files), numbered from 1. One whose text is no longer where
/// the report says is left out (its test then cannot be checked, and its function is analysed
/// again).
fn cached_mutants(ctx: &Ctx<'_>, reused: &BTreeMap<usize, TargetReport>) -> Vec<Numbered> {
    let mut n = 1;
    let mut out: Vec<Numbered> = Vec::new();
    for (&i, tr) in reused {
        let Some(mr) = &tr.mutation else { continue };
        let wanted: BTreeSet<&String> = mr.suggested_tests.iter().flat_map(|s| &s.kills).collect();
        for m in mr.mutants.iter().filter(|m| wanted.contains(&m.id)) {
            if out.iter().any(|x| x.target == i && x.mutant.id == m.id) {
                continue;
            }
            if let Some(mutant) = rebuilt(ctx, i, m) {
                out.push(Numbered { n, target: i, mutant, self_check: false });
                n += 1;
            }
        }
    }
    out
}

/// The mutant of target `i` that `m` reports: the rule's own when the rules still make it,
/// else (a model's) built from the report where its text still is in the target's file, with
/// the file named as the front names it (the report's path is relative to the workspace).
fn rebuilt(ctx: &Ctx<'_>, i: usize, m: &MutantReport) -> Option<Mutant> {
    let target = &ctx.front.targets()[i];
    if m.file != target.file {
        return None;
    }
    if m.origin != Origin::Model {
        return ctx.front.rule_mutants(i).into_iter().find(|r| r.id == m.id);
    }
    let text = ctx.front.file_text(i);
    let line_start = if m.line <= 1 {
        0
    } else {
        text.match_indices('\n').nth(m.line - 2).map(|(at, _)| at + 1)?
    };
    let column = text[line_start..].char_indices().nth(m.column.checked_sub(1)?)?.0;
    let start = line_start + column;
    let end = start + m.original.len();
    // Named as the front names its own mutants (the report's file is workspace-relative).
    let own = ctx.front.self_check(i);
    (text.get(start..end) == Some(m.original.as_str())).then(|| Mutant {
        id: m.id.clone(),
        origin: m.origin,
        operator: m.operator,
        function: own.function,
        file: own.file,
        line: m.line,
        column: m.column,
        span: (start, end),
        original: m.original.clone(),
        replacement: m.replacement.clone(),
        switchable: true,
        description: m.description.clone(),
        peer_name: None,
    })
}

/// Of the cached `reused` results (by target), those whose every suggested test still passes
/// on the original and kills each mutant it lists, checked in `lab` (built with `numbered`;
/// none: nothing could be checked). The others are warned about and left out.
fn verified(
    ctx: &Ctx<'_>,
    lab: Option<&mut dyn Lab>,
    numbered: &[Numbered],
    reused: &BTreeMap<usize, TargetReport>,
    on_event: &mut dyn FnMut(Event<'_>),
) -> Result<BTreeMap<usize, TargetReport>, RunError> {
    let targets = ctx.front.targets();
    let mut suggestions: Vec<Suggestion> = Vec::new();
    // Per suggestion: its target, its name, the numbers of the mutants it must kill.
    let mut expected: Vec<(usize, String, Vec<u32>)> = Vec::new();
    // Targets with a test that names a mutant this build does not hold (a model's).
    let mut unmatched: BTreeSet<usize> = BTreeSet::new();
    for (&i, tr) in reused {
        for s in tr.mutation.iter().flat_map(|m| &m.suggested_tests) {
            let number = |id: &String| {
                numbered.iter().find(|m| m.target == i && &m.mutant.id == id).map(|m| m.n)
            };
            let kills: Option<Vec<u32>> = s.kills.iter().map(number).collect();
            let Some(kills) = kills.filter(|k| !k.is_empty()) else {
                unmatched.insert(i);
                continue;
            };
            // A test listed again (it closes a feedback round's survivor too) is run once.
            if let Some(e) = expected.iter_mut().find(|e| e.0 == i && e.1 == s.name) {
                e.2.extend(kills);
                continue;
            }
            let calls = match targets[i].drive {
                Drive::Via { .. } => ctx.front.vehicle(i).unwrap_or(i),
                _ => i,
            };
            suggestions.push(Suggestion {
                target: i,
                calls,
                mutant: kills[0],
                name: s.name.clone(),
                code: s.code.clone(),
                rank: 0,
                origin: s.origin,
                repair_rounds: s.repair_rounds,
                spared: Vec::new(),
            });
            expected.push((i, s.name.clone(), kills));
        }
    }
    let survivors: Vec<u32> = expected.iter().flat_map(|e| e.2.iter().copied()).collect();
    let mut verdicts = BTreeMap::new();
    if let Some(lab) = lab.filter(|_| !suggestions.is_empty() && !ctx.past_deadline()) {
        verdicts = unless_cut(lab.check(&suggestions, &survivors))?.unwrap_or_default();
        // A survivor built alone is checked only with the tests written for it (the first
        // mutant each lists): each further round names, per test, one mutant it should kill
        // and has not yet, until none is left or a round kills nothing more.
        let mut tried: BTreeSet<(String, u32)> =
            suggestions.iter().map(|s| (s.name.clone(), s.mutant)).collect();
        loop {
            let mut again: Vec<Suggestion> = Vec::new();
            for (s, e) in suggestions.iter().zip(&expected) {
                let Some(Verdict::Passed(killed)) = verdicts.get(&e.1) else { continue };
                let next =
                    e.2.iter()
                        .find(|n| !killed.contains(n) && !tried.contains(&(e.1.clone(), **n)));
                if let Some(&n) = next {
                    tried.insert((e.1.clone(), n));
                    again.push(Suggestion { mutant: n, ..s.clone() });
                }
            }
            if again.is_empty() || ctx.past_deadline() {
                break;
            }
            let wanted: Vec<u32> = again.iter().map(|s| s.mutant).collect();
            let more = unless_cut(lab.check(&again, &wanted))?.unwrap_or_default();
            let mut progress = false;
            for (name, verdict) in more {
                if let (Some(Verdict::Passed(k)), Verdict::Passed(more)) =
                    (verdicts.get_mut(&name), verdict)
                {
                    let before = k.len();
                    k.extend(more.into_iter().filter(|n| !k.contains(n)).collect::<Vec<_>>());
                    progress |= k.len() > before;
                }
            }
            if !progress {
                break;
            }
        }
    }
    let mut out = BTreeMap::new();
    for (&i, tr) in reused {
        let function = &targets[i].qualified_name;
        let holds = |e: &&(usize, String, Vec<u32>)| matches!(verdicts.get(&e.1), Some(Verdict::Passed(k)) if e.2.iter().all(|n| k.contains(n)));
        let stale = expected.iter().filter(|e| e.0 == i).find(|e| !holds(e));
        let message = match (stale, unmatched.contains(&i)) {
            (None, false) => {
                out.insert(i, tr.clone());
                continue;
            }
            (Some(e), _) if ctx.past_deadline() => format!(
                "the suggested test `{}` of `{function}`, reused from the results cache, could \
                 not be checked again before the time budget ran out: it is not reported",
                e.1
            ),
            (Some(e), _) => format!(
                "the suggested test `{}` of `{function}`, reused from the results cache, no \
                 longer kills its mutant: `{function}` is analysed again",
                e.1
            ),
            (None, true) => format!(
                "a suggested test of `{function}`, reused from the results cache, kills a mutant \
                 this run did not make: `{function}` is analysed again"
            ),
        };
        on_event(Event::Warning { message });
    }
    Ok(out)
}
