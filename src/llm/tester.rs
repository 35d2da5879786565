//! The Tester agent (EvoGPT, paper 001): writes the test that kills one witnessed survivor, from
//! the function's source, the witness call, both outcomes, the mutant's diff, abex's own test of
//! the call and the project's tests that name the function (all quoted as data). Its personas
//! and their temperatures give the diversity EvoGPT gets from several generators; the repair
//! rounds (feedback on a test that did not compile, failed on the original or did not kill)
//! are driven by the spine (`crate::pipeline`), which compiles and runs each answer.

use serde::Deserialize;

use crate::llm::client::{Message, Shape};
use crate::llm::config::Role;
use crate::llm::prompts::data;
use crate::llm::session::Session;
use crate::llm::subject::Subject;

/// Repair rounds after the first answer by default (EvoGPT's generate-and-repair; the issue's
/// 3); `--llm-tests` sets the answers in all.
pub const REPAIR_ROUNDS: u32 = crate::llm::config::DEFAULT_TESTER_ANSWERS as u32 - 1;

/// Tester personas and their temperatures: the first writes the plain test a reviewer expects,
/// the others try other ways when a round fails.
pub const PERSONAS: [(&str, f64); 3] = [
    ("You are a careful developer who writes the plain test a reviewer expects.", 0.2),
    ("You are a tester who pins exact values at the edges of a function's behaviour.", 0.5),
    ("You are a maintainer who writes tests in the project's own style.", 0.8),
];

#[derive(Deserialize)]
struct Answer {
    test: String,
}

fn shape() -> Shape {
    Shape {
        name: "test",
        schema: serde_json::json!({
            "type": "object",
            "properties": {"test": {"type": "string"}},
            "required": ["test"],
            "additionalProperties": false
        }),
    }
}

/// What the Tester is told about one survivor.
#[derive(Clone, Debug)]
pub struct Gap<'a> {
    /// The function.
    pub subject: &'a Subject,
    /// The name the test must have.
    pub name: &'a str,
    /// The witness call, as the language writes it (`classify(100)`).
    pub call: &'a str,
    /// The original's outcome on it.
    pub original: &'a str,
    /// The mutant's outcome on it.
    pub mutant: &'a str,
    /// The mutant's diff.
    pub diff: &'a str,
    /// abex's own (offline) test of the call.
    pub template: &'a str,
}

/// The Tester's messages for `gap` with `persona`, and `feedback` on the earlier rounds (empty
/// on the first).
pub fn messages(session: &Session, gap: &Gap<'_>, persona: &str, feedback: &str) -> Vec<Message> {
    let tests = if gap.subject.tests.is_empty() {
        "(no test names this function)".to_string()
    } else {
        data(&gap.subject.tests.join("\n\n"))
    };
    let language = if gap.subject.language == "python" { "pytest" } else { "Rust" };
    let user = session.prompts.render(
        Role::Tester,
        &[
            ("persona", persona),
            ("language", language),
            ("function", &gap.subject.name),
            ("name", gap.name),
            ("source", &data(gap.subject.source.trim())),
            ("call", &data(gap.call)),
            ("original", &data(gap.original)),
            ("mutant", &data(gap.mutant)),
            ("diff", &data(gap.diff.trim())),
            ("template", &data(gap.template.trim())),
            ("tests", &tests),
            ("feedback", feedback),
        ],
    );
    vec![Message::system(session.prompts.system()), Message::user(user)]
}

/// Asks the Tester for round `round` (0 the first) of `gap`; `k` picks the persona (the
/// survivor's position, so that neighbouring survivors get different ones) and each repair
/// round moves to the next. `None` when the call was not answered.
pub fn ask(
    session: &mut Session,
    gap: &Gap<'_>,
    k: usize,
    round: u32,
    feedback: &str,
) -> Option<String> {
    let (persona, temperature) = PERSONAS[(k + round as usize) % PERSONAS.len()];
    let msgs = messages(session, gap, persona, feedback);
    let a: Answer =
        session.ask_at(Role::Tester, &gap.subject.name, msgs, shape(), Some(temperature))?;
    Some(a.test)
}

/// The code of an answer: inside its fence when it is fenced (```` ```rust … ``` ````), else
/// the answer, trimmed of blank lines at both ends (its indentation is kept).
pub fn code_of(answer: &str) -> &str {
    let answer = answer.trim_matches('\n');
    match answer.trim().strip_prefix("```") {
        Some(rest) => {
            let code = rest.split_once('\n').map_or("", |(_, code)| code);
            code.trim_end().strip_suffix("```").unwrap_or(code).trim_matches('\n')
        }
        None => answer,
    }
}

/// What to tell the Tester about its last test, when it did not hold: `why` is what happened
/// (refused, did not compile, failed on the original, did not kill), `detail` the compiler's
/// or the test's output, if any.
pub fn feedback(round: u32, test: &str, why: &str, detail: &str) -> String {
    let detail = if detail.trim().is_empty() {
        String::new()
    } else {
        format!("\n<data>\n{}\n</data>", data(detail.trim()))
    };
    format!(
        "\nYour previous test (round {}):\n<data>\n{}\n</data>\n{why}{detail}\nWrite a corrected \
         test.\n",
        round + 1,
        data(test.trim())
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fenced_answer_is_the_code_inside_the_fence() {
        assert_eq!(
            code_of("```python\n    def t():\n        pass\n```\n"),
            "    def t():\n        pass"
        );
        assert_eq!(code_of("\nfn t() {}\n"), "fn t() {}");
    }

    #[test]
    fn feedback_quotes_the_test_and_the_error_as_data() {
        let f = feedback(0, "fn t() {}</data>", "It did not compile:", "error[E0308]");
        assert!(f.contains("round 1") && f.contains("error[E0308]"), "{f}");
        assert_eq!(f.matches("</data>").count(), 2, "{f}");
    }
}
