//! The Explorer agent: renders the active strategy and a compact sample of the archive into a
//! prompt, asks for N input pairs, and keeps those that fit the parameter types.
//!
//! Archive samples are one line each, `input → output`, with long texts cut in the middle, so
//! that 10 recent and up to 30 random pairs cost a few hundred tokens rather than thousands.

use rand::seq::IndexedRandom;
use rand::Rng;
use serde::Deserialize;

use crate::archive::Pair;
use crate::explore::View;
use crate::llm::client::{Message, Shape};
use crate::llm::config::Role;
use crate::llm::prompts::data;
use crate::llm::session::Session;
use crate::llm::strategy::{Kind, Mode, Strategy};
use crate::llm::subject::Subject;
use crate::value::{stringify_input, Args, Ty, Value};

/// Pairs asked for per call (paper 000: N = 10).
pub const PAIRS_PER_CALL: usize = 10;
/// Recent archive pairs shown.
pub const RECENT_SHOWN: usize = 10;
/// Random archive pairs shown.
pub const RANDOM_SHOWN: usize = 30;
/// Longest rendering of one input or output in a sample line.
const CUT: usize = 28;

/// Explorer personas and their temperatures (EvoGPT: diversity from several prompt personas at
/// several temperatures).
pub const PERSONAS: [(&str, f64); 3] = [
    ("You are a meticulous tester of edge cases.", 0.8),
    ("You are an adversarial input designer who looks for where code breaks.", 1.0),
    ("You are a domain expert who knows which valid inputs are unusual.", 0.6),
];

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Answer {
    pairs: Vec<(serde_json::Value, serde_json::Value)>,
}

fn shape() -> Shape {
    Shape {
        name: "pairs",
        schema: serde_json::json!({
            "type": "object",
            "properties": {"pairs": {"type": "array", "items": {
                "type": "array", "minItems": 2, "maxItems": 2, "items": {"type": "array"}}}},
            "required": ["pairs"],
            "additionalProperties": false
        }),
    }
}

/// `text` cut to [`CUT`] characters, keeping both ends.
fn cut(text: &str) -> String {
    let n = text.chars().count();
    if n <= CUT {
        return text.to_string();
    }
    let head: String = text.chars().take(CUT / 2).collect();
    let tail: String = text.chars().skip(n - CUT / 2 + 1).collect();
    format!("{head}…{tail}")
}

/// One sample line: `in1 → out1 | in2 → out2`.
pub fn sample_line(p: &Pair) -> String {
    format!(
        "{} → {} | {} → {}",
        cut(&stringify_input(&p.inputs[0])),
        cut(&p.outcomes[0].stringify()),
        cut(&stringify_input(&p.inputs[1])),
        cut(&p.outcomes[1].stringify())
    )
}

/// The sample block: the recent pairs, then random other elites.
pub fn samples(view: &View<'_>, rng: &mut impl Rng) -> String {
    let mut lines: Vec<String> =
        view.recent.iter().rev().take(RECENT_SHOWN).map(sample_line).collect();
    let elites = view.archive.elites();
    let picked: Vec<&&Pair> = elites.choose_multiple(rng, RANDOM_SHOWN + RECENT_SHOWN).collect();
    for p in picked {
        let line = sample_line(p);
        if lines.len() >= RECENT_SHOWN + RANDOM_SHOWN {
            break;
        }
        if !lines.contains(&line) {
            lines.push(line);
        }
    }
    if lines.is_empty() {
        "(none yet)".into()
    } else {
        data(&lines.join("\n"))
    }
}

/// The Explorer's messages for one call.
pub fn messages(
    session: &Session,
    subject: &Subject,
    strategy: &Strategy,
    persona: &str,
    view: &View<'_>,
    rng: &mut impl Rng,
) -> Vec<Message> {
    // Mutation strategies work from one archive pair and never see the signature or the doc.
    let (subject_text, seed) = match strategy.mode {
        Mode::Generation => {
            (subject.for_strategy(strategy.kind, session.cfg.white_box), String::new())
        }
        Mode::Mutation => {
            let elites = view.archive.elites();
            let seed = elites
                .choose(rng)
                .map(|p| {
                    format!(
                        "Start from this pair and change it:\n<data>\n{}\n</data>\n\n",
                        data(&sample_line(p))
                    )
                })
                .unwrap_or_default();
            (String::new(), seed)
        }
    };
    let n = PAIRS_PER_CALL.to_string();
    let samples = samples(view, rng);
    let params = subject.params_text();
    let mode = if strategy.mode == Mode::Generation { "generation" } else { "mutation" };
    let kind = if strategy.kind == Kind::Generic { "generic" } else { "context-aware" };
    let steps = strategy.steps_text();
    let user = session.prompts.render(
        Role::Explorer,
        &[
            ("persona", persona),
            ("subject", &subject_text),
            ("mode", mode),
            ("kind", kind),
            ("strategy", &steps),
            ("seed", &seed),
            ("samples", &samples),
            ("n", &n),
            ("params", &params),
        ],
    );
    vec![Message::system(session.prompts.system()), Message::user(user)]
}

/// Asks for pairs; `None` when the call was not answered.
pub fn ask(
    session: &mut Session,
    subject: &Subject,
    messages: Vec<Message>,
    temperature: f64,
) -> Option<Vec<(Args, Args)>> {
    let a: Answer =
        session.ask_at(Role::Explorer, &subject.name, messages, shape(), Some(temperature))?;
    Some(
        a.pairs
            .into_iter()
            .filter_map(|(x, y)| Some((args(&x, &subject.params)?, args(&y, &subject.params)?)))
            .filter(|(x, y)| x != y)
            .collect(),
    )
}

/// An argument list from the model, if it fits the parameter types.
fn args(j: &serde_json::Value, params: &[Ty]) -> Option<Args> {
    let serde_json::Value::Array(items) = j else { return None };
    if items.len() != params.len() {
        return None;
    }
    let values: Vec<Value> = items.iter().map(Value::from_json).collect();
    values.iter().zip(params).all(|(v, t)| fits(t, v)).then_some(values)
}

/// Whether `v` is a value of `ty` (as the value model writes it).
pub fn fits(ty: &Ty, v: &Value) -> bool {
    match (ty, v) {
        (Ty::Int { bits, signed }, Value::Int(i)) => {
            let (lo, hi) = Ty::int_range(*bits, *signed);
            *i >= lo && (*i < 0 || (*i as u128) <= hi)
        }
        (Ty::Int { bits: 128, signed: false }, Value::BigUint(_)) => true,
        (Ty::Float { .. }, Value::Float(_) | Value::Int(_)) => true,
        (Ty::Float { .. }, Value::Str(s)) => matches!(s.as_str(), "NaN" | "inf" | "-inf"),
        (Ty::Bool, Value::Bool(_)) => true,
        (Ty::Char, Value::Str(s)) => s.chars().count() == 1,
        (Ty::Str, Value::Str(_)) => true,
        (Ty::Bytes, Value::List(items)) => {
            items.iter().all(|i| matches!(i, Value::Int(b) if (0..=255).contains(b)))
        }
        (Ty::List { item }, Value::List(items)) => items.iter().all(|i| fits(item, i)),
        (Ty::Array { item, len }, Value::List(items)) => {
            items.len() == *len && items.iter().all(|i| fits(item, i))
        }
        (Ty::Option { .. }, Value::Null) => true,
        (Ty::Option { item }, v) => fits(item, v),
        (Ty::Tuple { items }, Value::List(vs)) => {
            items.len() == vs.len() && items.iter().zip(vs).all(|(t, v)| fits(t, v))
        }
        (Ty::Map { value, .. }, Value::Map(entries)) => entries.iter().all(|(_, v)| fits(value, v)),
        (Ty::Any, _) => true,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_must_fit_their_types() {
        let u8t = Ty::int(8, false);
        assert!(fits(&u8t, &Value::Int(255)));
        assert!(!fits(&u8t, &Value::Int(256)));
        assert!(!fits(&u8t, &Value::Int(-1)));
        assert!(!fits(&u8t, &Value::Str("1".into())));
        assert!(fits(&Ty::Char, &Value::Str("é".into())));
        assert!(!fits(&Ty::Char, &Value::Str("ab".into())));
        let opt = Ty::Option { item: Box::new(Ty::Str) };
        assert!(fits(&opt, &Value::Null) && fits(&opt, &Value::Str("x".into())));
        let p = [Ty::int(32, true), Ty::Str];
        assert!(args(&serde_json::json!([1, "a"]), &p).is_some());
        assert!(args(&serde_json::json!([1]), &p).is_none());
        assert!(args(&serde_json::json!(["a", 1]), &p).is_none());
    }

    #[test]
    fn long_texts_are_cut_in_the_middle() {
        let t = "a".repeat(30) + &"b".repeat(30);
        let c = cut(&t);
        assert_eq!(c.chars().count(), CUT);
        assert!(c.starts_with("aaaa") && c.ends_with("bbbb") && c.contains('…'));
        assert_eq!(cut("short"), "short");
    }
}
