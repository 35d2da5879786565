//! The model's feedback rounds (paper 003): each model-written mutant of the last round that
//! was killed, unviable, hung or survived without a witness is reported back to the Mutator with
//! what happened; its new mutants are built into the unit's lab and go through the same
//! survivors phase, and their results join the targets' reports. At most
//! [`crate::llm::mutants::ATTEMPTS`] rounds in all, counting the first.

use super::context::Ctx;
use super::error::{unless_cut, RunError};
use super::front::{Lab, Numbered, Unit};
use super::survivors;
use crate::archive::Pair;
use crate::event::Event;
use crate::llm::prompts::data;
use crate::mutate::Origin;
use crate::report::{MutantReport, MutantStatus, MutationReport, TargetReport};

/// What to tell the Mutator about a model mutant that ran (paper 003, section 3): the failing
/// test for a killed one, the build failure for an unviable one, "take a different approach" for
/// a survivor no input tells apart. `None` for a witnessed survivor (the goal) and for mutants
/// that did not get an outcome.
fn outcome_feedback(m: &MutantReport, tests: &[String]) -> Option<String> {
    let what = format!("Your mutant \"{}\"", m.description.trim_start_matches("model: "));
    match m.status {
        MutantStatus::Killed => {
            let name = m.killed_by.clone().unwrap_or_default();
            let short = name.rsplit("::").next().unwrap_or(&name).to_string();
            let source = tests
                .iter()
                .find(|t| {
                    t.contains(&format!("fn {short}("))
                        || t.contains(&format!("fn {short} ("))
                        || t.contains(&format!("def {short}("))
                })
                .map(|t| format!(":\n<data>\n{}\n</data>", data(t)))
                .unwrap_or_default();
            let failed = m
                .failure
                .as_deref()
                .map(|f| {
                    format!(
                        "\nIt failed with (expected and actual values):\n<data>\n{}\n</data>",
                        data(f)
                    )
                })
                .unwrap_or_default();
            Some(format!(
                "\n{what} was caught by the existing test `{name}`{source}{failed}\nWrite a fault \
                 that this test does not catch but that still changes the result on some valid \
                 input.\n"
            ))
        }
        MutantStatus::Unviable => {
            let error = m
                .failure
                .as_deref()
                .map(|e| format!(" The build said:\n<data>\n{}\n</data>\n", data(e)))
                .unwrap_or_default();
            Some(format!(
                "\n{what} did not compile.{error} Keep every type and name as in the original.\n"
            ))
        }
        MutantStatus::Timeout => {
            Some(format!("\n{what} made the tests hang. Do not add loops that may not end.\n"))
        }
        MutantStatus::Survived if m.witness.is_none() => Some(format!(
            "\n{what} passed the tests but no input made it behave differently from the original: \
             it may be equivalent. Take a different approach.\n"
        )),
        _ => None,
    }
}

/// The ids of the model-written mutants among `mutants`.
fn model_ids(mutants: &[MutantReport]) -> Vec<String> {
    mutants.iter().filter(|m| m.origin == Origin::Model).map(|m| m.id.clone()).collect()
}

/// Adds a later round's results to a target's report.
fn merge(into: &mut MutationReport, more: MutationReport) {
    let (a, b) = (&mut into.counts, &more.counts);
    a.total += b.total;
    a.killed += b.killed;
    a.survived += b.survived;
    a.witnessed += b.witnessed;
    a.unviable += b.unviable;
    a.timeout += b.timeout;
    a.not_exercised += b.not_exercised;
    a.not_tested += b.not_tested;
    a.not_reached += b.not_reached;
    into.mutants.extend(more.mutants);
    // Survivors first, as the phase orders them.
    into.mutants.sort_by_key(|m| m.status != MutantStatus::Survived);
    into.unpinned.extend(more.unpinned);
    into.suggested_tests.extend(more.suggested_tests);
}

/// Runs the feedback rounds of `unit` (whose first round's results are in `reports`, one per
/// target, and whose explored archives are `elites`); new mutants are numbered from `next`.
pub(crate) fn rounds(
    ctx: &mut Ctx<'_>,
    lab: &mut dyn Lab,
    unit: &Unit,
    elites: &[Vec<Pair>],
    reports: &mut [TargetReport],
    mut next: u32,
    on_event: &mut dyn FnMut(Event<'_>),
) -> Result<(), RunError> {
    let mut last: Vec<Vec<String>> = reports
        .iter()
        .map(|r| model_ids(r.mutation.as_ref().map_or(&[][..], |m| &m.mutants[..])))
        .collect();
    for _round in 1..crate::llm::mutants::ATTEMPTS {
        let mut fresh: Vec<Numbered> = Vec::new();
        for (k, &i) in unit.targets.iter().enumerate() {
            let (Some(m), Some(session)) = (&reports[k].mutation, ctx.session.as_mut()) else {
                continue;
            };
            // A function the tests do not reach (or not known to) has no gap to look for.
            if m.self_check_killed != Some(true) {
                continue;
            }
            let tests = ctx.front.subject(i, Vec::new()).tests;
            let feedback: Vec<String> = m
                .mutants
                .iter()
                .filter(|x| last[k].contains(&x.id))
                .filter_map(|x| outcome_feedback(x, &tests))
                .collect();
            if feedback.is_empty() || session.stopped().is_some() {
                continue;
            }
            let written = ctx.front.model_mutants(session, i, feedback.len(), &feedback.concat());
            let known: Vec<&str> = m.mutants.iter().map(|x| x.id.as_str()).collect();
            for mutant in written.into_iter().filter(|w| !known.contains(&w.id.as_str())) {
                fresh.push(Numbered { n: next, target: i, mutant, self_check: false });
                next += 1;
            }
        }
        if fresh.is_empty() {
            return Ok(());
        }
        // The deadline killed their build: the round ends without them.
        if unless_cut(lab.add(&fresh))?.is_none() {
            return Ok(());
        }
        let which: Vec<usize> = (0..unit.targets.len())
            .filter(|&k| fresh.iter().any(|m| m.target == unit.targets[k]))
            .collect();
        let sub = Unit {
            vehicles: unit.vehicles.clone(),
            name: unit.name.clone(),
            targets: which.iter().map(|&k| unit.targets[k]).collect(),
        };
        let sub_elites: Vec<Vec<Pair>> = which.iter().map(|&k| elites[k].clone()).collect();
        let cached = std::collections::BTreeMap::new();
        // Only functions the first round's self-check showed the tests reach get here.
        let reached = sub.targets.iter().map(|&i| (i, true)).collect();
        let results = survivors::analyse(
            ctx,
            lab,
            &sub,
            &fresh,
            &sub_elites,
            &cached,
            &reached,
            on_event,
            &mut |_| {},
        )?;
        last = vec![Vec::new(); unit.targets.len()];
        for (k, more) in which.into_iter().zip(results) {
            last[k] = model_ids(&more.mutants);
            if let Some(m) = reports[k].mutation.as_mut() {
                merge(m, more);
            }
        }
    }
    Ok(())
}
