//! Test-aware model-written mutants (paper 003): the Mutator gets the doc comment, the source and
//! the tests that reach the function, and answers with the whole mutated function. The answer is
//! validated before anything runs, by the front end's own check (it must parse, keep the
//! signature, change only the function, and reach nothing outside it). A refused answer is never
//! run; the model gets the reason and another try (at most [`ATTEMPTS`] in all per mutant). What
//! happened to each mutant that ran goes back to the model in the spine's feedback rounds
//! (`crate::pipeline`).

use serde::Deserialize;

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
    // Why earlier answers were refused: the next mutant's prompt says so, so it differs from the
    // one whose answer was refused (an identical prompt would replay that answer from the cache).
    let mut refusals: Vec<String> = Vec::new();
    for _ in 0..count {
        let mut feedback = earlier.to_string();
        if !refusals.is_empty() {
            let last: Vec<&str> = refusals.iter().rev().take(3).map(String::as_str).collect();
            feedback.push_str(&format!(
                "\n{} answer(s) were refused unrun so far, the last ones because {}.\n",
                refusals.len(),
                last.join("; ")
            ));
        }
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
            refusals.push(reason.clone());
            feedback.push_str(&format!(
                "\nYour previous answer was refused unrun: {reason}. Take a different approach.\n"
            ));
        }
    }
    out
}
