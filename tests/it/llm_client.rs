//! The model client and session against a fake OpenAI-compatible server on loopback: retries
//! (429 with `Retry-After`, 5xx, a slow answer past the timeout), fail-fast statuses, the
//! fallback when `response_format` is refused, repair of a malformed answer, replay from the
//! response cache, and the token budget.

use std::time::{Duration, Instant};

use abex::llm::budget::Budget;
use abex::llm::client::{Backoff, Client, Message, Request, Shape};
use abex::llm::config::{LlmConfig, Role};
use abex::llm::session::Session;

use crate::support::fake_llm::{FakeLlm, Reply, Strictness};

const FAST: Backoff = Backoff { base: Duration::from_millis(10), max: Duration::from_secs(5) };

fn request() -> Request {
    Request {
        model: "m".into(),
        temperature: 0.5,
        messages: vec![Message::user("hello")],
        shape: Shape { name: "ok", schema: serde_json::json!({"type": "object"}) },
        max_tokens: 50,
    }
}

fn client(url: &str, timeout: Duration) -> Client {
    Client::new(&LlmConfig { timeout, ..LlmConfig::local(url) }).with_backoff(FAST)
}

#[test]
fn a_429_is_retried_after_the_servers_retry_after() {
    let s = FakeLlm::start(|c| match c.n {
        0 => Reply::Status {
            code: 429,
            body: "slow down".into(),
            headers: vec![("Retry-After".into(), "1".into())],
        },
        _ => Reply::json(serde_json::json!({"ok": true})),
    });
    let t = Instant::now();
    let a = client(&s.base_url, Duration::from_secs(5)).chat(&request()).unwrap();
    assert!(t.elapsed() >= Duration::from_secs(1), "{:?}", t.elapsed());
    assert_eq!((a.requests, s.count()), (2, 2));
    assert_eq!(a.json, Some(serde_json::json!({"ok": true})));
    assert_eq!(a.usage.prompt_tokens, 5);
}

#[test]
fn server_errors_and_a_slow_answer_are_retried_and_client_errors_are_not() {
    let s = FakeLlm::start(|c| match c.n {
        0 => Reply::status(500),
        1 => Reply::status(503),
        2 => Reply::Slow(Duration::from_secs(3), Box::new(Reply::json(serde_json::json!({})))),
        _ => Reply::json(serde_json::json!({"ok": 1})),
    });
    let a = client(&s.base_url, Duration::from_millis(700)).chat(&request()).unwrap();
    assert_eq!(a.requests, 4);

    let s = FakeLlm::start(|_| Reply::status(401));
    let e = client(&s.base_url, Duration::from_secs(5)).chat(&request()).unwrap_err();
    assert!(e.to_string().contains("HTTP 401"), "{e}");
    assert_eq!(s.count(), 1);

    let s = FakeLlm::start(|_| Reply::status(500));
    let c =
        Client::new(&LlmConfig { retries: 2, ..LlmConfig::local(&s.base_url) }).with_backoff(FAST);
    assert!(c.chat(&request()).is_err());
    assert_eq!(s.count(), 3);
}

#[test]
fn an_endpoint_without_structured_output_is_asked_again_in_plain_text() {
    let s = FakeLlm::start(|c| {
        if c.body.get("response_format").is_some() {
            Reply::Status {
                code: 400,
                body: "unknown field response_format".into(),
                headers: vec![],
            }
        } else {
            Reply::text("Here you go:\n```json\n{\"ok\": true}\n```")
        }
    });
    let c = client(&s.base_url, Duration::from_secs(5));
    let a = c.chat(&request()).unwrap();
    assert_eq!(a.json, Some(serde_json::json!({"ok": true})));
    // A JSON schema, then JSON mode with the schema, then plain text; remembered for the run.
    assert_eq!(s.count(), 3);
    assert_eq!(c.adaptations().len(), 2, "{:?}", c.adaptations());
    c.chat(&request()).unwrap();
    assert_eq!(s.count(), 4);
}

#[test]
fn a_gpt5_model_is_sent_what_it_takes_and_an_unknown_name_adapts_once_and_remembers() {
    let s = FakeLlm::start_with(Strictness::Gpt5, |_| Reply::json(serde_json::json!({"ok": 1})));
    let cfg = LlmConfig {
        model: "gpt-5-mini".into(),
        reasoning_effort: Some("low".into()),
        ..LlmConfig::local(&s.base_url)
    };
    let c = Client::new(&cfg).with_backoff(FAST);
    let gpt5 = Request { model: "gpt-5-mini".into(), ..request() };
    c.chat(&gpt5).unwrap();
    assert_eq!(s.count(), 1);
    let body = s.log.lock().unwrap()[0].body.clone();
    assert_eq!(body["max_completion_tokens"], 50);
    assert_eq!(body["reasoning_effort"], "low");
    assert!(body.get("temperature").is_none() && body.get("max_tokens").is_none(), "{body}");
    assert!(c.adaptations().is_empty());
    // A deployment name that says nothing: refused for max_tokens, then for the temperature,
    // each adapted once; the next call goes through at once.
    let hidden = Request { model: "team-deployment-7".into(), ..request() };
    c.chat(&hidden).unwrap();
    assert_eq!(s.count(), 4);
    assert_eq!(s.refused(Strictness::Gpt5), 2);
    let a = c.adaptations();
    assert!(a[0].contains("max_completion_tokens instead of max_tokens"), "{a:?}");
    assert!(a[1].contains("no temperature"), "{a:?}");
    c.chat(&hidden).unwrap();
    assert_eq!(s.count(), 5);
}

#[test]
fn a_llama_cpp_server_gets_json_mode_with_the_schema_after_its_500() {
    let s =
        FakeLlm::start_with(Strictness::LlamaCpp, |_| Reply::json(serde_json::json!({"ok": 2})));
    let c = client(&s.base_url, Duration::from_secs(5));
    let a = c.chat(&request()).unwrap();
    assert_eq!(a.json, Some(serde_json::json!({"ok": 2})));
    let log = s.log.lock().unwrap().clone();
    assert_eq!(log.len(), 2, "the 500 is not retried as it was: the form changes");
    assert_eq!(log[1].body["response_format"]["type"], "json_object");
    assert_eq!(log[1].body["response_format"]["schema"], serde_json::json!({"type": "object"}));
    c.chat(&request()).unwrap();
    assert_eq!(s.count(), 3);
}

#[derive(serde::Deserialize, Debug, PartialEq)]
struct Ok {
    ok: u32,
}

fn session(url: &str, root: &std::path::Path, budget_tokens: Option<u64>) -> Session {
    let cfg = LlmConfig { budget_tokens, max_tokens: 100, ..LlmConfig::local(url) };
    let client = Client::new(&cfg).with_backoff(FAST);
    Session::new(cfg, client, root, Budget::default()).unwrap()
}

fn shape() -> Shape {
    Shape { name: "ok", schema: serde_json::json!({"type": "object"}) }
}

#[test]
fn a_malformed_answer_is_repaired_once_and_a_repeat_replays_from_the_cache() {
    let s = FakeLlm::start(|c| match c.n {
        0 => Reply::text("I think the answer is ok."),
        _ => Reply::json(serde_json::json!({"ok": 7})),
    });
    let d = tempfile::tempdir().unwrap();
    let mut a = session(&s.base_url, d.path(), None);
    let m = vec![Message::user("q")];
    assert_eq!(a.ask::<Ok>(Role::Explorer, "f", m.clone(), shape()), Some(Ok { ok: 7 }));
    assert_eq!(s.count(), 2);
    assert!(s.log.lock().unwrap()[1].prompt.contains("not valid"));
    assert_eq!((a.report.total.calls, a.report.requests), (2, 2));
    // Another session on the same project replays without a request.
    let mut b = session(&s.base_url, d.path(), None);
    assert_eq!(b.ask::<Ok>(Role::Explorer, "f", m, shape()), Some(Ok { ok: 7 }));
    assert_eq!(s.count(), 2);
    assert_eq!((b.report.total.calls, b.report.total.replayed, b.report.requests), (1, 1, 0));
    assert_eq!(b.report.total.prompt_tokens, 0);
}

#[test]
fn the_token_budget_is_never_passed_and_skipped_calls_are_reported() {
    let s = FakeLlm::start(|_| Reply::json(serde_json::json!({"ok": 1})));
    let d = tempfile::tempdir().unwrap();
    // A call is admitted at its worst case: its prompt's bytes + 4 a message + 3, plus
    // max_tokens 100, so 109 here. It really spends 4 + 1 + 3 = 8 tokens (the fake server counts
    // four characters a token): two calls fit in 120, the third could overrun.
    let mut a = session(&s.base_url, d.path(), Some(120));
    let mut answered = 0;
    for i in 0..5 {
        let m = vec![Message::user(format!("q{i}"))];
        answered += a.ask::<Ok>(Role::Coordinator, "f", m, shape()).is_some() as u32;
        assert!(a.budget.tokens <= 120, "{}", a.budget.tokens);
    }
    assert_eq!((answered, s.count()), (2, 2));
    assert_eq!(a.report.total.prompt_tokens + a.report.total.completion_tokens, a.budget.tokens);
    assert_eq!(a.report.skipped_count, 3);
    assert_eq!(a.report.fallbacks, ["token budget spent"]);
    assert_eq!(a.report.skipped[0].role, "coordinator");
}

#[test]
fn the_concurrency_limit_holds_requests_in_flight() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;
    let (now, most) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
    let (n, m) = (now.clone(), most.clone());
    // The script runs when a request arrives; the answer leaves 400 ms later, and the request
    // counts as in flight for the first 200 ms of that (a margin for slow thread wake-ups).
    let s = FakeLlm::start(move |_| {
        let k = n.fetch_add(1, Ordering::SeqCst) + 1;
        m.fetch_max(k, Ordering::SeqCst);
        let n = n.clone();
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(200));
            n.fetch_sub(1, Ordering::SeqCst);
        });
        Reply::Slow(Duration::from_millis(400), Box::new(Reply::json(serde_json::json!({}))))
    });
    let c = Client::new(&LlmConfig { concurrency: 2, ..LlmConfig::local(&s.base_url) });
    std::thread::scope(|sc| {
        for _ in 0..6 {
            sc.spawn(|| c.chat(&request()).unwrap());
        }
    });
    assert_eq!(s.count(), 6);
    assert_eq!(c.requests(), 6);
    assert_eq!(most.load(Ordering::SeqCst), 2);
}

#[test]
fn every_attempt_is_billed_and_a_retry_that_would_pass_the_budget_is_not_sent() {
    // Two server errors, then an answer: the errors carry no usage, so each is billed at its
    // worst case (prompt bytes + 4 + 3 = 9, plus the cap of 100), the answer by its usage (5 + 3).
    let s = FakeLlm::start(|c| match c.n {
        0 | 1 => Reply::status(500),
        _ => Reply::json(serde_json::json!({"ok": 1})),
    });
    let d = tempfile::tempdir().unwrap();
    let mut a = session(&s.base_url, d.path(), None);
    let m = vec![Message::user("q")];
    assert_eq!(a.ask::<Ok>(Role::Coordinator, "f", m, shape()), Some(Ok { ok: 1 }));
    assert_eq!(s.count(), 3);
    let worst = 2 * (1 + 4 + 3 + 100);
    assert!(a.budget.tokens >= worst, "{}", a.budget.tokens);
    assert_eq!(a.report.worst_case_billed, 2);
    assert_eq!(a.report.total.prompt_tokens + a.report.total.completion_tokens, a.budget.tokens);

    // With 250 tokens, the first attempt (worst case 108) is admitted, and so is one retry; a
    // second retry could pass the cap and is not sent.
    let s = FakeLlm::start(|_| Reply::status(503));
    let d = tempfile::tempdir().unwrap();
    let mut a = session(&s.base_url, d.path(), Some(250));
    assert_eq!(a.ask::<Ok>(Role::Coordinator, "f", vec![Message::user("q")], shape()), None);
    assert_eq!(s.count(), 2);
    assert!(a.budget.tokens <= 250, "{}", a.budget.tokens);
    assert_eq!(a.report.fallbacks, ["token budget spent"]);
}

#[test]
fn a_request_in_flight_ends_with_the_time_budget() {
    let s = FakeLlm::start(|_| {
        Reply::Slow(Duration::from_secs(6), Box::new(Reply::json(serde_json::json!({"ok": 1}))))
    });
    let d = tempfile::tempdir().unwrap();
    let cfg = LlmConfig { timeout: Duration::from_secs(60), ..LlmConfig::local(&s.base_url) };
    let client = Client::new(&cfg).with_backoff(FAST);
    let budget =
        Budget { deadline: Some(Instant::now() + Duration::from_millis(800)), ..Budget::default() };
    let mut a = Session::new(cfg, client, d.path(), budget).unwrap();
    let t = Instant::now();
    assert_eq!(a.ask::<Ok>(Role::Explorer, "f", vec![Message::user("q")], shape()), None);
    assert!(t.elapsed() < Duration::from_secs(3), "{:?}", t.elapsed());
    assert_eq!(s.count(), 1, "no retry after the deadline");
    assert!(a.report.fallbacks[0].starts_with("endpoint failed"), "{:?}", a.report.fallbacks);
    assert_eq!(a.report.worst_case_billed, 1);
}

#[test]
fn a_connection_never_made_is_billed_nothing() {
    // A loopback port nobody listens on refuses the connection: the request never left, so the
    // call is reported failed with no tokens and no money, however often it was retried.
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let d = tempfile::tempdir().unwrap();
    let mut a = session(&format!("http://127.0.0.1:{port}/v1"), d.path(), Some(1_000));
    assert_eq!(a.ask::<Ok>(Role::Coordinator, "f", vec![Message::user("q")], shape()), None);
    assert_eq!(a.report.worst_case_billed, 0);
    assert_eq!(a.report.total.prompt_tokens + a.report.total.completion_tokens, 0);
    assert_eq!(a.budget.tokens, 0);
    assert_eq!(a.report.failed, 1);
    assert!(a.report.fallbacks[0].starts_with("endpoint failed"), "{:?}", a.report.fallbacks);
}
