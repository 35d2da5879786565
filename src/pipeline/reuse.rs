//! Results taken from the results cache are claims about the code as it is now: before one is
//! reported (or posted), each of its suggested tests is compiled and run once more against the
//! mutants it kills, in the unit's build. A test that no longer kills its mutant (a change the
//! cache key could not see) sends its function back to be analysed again, with a warning.

use std::collections::{BTreeMap, BTreeSet};

use super::context::Ctx;
use super::error::{unless_cut, RunError};
use super::event::Event;
use super::front::{Lab, Numbered, Suggestion, Verdict};
use crate::report::TargetReport;
use crate::targets::Drive;

/// Of the cached `reused` results (by target), those whose every suggested test still passes
/// on the original and kills each mutant it lists, checked in `lab` (built with `numbered`,
/// the mutants of those targets among them: a model's, replayed from its response cache, have
/// the ids they had). The others are warned about and left out: the caller analyses them
/// again.
pub(crate) fn verified(
    ctx: &Ctx<'_>,
    lab: &mut dyn Lab,
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
            });
            expected.push((i, s.name.clone(), kills));
        }
    }
    let survivors: Vec<u32> = expected.iter().flat_map(|e| e.2.iter().copied()).collect();
    let verdicts = match suggestions.is_empty() || ctx.past_deadline() {
        true => BTreeMap::new(),
        false => unless_cut(lab.check(&suggestions, &survivors))?.unwrap_or_default(),
    };
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
