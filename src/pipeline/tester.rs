//! Model-written tests with EvoGPT's generate-and-repair loop (paper 001), once for every
//! language: for each witnessed survivor the Tester (`crate::llm::tester`) writes a test; the
//! front end vets it against the allowlist (a refused answer never runs); the lab compiles and
//! runs it in the scratch copy, and it is kept only when it passes on the original and fails on
//! its survivor. Otherwise the compiler error, the failing output on the original, or "does not
//! kill the mutant" goes back to the Tester, for at most [`REPAIR_ROUNDS`] repair rounds (the
//! model settings' `tests` answers in all: `--llm-tests`, 0 for none); then
//! the offline test stands, and the report says why. All survivors of a unit advance round by
//! round together, so that a round costs one build (Rust) or one runner request per target.

use std::collections::{BTreeMap, BTreeSet};

use super::context::Ctx;
use super::error::{unless_cut, RunError};
use super::front::{Lab, Suggestion, Verdict};
use crate::llm::subject::Subject;
#[cfg(doc)]
use crate::llm::tester::REPAIR_ROUNDS;
use crate::llm::tester::{self, Gap};
use crate::report::{TestOrigin, Witness};
use crate::value::stringify_input;

/// One survivor the Tester writes for.
pub(crate) struct Wanted {
    /// The target it mutates (the test calls it directly).
    pub(crate) target: usize,
    /// The survivor's number.
    pub(crate) mutant: u32,
    /// Its witness.
    pub(crate) witness: Witness,
    /// Its diff.
    pub(crate) diff: String,
    /// abex's own test of the witness (empty when there is none).
    pub(crate) template: String,
    /// The name the model's test gets (unique in the unit).
    pub(crate) name: String,
}

/// What the loop gave.
#[derive(Default)]
pub(crate) struct Written {
    /// The model's tests that hold, with the survivors each kills.
    pub(crate) kept: Vec<(Suggestion, Vec<u32>)>,
    /// Per survivor whose loop ended without a test that holds: why.
    pub(crate) fell_back: BTreeMap<u32, String>,
}

/// One survivor's loop so far.
struct Attempt<'w> {
    wanted: &'w Wanted,
    subject: Subject,
    /// The position among the unit's survivors (picks the persona).
    k: usize,
    feedback: String,
    last: String,
    /// Answers the Tester gave so far.
    answers: u32,
}

impl Attempt<'_> {
    /// Why its loop ended without a test that holds, for the report.
    fn note(&self) -> String {
        let last = if self.last.is_empty() { "the run's time budget ran out" } else { &self.last };
        format!(
            "the model's test was not kept after {} answer(s), {} repair round(s): {last}",
            self.answers,
            self.answers.saturating_sub(1)
        )
    }
}

/// Runs the generate-and-repair loop for `wanted`; `witnessed` are every witnessed survivor of
/// the unit (the kills of a kept test are counted over them).
pub(crate) fn write_tests(
    ctx: &mut Ctx<'_>,
    lab: &mut dyn Lab,
    wanted: &[Wanted],
    witnessed: &[u32],
) -> Result<Written, RunError> {
    let mut out = Written::default();
    let answers = ctx.session.as_ref().map_or(0, |s| s.cfg.tests) as u32;
    if answers == 0 || wanted.is_empty() {
        return Ok(out);
    }
    let front = ctx.front;
    let mut pending: Vec<Attempt<'_>> = wanted
        .iter()
        .enumerate()
        .map(|(k, w)| Attempt {
            wanted: w,
            subject: front.subject(w.target, Vec::new()),
            k,
            feedback: String::new(),
            last: String::new(),
            answers: 0,
        })
        .collect();
    for round in 0..answers {
        if pending.is_empty() || ctx.past_deadline() {
            break;
        }
        let Some(session) = ctx.session.as_mut() else { break };
        // Ask every pending survivor's Tester; vet each answer before anything runs.
        let mut batch: Vec<(usize, Suggestion, String)> = Vec::new();
        let mut unanswered = BTreeSet::new();
        for (a_i, a) in pending.iter_mut().enumerate() {
            let w = a.wanted;
            let call = format!(
                "`{}` with the arguments {}",
                a.subject.name,
                stringify_input(&w.witness.input)
            );
            let (original, mutant) = (w.witness.original.stringify(), w.witness.mutant.stringify());
            let gap = Gap {
                subject: &a.subject,
                name: &w.name,
                call: &call,
                original: &original,
                mutant: &mutant,
                diff: &w.diff,
                template: if w.template.is_empty() { "(none)" } else { &w.template },
            };
            let Some(answer) = tester::ask(session, &gap, a.k, round, &a.feedback) else {
                a.last = session.stopped().map_or("the model gave no usable answer".into(), |s| {
                    format!("the model calls stopped: {s}")
                });
                unanswered.insert(a_i);
                continue;
            };
            a.answers += 1;
            let examples: Vec<String> =
                a.subject.tests.iter().cloned().chain(Some(w.template.clone())).collect();
            match front.vet_test(w.target, &answer, &w.name, &examples) {
                Ok(code) => {
                    let s = Suggestion {
                        target: w.target,
                        calls: w.target,
                        mutant: w.mutant,
                        name: w.name.clone(),
                        code,
                        rank: 0,
                        origin: TestOrigin::Model,
                        repair_rounds: round,
                        spared: Vec::new(),
                    };
                    batch.push((a_i, s, answer));
                }
                Err(why) => {
                    session.report.tests_refused += 1;
                    a.last = format!("it was refused unrun: {why}");
                    let said = format!("It was refused unrun, because {why}.");
                    a.feedback.push_str(&tester::feedback(round, &answer, &said, ""));
                }
            }
        }
        let suggestions: Vec<Suggestion> = batch.iter().map(|(_, s, _)| s.clone()).collect();
        let checked = if suggestions.is_empty() {
            Ok(BTreeMap::new())
        } else {
            lab.check(&suggestions, witnessed)
        };
        // The deadline killed the tests' build: nothing is kept unchecked.
        let verdicts = unless_cut(checked)?.unwrap_or_default();
        let mut done = unanswered;
        for (a_i, s, answer) in batch {
            let a = &mut pending[a_i];
            let (said, detail) = match verdicts.get(&s.name) {
                Some(Verdict::Passed(kills)) if kills.contains(&s.mutant) => {
                    out.kept.push((s, kills.clone()));
                    done.insert(a_i);
                    continue;
                }
                Some(Verdict::Passed(_)) => (
                    format!(
                        "It passed on the function as written but does not kill the mutant: it \
                         must fail on the faulty version, which gives {}.",
                        a.wanted.witness.mutant.stringify()
                    ),
                    String::new(),
                ),
                Some(Verdict::DoesNotCompile(e)) => ("It did not compile:".to_string(), e.clone()),
                Some(Verdict::FailsOnOriginal(o)) => {
                    ("It failed on the function as written:".to_string(), o.clone())
                }
                None => {
                    a.last = "it could not be run".into();
                    done.insert(a_i);
                    continue;
                }
            };
            a.last = match said.split_once(':') {
                Some((head, _)) if !detail.is_empty() => head.to_lowercase(),
                _ => said.split(':').next().unwrap_or(&said).trim_end_matches('.').to_lowercase(),
            };
            a.feedback.push_str(&tester::feedback(round, &answer, &said, &detail));
        }
        let mut k = 0;
        pending.retain(|a| {
            let keep = !done.contains(&k);
            k += 1;
            if !keep && !out.kept.iter().any(|(s, _)| s.mutant == a.wanted.mutant) {
                out.fell_back.insert(a.wanted.mutant, a.note());
            }
            keep
        });
    }
    for a in pending {
        out.fell_back.insert(a.wanted.mutant, a.note());
    }
    if let Some(session) = ctx.session.as_mut() {
        session.report.tests_kept += out.kept.len() as u64;
        session.report.tests_fell_back += out.fell_back.len() as u64;
    }
    Ok(out)
}
