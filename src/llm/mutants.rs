//! Test-aware model-written mutants (paper 003): the Mutator gets the doc comment, the source and
//! the tests that reach the function, and answers with the whole mutated function. The answer is
//! validated before anything runs, by a per-language function ([`validate_rust`] for Rust): it
//! must parse, keep the signature, change only the body, and add no imports, no `unsafe`, and no
//! process, file, network or environment access. A refused answer is never run; the model gets
//! the reason and another try (at most [`ATTEMPTS`] in all per mutant). Once mutants have run,
//! [`outcome_feedback`] says what happened to each (the paper's feedback) for the next round
//! (`engine::feedback_rounds`).
//!
//! A valid mutant replaces the function's body block, an expression of the function's return
//! type, so it is switchable like the rule-based ones and shares their build, tests, outcome
//! classes and witness step.

use serde::Deserialize;
use syn::visit::Visit;

use crate::llm::client::{Message, Shape};
use crate::llm::config::Role;
use crate::llm::prompts::data;
use crate::llm::session::Session;
use crate::llm::subject::Subject;

/// Attempts per mutant (the first and two retries with feedback).
pub const ATTEMPTS: usize = 3;

#[derive(Deserialize)]
struct Answer {
    source: String,
    description: String,
}

/// A validated model mutant: the new body block, and what the fault is.
#[derive(Clone, Debug, PartialEq)]
pub struct Written {
    /// The replacement of the body block (`{ … }`).
    pub body: String,
    /// The model's one-line description.
    pub description: String,
}

fn shape() -> Shape {
    Shape {
        name: "mutant",
        schema: serde_json::json!({
            "type": "object",
            "properties": {"source": {"type": "string"}, "description": {"type": "string"}},
            "required": ["source", "description"],
            "additionalProperties": false
        }),
    }
}

/// The Mutator's messages; `feedback` is empty on a first attempt.
pub fn mutator_messages(session: &Session, subject: &Subject, feedback: &str) -> Vec<Message> {
    let tests = if subject.tests.is_empty() {
        "(no test names this function)".to_string()
    } else {
        data(&subject.tests.join("\n\n"))
    };
    let user = session.prompts.render(
        Role::Mutator,
        &[
            ("language", &subject.language),
            ("function", &subject.name),
            ("doc", &data(subject.doc.trim())),
            ("source", &data(subject.source.trim())),
            ("tests", &tests),
            ("feedback", feedback),
        ],
    );
    vec![Message::system(session.prompts.system()), Message::user(user)]
}

/// Asks for up to `count` distinct mutants of `subject`; `validate` turns an answer's source
/// into the new body or says why it is refused. `earlier` is feedback on mutants of an earlier
/// round (what happened when they ran), empty on the first.
pub fn generate(
    session: &mut Session,
    subject: &Subject,
    count: usize,
    earlier: &str,
    validate: &dyn Fn(&str) -> Result<String, String>,
) -> Vec<Written> {
    let mut out: Vec<Written> = Vec::new();
    for _ in 0..count {
        let mut feedback = earlier.to_string();
        if !out.is_empty() {
            let done: Vec<String> = out.iter().map(|w| format!("- {}", w.description)).collect();
            feedback.push_str(&format!(
                "\nMutants already written (make a different one):\n{}\n",
                done.join("\n")
            ));
        }
        for _ in 0..ATTEMPTS {
            let msgs = mutator_messages(session, subject, &feedback);
            let Some(a) = session.ask::<Answer>(Role::Mutator, &subject.name, msgs, shape()) else {
                return out;
            };
            let reason = match validate(&a.source) {
                Ok(body) if out.iter().any(|w| w.body == body) => {
                    "it repeats an earlier mutant".to_string()
                }
                Ok(body) => {
                    out.push(Written { body, description: a.description });
                    break;
                }
                Err(reason) => reason,
            };
            session.report.mutants_refused += 1;
            feedback.push_str(&format!(
                "\nYour previous answer was refused unrun: {reason}. Take a different approach.\n"
            ));
        }
    }
    out
}

/// What to tell the Mutator about a model mutant that ran (paper 003, section 3): the failing
/// test for a killed one, the build failure for an unviable one, "take a different approach" for
/// a survivor no input tells apart. `None` for a witnessed survivor (the goal) and for mutants
/// that did not get an outcome.
pub fn outcome_feedback(m: &crate::report::MutantReport, tests: &[String]) -> Option<String> {
    use crate::report::MutantStatus;
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

/// Paths whose use is refused: process, file, network, environment and raw-memory access.
const FORBIDDEN_SEGMENTS: &[&str] = &[
    "process",
    "fs",
    "net",
    "env",
    "Command",
    "File",
    "OpenOptions",
    "TcpStream",
    "TcpListener",
    "UdpSocket",
    "UnixStream",
    "Stdio",
    "exit",
    "abort",
    "transmute",
    "ptr",
    "libc",
    "unsafe_code",
];

/// Macros whose use is refused (they read files or the environment at build time).
const FORBIDDEN_MACROS: &[&str] =
    &["include", "include_str", "include_bytes", "env", "option_env", "asm", "global_asm"];

struct Checker {
    refusal: Option<String>,
}

impl Checker {
    fn refuse(&mut self, why: String) {
        self.refusal.get_or_insert(why);
    }
}

impl<'ast> Visit<'ast> for Checker {
    fn visit_item(&mut self, i: &'ast syn::Item) {
        match i {
            syn::Item::Use(_) | syn::Item::ExternCrate(_) => {
                self.refuse("it adds an import".into())
            }
            syn::Item::ForeignMod(_) => self.refuse("it declares foreign functions".into()),
            syn::Item::Mod(_) => self.refuse("it declares a module".into()),
            _ => {}
        }
        syn::visit::visit_item(self, i);
    }
    fn visit_expr_unsafe(&mut self, e: &'ast syn::ExprUnsafe) {
        self.refuse("it uses `unsafe`".into());
        syn::visit::visit_expr_unsafe(self, e);
    }
    fn visit_signature(&mut self, s: &'ast syn::Signature) {
        if s.unsafety.is_some() {
            self.refuse("it uses `unsafe`".into());
        }
        syn::visit::visit_signature(self, s);
    }
    fn visit_item_impl(&mut self, i: &'ast syn::ItemImpl) {
        if i.unsafety.is_some() {
            self.refuse("it uses `unsafe`".into());
        }
        syn::visit::visit_item_impl(self, i);
    }
    fn visit_path(&mut self, p: &'ast syn::Path) {
        if let Some(s) =
            p.segments.iter().find(|s| FORBIDDEN_SEGMENTS.contains(&s.ident.to_string().as_str()))
        {
            self.refuse(format!(
                "it reaches `{}` (process, file, network or environment access)",
                s.ident
            ));
        }
        syn::visit::visit_path(self, p);
    }
    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        if let Some(last) = m.path.segments.last() {
            if FORBIDDEN_MACROS.contains(&last.ident.to_string().as_str()) {
                self.refuse(format!("it uses `{}!`", last.ident));
            }
        }
        // Macro arguments are not parsed by syn: look at their identifiers as text.
        let tokens = m.tokens.to_string();
        if let Some(w) = tokens
            .split(|c: char| !c.is_alphanumeric() && c != '_')
            .find(|w| FORBIDDEN_SEGMENTS.contains(w) || *w == "unsafe")
        {
            self.refuse(format!("it reaches `{w}` inside a macro"));
        }
        syn::visit::visit_macro(self, m);
    }
}

/// Parses a function item, free or associated.
fn parse_fn(text: &str) -> Result<(syn::Signature, syn::Block, Vec<syn::Attribute>), String> {
    if let Ok(f) = syn::parse_str::<syn::ItemFn>(text) {
        return Ok((f.sig, *f.block, f.attrs));
    }
    syn::parse_str::<syn::ImplItemFn>(text)
        .map(|f| (f.sig, f.block, f.attrs))
        .map_err(|e| format!("it does not parse as one function: {e}"))
}

/// Validates a model's mutated Rust function against the original item `original`; returns the
/// new body block's text.
pub fn validate_rust(original: &str, candidate: &str) -> Result<String, String> {
    use quote::ToTokens;
    // A fenced answer (```rust … ```) is the code inside the fence.
    let candidate = candidate.trim();
    let candidate = match candidate.strip_prefix("```") {
        Some(rest) => {
            let rest = rest.split_once('\n').map_or("", |(_, code)| code);
            rest.trim_end().strip_suffix("```").unwrap_or(rest).trim()
        }
        None => candidate,
    };
    let (osig, oblock, _) = parse_fn(original).map_err(|e| format!("the original: {e}"))?;
    let (sig, block, _) = parse_fn(candidate)?;
    if sig.to_token_stream().to_string() != osig.to_token_stream().to_string() {
        return Err("it changes the signature".into());
    }
    if block.to_token_stream().to_string() == oblock.to_token_stream().to_string() {
        return Err("it does not change the body".into());
    }
    let mut c = Checker { refusal: None };
    c.visit_block(&block);
    if let Some(why) = c.refusal {
        return Err(why);
    }
    // The body's text, from its braces' positions in the candidate.
    let lines = crate::rust::source::Lines::new(candidate);
    let span = block.brace_token.span;
    let (open, close) = (
        lines.offset(candidate, span.open().start()),
        lines.offset(candidate, span.close().start()),
    );
    match candidate.get(open..=close) {
        Some(body) if body.starts_with('{') && body.ends_with('}') => Ok(body.to_string()),
        _ => Ok(block.to_token_stream().to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ORIGINAL: &str =
        "/// Clamp.\npub fn clamp(x: i32) -> i32 {\n    if x > 10 { 10 } else { x }\n}";

    #[test]
    fn a_body_change_is_accepted_and_its_text_kept() {
        let m = "pub fn clamp(x: i32) -> i32 {\n    if x >= 10 { 10 } else { x }\n}";
        assert_eq!(validate_rust(ORIGINAL, m).unwrap(), "{\n    if x >= 10 { 10 } else { x }\n}");
        let attrs = "/// Clamp.\n#[inline]\npub fn clamp(x: i32) -> i32 { x.min(9) }";
        assert_eq!(validate_rust(ORIGINAL, attrs).unwrap(), "{ x.min(9) }");
        let fenced = "```rust\npub fn clamp(x: i32) -> i32 { x.min(8) }\n```\n";
        assert_eq!(validate_rust(ORIGINAL, fenced).unwrap(), "{ x.min(8) }");
    }

    #[test]
    fn forbidden_mutants_are_refused_with_a_reason() {
        let cases = [
            ("pub fn clamp(x: i64) -> i32 { 0 }", "signature"),
            (
                "pub fn clamp(x: i32) -> i32 {\n    if x > 10 { 10 } else { x }\n}",
                "does not change",
            ),
            ("pub fn clamp(x: i32) -> i32 { use std::cmp::min; min(x, 9) }", "import"),
            ("pub fn clamp(x: i32) -> i32 { unsafe { x } }", "unsafe"),
            ("pub fn clamp(x: i32) -> i32 { std::process::exit(1) }", "process"),
            ("pub fn clamp(x: i32) -> i32 { let _ = std::fs::remove_dir_all(\"/\"); x }", "`fs`"),
            ("pub fn clamp(x: i32) -> i32 { let _ = Command::new(\"rm\"); x }", "Command"),
            ("pub fn clamp(x: i32) -> i32 { let _ = File::open(\"k\"); x }", "File"),
            (
                "pub fn clamp(x: i32) -> i32 { let _ = std::net::TcpStream::connect(\"h:1\"); x }",
                "net",
            ),
            ("pub fn clamp(x: i32) -> i32 { println!(\"{:?}\", std::env::var(\"K\")); x }", "env"),
            (
                "pub fn clamp(x: i32) -> i32 { include_str!(\"/etc/passwd\").len() as i32 }",
                "include_str",
            ),
            ("pub fn clamp(x: i32) -> i32 { x", "parse"),
            ("fn a() {} fn b() {}", "parse"),
        ];
        for (m, why) in cases {
            let e = validate_rust(ORIGINAL, m).unwrap_err();
            assert!(e.contains(why), "{m}: {e}");
        }
    }
}
