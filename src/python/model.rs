//! The model engine in a Python run: a Python function as the agents see it ([`subject`]), and
//! the Mutator's test-aware mutants of it ([`mutants`]), validated by
//! [`super::model_check::validate_python`] and read the same by the project's interpreter
//! ([`super::cpython::same_reading`]) before anything runs. A valid mutant replaces
//! the whole definition, indented like the original, and runs through the same phase as the
//! rule-based ones (`origin: model`).

use std::path::{Path, PathBuf};

use super::project::{Chosen, Project};
use super::selection;
use crate::llm::session::Session;
use crate::llm::subject::Subject;
use crate::mutate::{line_column, mutant_id, Mutant, Operator, Origin};
use crate::value::Ty;

/// Test functions shown to the agents at most.
const TESTS_SHOWN: usize = 6;

/// The source of the test functions (of the test files that reach `c`) that name it.
fn reaching_test_sources(project: &Project, c: &Chosen) -> Vec<String> {
    let pf = &project.files[c.file];
    let name = &pf.fns[c.func].name;
    let mut out = Vec::new();
    for rel in selection::reaching(project, pf, &pf.fns[c.func].qualname) {
        let Ok(text) = std::fs::read_to_string(project.root.join(&rel)) else { continue };
        for t in super::types::function::functions(&text) {
            let code = &text[t.byte_span.0..t.byte_span.1];
            let names_it =
                code.split(|ch: char| !ch.is_alphanumeric() && ch != '_').any(|w| w == name);
            if t.name.starts_with("test") && names_it {
                out.push(code.to_string());
                if out.len() >= TESTS_SHOWN {
                    return out;
                }
            }
        }
    }
    out
}

/// The function `c` as the agents see it: signature, docstring, source, parameter types and the
/// source of the tests that reach it.
pub fn subject(project: &Project, c: &Chosen, params: Vec<Ty>) -> Subject {
    let pf = &project.files[c.file];
    let f = &pf.fns[c.func];
    Subject {
        language: "python".into(),
        name: c.target.qualified_name.clone(),
        signature: f.signature.clone(),
        doc: f.doc.clone(),
        source: pf.text[f.byte_span.0..f.byte_span.1].to_string(),
        params,
        tests: reaching_test_sources(project, c),
    }
}

/// `def` (dedented to column 0) indented by `indent` from its second line on: the first line
/// takes the original's place, which starts after its indentation.
fn indent_from_second_line(def: &str, indent: &str) -> String {
    let mut out = String::with_capacity(def.len());
    for (i, line) in def.lines().enumerate() {
        if i > 0 {
            out.push('\n');
            if !line.trim().is_empty() {
                out.push_str(indent);
            }
        }
        out.push_str(line);
    }
    out
}

/// The validated replacement of the definition at `span` of `text` by the model's `candidate`:
/// the new definition indented like the original (its first line takes the original's place).
/// With `python`, the project's interpreter must read the definition as the checks did.
fn replacement(
    text: &str,
    span: (usize, usize),
    candidate: &str,
    python: Option<&Path>,
) -> Result<String, String> {
    let (s, e) = span;
    let line_start = text[..s].rfind('\n').map_or(0, |i| i + 1);
    let indent = &text[line_start..s];
    if !indent.trim().is_empty() {
        return Err("the function does not start its line".into());
    }
    // The original as written, with its first line's indentation, so that it parses alone.
    let def = super::model_check::validate_python(&text[line_start..e], candidate)?;
    if let Some(python) = python {
        super::cpython::same_reading(python, &def)?;
    }
    Ok(indent_from_second_line(&def, indent))
}

/// Up to `count` model-written mutants of `c` (fewer when answers are refused or the session
/// stops), with `earlier` feedback on a previous round; each replaces the function's definition.
/// `python` is the project's interpreter, which checks each one's reading.
pub fn mutants(
    session: &mut Session,
    project: &Project,
    c: &Chosen,
    python: &Path,
    count: usize,
    earlier: &str,
) -> Vec<Mutant> {
    if count == 0 || session.stopped().is_some() {
        return Vec::new();
    }
    let pf = &project.files[c.file];
    let (s, e) = pf.fns[c.func].byte_span;
    let subject = subject(project, c, Vec::new());
    let validate = |candidate: &str| replacement(&pf.text, (s, e), candidate, Some(python));
    let (line, column) = line_column(&pf.text, s);
    let rel: PathBuf = pf.rel.clone();
    crate::llm::mutants::generate(session, &subject, count, earlier, &validate)
        .into_iter()
        .map(|w| {
            let replacement = w.body;
            Mutant {
                id: mutant_id(
                    &rel.display().to_string(),
                    &subject.name,
                    Operator::Rewrite,
                    0,
                    e - s,
                    &replacement,
                ),
                origin: Origin::Model,
                operator: Operator::Rewrite,
                function: subject.name.clone(),
                file: rel.clone(),
                line,
                column,
                span: (s, e),
                original: pf.text[s..e].to_string(),
                replacement,
                switchable: true,
                description: format!("model: {}", w.description.trim()),
                peer_name: None,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::{indent_from_second_line, replacement};
    use crate::python::types::function::functions;
    use std::path::Path;

    #[test]
    fn a_mutated_method_replaces_the_original_inside_its_class() {
        let text = "class Shop:\n    def price(self, n: int) -> int:\n        return n * 2\n\n    def other(self):\n        return 1\n";
        let f = functions(text).into_iter().find(|f| f.name == "price").unwrap();
        let candidate = "def price(self, n: int) -> int:\n    return n * 3\n";
        let new = replacement(text, f.byte_span, candidate, None).unwrap();
        let mutated = format!("{}{new}{}", &text[..f.byte_span.0], &text[f.byte_span.1..]);
        assert_eq!(mutated, text.replace("n * 2", "n * 3"));
        let fns = functions(&mutated);
        assert_eq!(
            fns.iter().map(|f| f.qualname.as_str()).collect::<Vec<_>>(),
            ["Shop.price", "Shop.other"]
        );
        let forbidden = "def price(self, n: int) -> int:\n    import os\n    return n\n";
        assert!(replacement(text, f.byte_span, forbidden, None).unwrap_err().contains("an import"));
        // The project's interpreter reads an accepted one the same way.
        let python = Some(Path::new("python3"));
        assert!(replacement(text, f.byte_span, candidate, python).is_ok());
    }

    #[test]
    fn a_method_is_indented_like_the_original() {
        let def = "def f(self, n):\n    if n:\n\n        return 1\n    return 2";
        let got = indent_from_second_line(def, "    ");
        assert_eq!(got, "def f(self, n):\n        if n:\n\n            return 1\n        return 2");
    }
}
