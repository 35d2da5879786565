//! The model engine on Rust code: a function as the agents see it ([`subject`]), and the
//! Mutator's test-aware mutants of it ([`mutants`]), validated before anything runs; each
//! replaces the function's body block.

use std::path::Path;

use crate::llm::session::Session;
use crate::llm::subject::{reaching_tests, Subject};
use crate::mutate::{Mutant, Operator, Origin};
use crate::rust::source::FoundFn;
use crate::value::Ty;

/// Tests shown to the agents at most.
const TESTS_SHOWN: usize = 6;

/// A Rust function as the agents see it.
pub fn subject(f: &FoundFn, params: Vec<Ty>, test_code: &[String]) -> Subject {
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
pub fn mutants(
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
    let subject = subject(f, Vec::new(), test_code);
    let validate = |candidate: &str| crate::rust::model_check::validate_rust(&f.source, candidate);
    let (s, e) = f.body_span;
    let Some(original) = text.get(s..e) else { return Vec::new() };
    let line = text[..s].matches('\n').count() + 1;
    let column = text[..s].rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    crate::llm::mutants::generate(session, &subject, count, earlier, &validate)
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
            peer_name: None,
        })
        .collect()
}
