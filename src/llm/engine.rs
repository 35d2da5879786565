//! How a `cargo abex` run uses the model: resolve the configuration into a session (or the
//! offline engine, and why), describe a Rust function to the agents, and turn the Mutator's
//! validated answers into mutants of the shared record. The Python front end plugs in beside it
//! with its own subject and validation.

use std::path::Path;
use std::time::Instant;

use super::client::Client;
use super::config::{self, ConfigError, LlmOptions, Resolved};
use super::prompts::PromptError;
use super::session::Session;
use super::subject::{reaching_tests, Subject};
use super::usage::LlmReport;
use crate::budget::Budget;
use crate::mutate::{Mutant, Operator, Origin};
use crate::mutation::{MutationConfig, MutationError, PhaseTarget};
use crate::report::{MutationReport, TargetReport};
use crate::rust::harness::HarnessRequest;
use crate::rust::source::FoundFn;
use crate::value::Ty;

/// Tests shown to the Mutator at most.
const TESTS_SHOWN: usize = 6;

/// The model settings are broken.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    /// The config file is wrong.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// A prompt template is wrong.
    #[error(transparent)]
    Prompt(#[from] PromptError),
}

/// The session of a run, or the offline report saying why there is none.
pub fn start(
    opts: &LlmOptions,
    root: &Path,
    deadline: Option<Instant>,
) -> Result<Result<Session, LlmReport>, EngineError> {
    let env = |k: &str| std::env::var(k).ok();
    match config::resolve(opts, &env, root)? {
        Resolved::Offline(why) => Ok(Err(LlmReport {
            engine: "offline".into(),
            fallbacks: vec![why],
            ..LlmReport::default()
        })),
        Resolved::Model(cfg) => {
            let client = Client::new(&cfg);
            let budget = Budget { deadline, ..Budget::default() };
            Ok(Ok(Session::new(*cfg, client, root, budget)?))
        }
    }
}

/// The model settings that change a run's results, for results-cache keys: endpoint, models,
/// roles, agents, mutant and Explorer-call counts, budgets and the prompts.
pub fn settings_fingerprint(s: &Session) -> String {
    let c = &s.cfg;
    format!(
        "{}|{}|{:?}|{:?}|{}|{}|{:?}|{:?}|{}",
        c.base_url,
        c.model,
        c.roles,
        c.agents,
        c.mutants,
        c.explorer_calls,
        c.budget_tokens,
        c.budget_usd,
        s.prompts.fingerprint()
    )
}

/// A Rust function as the agents see it.
pub fn rust_subject(f: &FoundFn, params: Vec<Ty>, test_code: &[String]) -> Subject {
    Subject {
        language: "rust".into(),
        name: f.qualified_name(),
        signature: f.signature.clone(),
        doc: f.doc.clone(),
        source: f.source.clone(),
        params,
        tests: reaching_tests(test_code, &f.name, TESTS_SHOWN),
    }
}

/// Model-written mutants of `f` (whose file holds `text`, shown as `rel`), validated; each
/// replaces the body block. `count` of them, with `earlier` feedback on a previous round.
pub fn rust_mutants(
    session: &mut Session,
    f: &FoundFn,
    text: &str,
    rel: &Path,
    test_code: &[String],
    count: usize,
    earlier: &str,
) -> Vec<Mutant> {
    if count == 0 || session.stopped().is_some() {
        return Vec::new();
    }
    let subject = rust_subject(f, Vec::new(), test_code);
    let validate = |candidate: &str| super::mutants::validate_rust(&f.source, candidate);
    let (s, e) = f.body_span;
    let Some(original) = text.get(s..e) else { return Vec::new() };
    let line = text[..s].matches('\n').count() + 1;
    let column = text[..s].rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    super::mutants::generate(session, &subject, count, earlier, &validate)
        .into_iter()
        .map(|w| Mutant {
            id: crate::mutate::mutant_id(
                &rel.display().to_string(),
                &subject.name,
                Operator::Rewrite,
                0,
                e - s,
                &w.body,
            ),
            origin: Origin::Model,
            operator: Operator::Rewrite,
            function: subject.name.clone(),
            file: f.file.clone(),
            line,
            column,
            span: (s, e),
            original: original.to_string(),
            replacement: w.body,
            switchable: true,
            description: format!("model: {}", w.description.trim()),
        })
        .collect()
}

/// Feedback rounds for model mutants (paper 003): each model mutant of the last round that was
/// killed, unviable, hung or survived without a witness is reported back to the Mutator with
/// what happened, and the new mutants are built (one harness with only them switched) and run
/// like the first ones; their results join the targets' reports. At most
/// [`super::mutants::ATTEMPTS`] rounds in all, counting the first.
pub fn feedback_rounds(
    session: &mut Session,
    req: &HarnessRequest<'_>,
    phase: &[PhaseTarget<'_>],
    reports: &mut [TargetReport],
    mcfg: &MutationConfig,
    mut next: u32,
) -> Result<(), MutationError> {
    let (root, test_code) = (req.workspace_root, &req.sources.test_code);
    let mut last: Vec<Vec<String>> = reports
        .iter()
        .map(|r| model_ids(r.mutation.as_ref().map_or(&[][..], |m| &m.mutants[..])))
        .collect();
    for _round in 1..super::mutants::ATTEMPTS {
        let mut fresh: Vec<Vec<(u32, Mutant)>> = vec![Vec::new(); phase.len()];
        let mut checks: Vec<(u32, Mutant)> = Vec::new();
        for (k, t) in phase.iter().enumerate() {
            let Some(m) = &reports[k].mutation else { continue };
            let tests = reaching_tests(test_code, &t.found.name, TESTS_SHOWN);
            let feedback: Vec<String> = m
                .mutants
                .iter()
                .filter(|x| last[k].contains(&x.id))
                .filter_map(|x| super::mutants::outcome_feedback(x, &tests))
                .collect();
            let text = req.sources.files.iter().find(|s| s.path == t.found.file);
            let Some(text) = text.filter(|_| !feedback.is_empty() && session.stopped().is_none())
            else {
                continue;
            };
            let rel = t.found.file.strip_prefix(root).unwrap_or(&t.found.file).to_path_buf();
            let (count, earlier) = (feedback.len(), feedback.concat());
            let written =
                rust_mutants(session, t.found, &text.text, &rel, test_code, count, &earlier);
            let known: Vec<&str> = m.mutants.iter().map(|x| x.id.as_str()).collect();
            for w in written.into_iter().filter(|w| !known.contains(&w.id.as_str())) {
                fresh[k].push((next, w));
                next += 1;
            }
            if !fresh[k].is_empty() {
                checks.push((next, crate::mutation::self_check_mutant(t.found, &rel, &text.text)));
                next += 1;
            }
        }
        if fresh.iter().all(Vec::is_empty) {
            return Ok(());
        }
        let mut req2 = req.clone();
        req2.switches = fresh.iter().flatten().map(|(n, m)| (*n, m)).collect();
        req2.switches.extend(checks.iter().map(|(n, m)| (*n, m)));
        req2.known_dropped = Default::default();
        let built = crate::rust::harness::build(&req2)?;
        let mut which = Vec::new();
        let mut phase2 = Vec::new();
        let mut check = checks.iter();
        for (k, t) in phase.iter().enumerate() {
            if fresh[k].is_empty() {
                continue;
            }
            let Some((n, _)) = check.next() else { break };
            which.push(k);
            phase2.push(PhaseTarget {
                found: t.found,
                harness_id: t.harness_id,
                elites: t.elites.clone(),
                mutants: fresh[k].clone(),
                self_check: *n,
                not_compiled: t.not_compiled,
            });
        }
        let results = crate::mutation::run(&req2, &built, &phase2, mcfg, root)?;
        last = vec![Vec::new(); phase.len()];
        for (k, r2) in which.into_iter().zip(results) {
            last[k] = model_ids(&r2.mutants);
            if let Some(m) = reports[k].mutation.as_mut() {
                merge(m, r2);
            }
        }
    }
    Ok(())
}

/// The ids of the model-written mutants among `mutants`.
pub(crate) fn model_ids(mutants: &[crate::report::MutantReport]) -> Vec<String> {
    mutants.iter().filter(|m| m.origin == Origin::Model).map(|m| m.id.clone()).collect()
}

/// Adds a later round's results to a target's report.
pub(crate) fn merge(into: &mut MutationReport, more: MutationReport) {
    let (a, b) = (&mut into.counts, &more.counts);
    a.total += b.total;
    a.killed += b.killed;
    a.survived += b.survived;
    a.witnessed += b.witnessed;
    a.unviable += b.unviable;
    a.timeout += b.timeout;
    a.not_exercised += b.not_exercised;
    a.not_tested += b.not_tested;
    into.mutants.extend(more.mutants);
    // Survivors first, as the phase orders them.
    into.mutants.sort_by_key(|m| m.status != crate::report::MutantStatus::Survived);
    into.unpinned.extend(more.unpinned);
    into.suggested_tests.extend(more.suggested_tests);
}
