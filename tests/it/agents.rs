//! The agents' loop on an in-process function, against a fake model server on loopback: the
//! stopping rule hands over to the Coordinator after three calls without gain, a requested
//! strategy goes through the Ideator and the Strategy Generator into the pool, the plateau
//! detector injects fresh generation, and the Explorer's personas rotate temperatures.

use abex::exec::FnEvaluator;
use abex::explore::{explore_with, ExploreConfig};
use abex::llm::agents::Agents;
use abex::llm::budget::Budget;
use abex::llm::client::Client;
use abex::llm::config::{AgentsMode, LlmConfig};
use abex::llm::session::Session;
use abex::llm::subject::Subject;
use abex::value::{Args, Outcome, Ty, Value};
use serde_json::json;

use crate::support;
use crate::support::fake_llm::{FakeLlm, Reply, Strictness};

fn classify(a: &Args) -> Outcome {
    let n = a[0].as_int().unwrap_or(0);
    let s = if n < 0 {
        "negative"
    } else if n == 0 {
        "zero"
    } else if n < 100 {
        "small"
    } else {
        "large"
    };
    Outcome::Ok { value: s.into() }
}

fn flag(a: &Args) -> Outcome {
    Outcome::Ok { value: format!("{}", a[0] == Value::Bool(true)) }
}

fn subject() -> Subject {
    Subject {
        language: "rust".into(),
        name: "classify".into(),
        signature: "pub fn classify(n: i64) -> &'static str".into(),
        doc: String::new(),
        source: "pub fn classify(n: i64) -> &'static str { … }".into(),
        params: vec![Ty::int(64, true)],
        tests: vec![],
    }
}

/// Explores `classify` (or, with `tiny`, a function of one `bool`, whose archive has one cell)
/// with agents whose Explorer answers the same pairs every time: only the first call gains.
fn run(mode: AgentsMode, calls: usize, tiny: bool) -> (FakeLlm, Vec<String>) {
    let pairs = if tiny {
        json!({"pairs": [[[true], [false]]]})
    } else {
        json!({"pairs": [[[-1], [0]], [[99], [100]]]})
    };
    let s = FakeLlm::start(move |c| match c.role {
        "coordinator" => Reply::json(
            json!({"decision": "request", "mode": "generation", "type": "generic", "gap": "g"}),
        ),
        "ideator" => Reply::json(json!({"directions": [{"idea": "i"}], "chosen": 0})),
        "generator" => Reply::json(json!({"name": "made", "steps": ["s"]})),
        _ => Reply::json(pairs.clone()),
    });
    let d = tempfile::tempdir().unwrap();
    let cfg = LlmConfig {
        agents: mode,
        explorer_calls: calls,
        model: "local-model".into(),
        ..LlmConfig::local(&s.base_url)
    };
    let mut session =
        Session::new(cfg.clone(), Client::new(&cfg), d.path(), Budget::default()).unwrap();
    let subject = if tiny { Subject { params: vec![Ty::Bool], ..subject() } } else { subject() };
    let names = {
        let mut agents = Agents::new(&mut session, &subject, d.path(), calls, 0);
        let mut eval = FnEvaluator(if tiny { flag } else { classify });
        let ecfg = ExploreConfig { pairs: 5_000, batch: 16, ..ExploreConfig::default() };
        explore_with(&subject.params, &mut eval, &ecfg, &mut |_| {}, Some(&mut agents)).unwrap();
        agents.pool().iter().map(|s| s.name.clone()).collect()
    };
    (s, names)
}

#[test]
fn three_calls_without_gain_stop_a_strategy_and_a_requested_one_joins_the_pool() {
    let (s, pool) = run(AgentsMode::Full, 5, false);
    let roles: Vec<&str> = s.log.lock().unwrap().iter().map(|c| c.role).collect();
    // Calls 2-4 gain nothing; before call 5 the Coordinator, Ideator and Generator are asked.
    assert_eq!(
        roles,
        [
            "explorer",
            "explorer",
            "explorer",
            "explorer",
            "coordinator",
            "ideator",
            "generator",
            "explorer"
        ]
    );
    assert_eq!(pool, ["baseline", "made"]);
    let log = s.log.lock().unwrap();
    let temps: Vec<f64> = log
        .iter()
        .filter(|c| c.role == "explorer")
        .map(|c| c.body["temperature"].as_f64().unwrap())
        .collect();
    assert_eq!(temps[..3], [0.8, 1.0, 0.6]);
    let last = log.iter().rev().find(|c| c.role == "explorer").unwrap();
    assert!(last.prompt.contains("Strategy (generation, generic): 1. s"), "{}", last.prompt);
}

#[test]
fn a_plateau_injects_fresh_generation_and_explorer_only_never_plans() {
    // Without the Ideator, requests go straight to the Generator; after five calls with no new
    // cell (the archive of a one-`bool` function cannot grow), fresh generation is injected.
    let (s, pool) = run(AgentsMode::NoIdeator, 12, true);
    assert_eq!(s.count_role("ideator"), 0);
    assert!(s.count_role("generator") >= 1);
    assert!(pool.iter().any(|n| n == "fresh generation 1"), "{pool:?}");

    let (s, pool) = run(AgentsMode::ExplorerOnly, 12, false);
    assert_eq!((s.count(), s.count_role("explorer")), (12, 12));
    assert_eq!(pool, ["baseline"]);
}

#[test]
fn values_that_do_not_fit_the_parameters_are_dropped() {
    let s = FakeLlm::start(|_| {
        Reply::json(json!({"pairs": [[["x"], [1]], [[1, 2], [3]], [[7], [8]]]}))
    });
    let d = tempfile::tempdir().unwrap();
    let cfg = LlmConfig::local(&s.base_url);
    let mut session =
        Session::new(cfg.clone(), Client::new(&cfg), d.path(), Budget::default()).unwrap();
    let subject = subject();
    let mut agents = Agents::new(&mut session, &subject, d.path(), 1, 0);
    let mut seen: Vec<Args> = Vec::new();
    let mut eval = FnEvaluator(|a: &Args| {
        seen.push(a.clone());
        classify(a)
    });
    let ecfg = ExploreConfig { pairs: 1, batch: 1, refine: false, ..ExploreConfig::default() };
    explore_with(&subject.params, &mut eval, &ecfg, &mut |_| {}, Some(&mut agents)).unwrap();
    assert_eq!(seen, [vec![Value::Int(7)], vec![Value::Int(8)]]);
}

/// The whole agents loop (Explorer, Coordinator, Ideator, Generator) against a server that
/// enforces `strictness`, with `model`.
fn strict_run(strictness: Strictness, model: &str) -> (FakeLlm, Session) {
    let s = FakeLlm::start_with(strictness, move |c| match c.role {
        "coordinator" => Reply::json(
            json!({"decision": "request", "mode": "generation", "type": "generic", "gap": "g"}),
        ),
        "ideator" => Reply::json(json!({"directions": [{"idea": "i"}], "chosen": 0})),
        "generator" => Reply::json(json!({"name": "made", "steps": ["s"]})),
        _ => Reply::json(json!({"pairs": [[[-1], [0]], [[99], [100]]]})),
    });
    let d = tempfile::tempdir().unwrap();
    let cfg = LlmConfig { explorer_calls: 6, model: model.into(), ..LlmConfig::local(&s.base_url) };
    let mut session =
        Session::new(cfg.clone(), Client::new(&cfg), d.path(), Budget::default()).unwrap();
    let subject = subject();
    {
        let mut agents = Agents::new(&mut session, &subject, d.path(), 6, 0);
        let ecfg = ExploreConfig { pairs: 2_000, batch: 16, ..ExploreConfig::default() };
        let mut eval = FnEvaluator(classify);
        explore_with(&subject.params, &mut eval, &ecfg, &mut |_| {}, Some(&mut agents)).unwrap();
    }
    (s, session)
}

#[test]
fn the_agents_loop_completes_against_gpt5_rules_and_a_llama_cpp_server_without_falling_back() {
    // The default model is sent what GPT-5 takes from the first request on.
    let (s, session) = strict_run(Strictness::Gpt5, "gpt-5-mini");
    assert_eq!(s.refused(Strictness::Gpt5), 0);
    assert!(session.report.fallbacks.is_empty(), "{:?}", session.report.fallbacks);
    assert_eq!(s.count_role("explorer"), 6);
    for role in ["coordinator", "ideator", "generator"] {
        assert!(s.count_role(role) >= 1, "{role}");
    }
    assert_eq!(session.report.total.calls as usize, s.count());
    // A name that does not say it is a GPT-5 model: two refusals, adapted once, then none.
    let (s, session) = strict_run(Strictness::Gpt5, "gateway/custom-reasoner");
    assert_eq!(s.refused(Strictness::Gpt5), 2);
    assert!(session.report.fallbacks.is_empty(), "{:?}", session.report.fallbacks);
    assert_eq!(session.report.adaptations.len(), 2, "{:?}", session.report.adaptations);
    assert!(s.count_role("explorer") >= 6);
    // llama.cpp: one 500 on the JSON schema, JSON mode with the schema from then on.
    let (s, session) = strict_run(Strictness::LlamaCpp, "smollm2");
    assert_eq!(s.refused(Strictness::LlamaCpp), 1);
    assert!(session.report.fallbacks.is_empty(), "{:?}", session.report.fallbacks);
    assert!(
        session.report.adaptations[0].contains("JSON mode"),
        "{:?}",
        session.report.adaptations
    );
}

#[test]
fn without_a_fixed_cap_the_explorer_is_bounded_by_the_functions_share_of_the_token_budget() {
    let script = |_: &support::fake_llm::Call| Reply::json(json!({"pairs": [[[-1], [0]]]}));
    let calls = |share: Option<u64>| {
        let s = FakeLlm::start(script);
        let d = tempfile::tempdir().unwrap();
        let cfg = LlmConfig { model: "local-model".into(), ..LlmConfig::local(&s.base_url) };
        assert_eq!(cfg.explorer_calls, 0, "no fixed cap by default");
        let mut session =
            Session::new(cfg.clone(), Client::new(&cfg), d.path(), Budget::default()).unwrap();
        let subject = subject();
        {
            let mut agents = Agents::new(&mut session, &subject, d.path(), 0, 0).with_share(share);
            let ecfg = ExploreConfig { pairs: 600, batch: 16, ..ExploreConfig::default() };
            let mut eval = FnEvaluator(classify);
            explore_with(&subject.params, &mut eval, &ecfg, &mut |_| {}, Some(&mut agents))
                .unwrap();
        }
        s.count_role("explorer")
    };
    // Unbounded but for the pair budget: more than the old fixed 8 calls.
    assert!(calls(None) > 8);
    // A share smaller than one call's tokens: the first call spends it.
    assert_eq!(calls(Some(1)), 1);
}
