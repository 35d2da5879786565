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
/// replaces the body block.
pub fn rust_mutants(
    session: &mut Session,
    f: &FoundFn,
    text: &str,
    rel: &Path,
    test_code: &[String],
) -> Vec<Mutant> {
    let count = session.cfg.mutants;
    if count == 0 || session.stopped().is_some() {
        return Vec::new();
    }
    let subject = rust_subject(f, Vec::new(), test_code);
    let validate = |candidate: &str| super::mutants::validate_rust(&f.source, candidate);
    let (s, e) = f.body_span;
    let Some(original) = text.get(s..e) else { return Vec::new() };
    let line = text[..s].matches('\n').count() + 1;
    let column = text[..s].rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    super::mutants::generate(session, &subject, count, &validate)
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
