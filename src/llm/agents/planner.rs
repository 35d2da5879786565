//! The agents that manage strategies (paper 000, section 3.2): the Coordinator decides whether
//! to repeat the active strategy, select another from the pool, or request a new one; the
//! Ideator weighs 2–3 directions for a requested strategy and picks one; the Strategy Generator
//! turns a direction into ordered steps.

use serde::Deserialize;

use crate::archive::{Archive, Group};
use crate::llm::client::{Message, Shape};
use crate::llm::config::Role;
use crate::llm::session::Session;
use crate::llm::strategy::{Kind, Mode, Stats, Strategy};
use crate::llm::subject::Subject;

/// What the Coordinator decided.
#[derive(Clone, Debug, PartialEq)]
pub enum Decision {
    /// Run the active strategy again.
    Repeat,
    /// Run the pool's strategy at this index.
    Select(usize),
    /// Make a new strategy of this mode and type for this gap.
    Request {
        /// Mode.
        mode: Mode,
        /// Type.
        kind: Kind,
        /// The search gap it should fill.
        gap: String,
    },
}

#[derive(Deserialize)]
struct CoordinatorAnswer {
    decision: String,
    id: Option<usize>,
    mode: Option<Mode>,
    #[serde(rename = "type")]
    kind: Option<Kind>,
    gap: Option<String>,
}

#[derive(Deserialize)]
struct Direction {
    idea: String,
}

#[derive(Deserialize)]
struct IdeatorAnswer {
    directions: Vec<Direction>,
    chosen: usize,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct GeneratorAnswer {
    name: String,
    steps: Vec<String>,
}

fn object(name: &'static str, props: serde_json::Value, required: &[&str]) -> Shape {
    Shape {
        name,
        schema: serde_json::json!({"type": "object", "properties": props, "required": required}),
    }
}

fn mode_name(m: Mode) -> &'static str {
    match m {
        Mode::Generation => "generation",
        Mode::Mutation => "mutation",
    }
}

fn kind_name(k: Kind) -> &'static str {
    match k {
        Kind::Generic => "generic",
        Kind::ContextAware => "context_aware",
    }
}

/// The pool, one line per strategy: `id: mode/type, uses, successes, decayed, steps`.
pub fn pool_text(pool: &[Strategy]) -> String {
    pool.iter()
        .enumerate()
        .map(|(i, s)| {
            let Stats { uses, successes, decayed } = s.stats;
            format!(
                "{i}: {}/{} \"{}\", {uses} uses, {successes} successes, {decayed:.2}: {}",
                mode_name(s.mode),
                kind_name(s.kind),
                s.name,
                s.steps_text()
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn groups(archive: &Archive) -> String {
    let mut seen: Vec<&str> = Vec::new();
    for p in archive.elites() {
        let g = match p.group() {
            Group::VV => "VV",
            Group::VE => "VE",
            Group::EE => "EE",
        };
        if !seen.contains(&g) {
            seen.push(g);
        }
    }
    if seen.is_empty() {
        "none".into()
    } else {
        seen.join(", ")
    }
}

/// The Coordinator's messages.
pub fn coordinator_messages(
    session: &Session,
    subject: &Subject,
    pool: &[Strategy],
    active: usize,
    why: &str,
    archive: &Archive,
) -> Vec<Message> {
    let user = session.prompts.render(
        Role::Coordinator,
        &[
            ("function", &subject.name),
            ("params", &subject.params_text()),
            ("active", &pool[active].name),
            ("why", why),
            ("cells", &archive.len().to_string()),
            ("boundaries", &archive.bc_count().to_string()),
            ("qd", &format!("{:.2}", archive.qd_score())),
            ("groups", &groups(archive)),
            ("pool", &pool_text(pool)),
        ],
    );
    vec![Message::system(session.prompts.system()), Message::user(user)]
}

/// Asks the Coordinator; `None` when it did not answer usefully.
pub fn coordinate(
    session: &mut Session,
    subject: &Subject,
    pool: &[Strategy],
    active: usize,
    why: &str,
    archive: &Archive,
) -> Option<Decision> {
    let msgs = coordinator_messages(session, subject, pool, active, why, archive);
    let shape = object(
        "decision",
        serde_json::json!({
            "decision": {"enum": ["repeat", "select", "request"]},
            "id": {"type": ["integer", "null"]},
            "mode": {"enum": ["generation", "mutation", null]},
            "type": {"enum": ["generic", "context_aware", null]},
            "gap": {"type": ["string", "null"]}
        }),
        &["decision"],
    );
    let a: CoordinatorAnswer = session.ask(Role::Coordinator, &subject.name, msgs, shape)?;
    match a.decision.as_str() {
        "repeat" => Some(Decision::Repeat),
        "select" => a.id.filter(|&i| i < pool.len()).map(Decision::Select),
        "request" => Some(Decision::Request {
            mode: a.mode.unwrap_or(Mode::Generation),
            kind: a.kind.unwrap_or(Kind::Generic),
            gap: a.gap.unwrap_or_else(|| "cells not covered yet".into()),
        }),
        _ => None,
    }
}

/// The Ideator's messages.
pub fn ideator_messages(
    session: &Session,
    subject: &Subject,
    mode: Mode,
    kind: Kind,
    gap: &str,
    pool: &[Strategy],
) -> Vec<Message> {
    let user = session.prompts.render(
        Role::Ideator,
        &[
            ("mode", mode_name(mode)),
            ("type", kind_name(kind)),
            ("params", &subject.params_text()),
            ("gap", gap),
            ("subject", &subject.for_strategy(kind, session.cfg.white_box)),
            ("pool", &pool_text(pool)),
        ],
    );
    vec![Message::system(session.prompts.system()), Message::user(user)]
}

/// Asks the Ideator for a direction.
pub fn ideate(
    session: &mut Session,
    subject: &Subject,
    mode: Mode,
    kind: Kind,
    gap: &str,
    pool: &[Strategy],
) -> Option<String> {
    let msgs = ideator_messages(session, subject, mode, kind, gap, pool);
    let shape = object(
        "directions",
        serde_json::json!({
            "directions": {"type": "array", "items": {"type": "object", "properties": {
                "idea": {"type": "string"}, "novelty": {"type": "string"}, "yield": {"type": "string"}},
                "required": ["idea"]}},
            "chosen": {"type": "integer"}
        }),
        &["directions", "chosen"],
    );
    let a: IdeatorAnswer = session.ask(Role::Ideator, &subject.name, msgs, shape)?;
    let n = a.directions.len();
    a.directions.into_iter().nth(a.chosen.min(n.saturating_sub(1))).map(|d| d.idea)
}

/// The Strategy Generator's messages.
pub fn generator_messages(
    session: &Session,
    subject: &Subject,
    mode: Mode,
    kind: Kind,
    direction: &str,
) -> Vec<Message> {
    let user = session.prompts.render(
        Role::Generator,
        &[
            ("mode", mode_name(mode)),
            ("type", kind_name(kind)),
            ("params", &subject.params_text()),
            ("direction", direction),
            ("subject", &subject.for_strategy(kind, session.cfg.white_box)),
        ],
    );
    vec![Message::system(session.prompts.system()), Message::user(user)]
}

/// Asks the Strategy Generator for the steps of a direction.
pub fn generate(
    session: &mut Session,
    subject: &Subject,
    mode: Mode,
    kind: Kind,
    direction: &str,
) -> Option<Strategy> {
    let msgs = generator_messages(session, subject, mode, kind, direction);
    let shape = object(
        "strategy",
        serde_json::json!({"name": {"type": "string"}, "steps": {"type": "array", "items": {"type": "string"}}}),
        &["name", "steps"],
    );
    let a: GeneratorAnswer = session.ask(Role::Generator, &subject.name, msgs, shape)?;
    (!a.steps.is_empty()).then(|| Strategy {
        name: a.name,
        mode,
        kind,
        steps: a.steps,
        stats: Stats::default(),
    })
}
