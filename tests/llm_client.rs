//! The model client and session against a fake OpenAI-compatible server on loopback: retries
//! (429 with `Retry-After`, 5xx, a slow answer past the timeout), fail-fast statuses, the
//! fallback when `response_format` is refused, repair of a malformed answer, replay from the
//! response cache, and the token budget.

mod support;

use std::time::{Duration, Instant};

use abex::budget::Budget;
use abex::llm::client::{Backoff, Client, Message, Request, Shape};
use abex::llm::config::{LlmConfig, Role};
use abex::llm::session::Session;
use support::fake_llm::{FakeLlm, Reply};

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
    let a = client(&s.base_url, Duration::from_secs(5)).chat(&request()).unwrap();
    assert_eq!(a.json, Some(serde_json::json!({"ok": true})));
    assert_eq!(s.count(), 2);
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
