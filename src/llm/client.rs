//! A blocking client for OpenAI-compatible chat completions (`POST {base}/chat/completions`):
//! hosted APIs, vLLM, Ollama, llama.cpp server.
//!
//! Each request is shaped by what the endpoint accepts ([`super::negotiate`]: the length field,
//! the temperature, `reasoning_effort`, the structured-output form), learnt per run and model;
//! an error naming a parameter or `response_format` adapts the request and asks again at once.
//! The answer's JSON is extracted from the text (fences and prose around it are dropped, small
//! syntax slips repaired) and parsed. Requests are retried with exponential backoff and jitter on
//! 429, 5xx, timeouts and connection errors, honouring `Retry-After`; other 4xx fail at once.
//! Each attempt's time limit is the configured one or the run's time left, whichever is shorter,
//! and every attempt is billed: by its `usage`, or its worst case when its answer has none
//! ([`Billed`]). A counting semaphore caps requests in flight. The core is synchronous, so this is built on reqwest's blocking
//! client (a tokio runtime on its own thread, the same hyper and rustls stack as the GitHub client).

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

use rand::Rng;
use serde::{Deserialize, Serialize};

use super::negotiate::Rules;

/// One chat message.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Message {
    /// `system`, `user` or `assistant`.
    pub role: String,
    /// Its text.
    pub content: String,
}

impl Message {
    /// A system message.
    pub fn system(content: impl Into<String>) -> Message {
        Message { role: "system".into(), content: content.into() }
    }
    /// A user message.
    pub fn user(content: impl Into<String>) -> Message {
        Message { role: "user".into(), content: content.into() }
    }
    /// An assistant message.
    pub fn assistant(content: impl Into<String>) -> Message {
        Message { role: "assistant".into(), content: content.into() }
    }
}

/// The declared shape of an answer: a name and a JSON schema.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Shape {
    /// The schema's name (`[a-zA-Z0-9_-]`).
    pub name: &'static str,
    /// The JSON schema.
    pub schema: serde_json::Value,
}

/// One request.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Request {
    /// The model.
    pub model: String,
    /// The sampling temperature.
    pub temperature: f64,
    /// The conversation.
    pub messages: Vec<Message>,
    /// The answer's shape.
    pub shape: Shape,
    /// The longest answer, in tokens.
    pub max_tokens: u32,
}

/// Tokens of one call.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    /// Prompt tokens.
    pub prompt_tokens: u64,
    /// Completion tokens.
    pub completion_tokens: u64,
    /// Whether the figures are estimates (the endpoint sent no `usage`).
    #[serde(default)]
    pub estimated: bool,
}

/// A parsed answer.
#[derive(Clone, Debug, PartialEq)]
pub struct Answer {
    /// The answer's JSON object, if the text holds one.
    pub json: Option<serde_json::Value>,
    /// The raw text, for a repair request.
    pub text: String,
    /// Its tokens.
    pub usage: Usage,
    /// HTTP requests it took (retries included).
    pub requests: u32,
}

/// Why a call failed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CallError {
    /// The endpoint answered with an error status (after retries, for retryable ones).
    #[error("HTTP {status} from `{url}`: {body}")]
    Status {
        /// The URL.
        url: String,
        /// The status.
        status: u16,
        /// The start of the body.
        body: String,
    },
    /// No answer: connection error or timeout (after retries).
    #[error("no answer from `{url}`: {message}")]
    Transport {
        /// The URL.
        url: String,
        /// What went wrong.
        message: String,
    },
    /// The budget does not allow another attempt.
    #[error("the budget does not allow another attempt at `{url}`")]
    Budget {
        /// The URL.
        url: String,
    },
    /// The body is not a chat completion.
    #[error("`{url}` did not answer with a chat completion: {message}")]
    NotCompletion {
        /// The URL.
        url: String,
        /// The parser's message.
        message: String,
    },
    /// The body is larger than [`MAX_BODY`]: abex stopped reading it.
    #[error(
        "the answer from `{url}` is larger than {} MiB: abex stopped reading it\nhint: check \
         that the endpoint is an OpenAI-compatible chat completions API and `max_tokens` is \
         sane",
        MAX_BODY >> 20
    )]
    TooLarge {
        /// The URL.
        url: String,
    },
}

/// Largest response body read from the model's endpoint (a chat completion of a few thousand
/// tokens is a few KB; the cap keeps a misbehaving endpoint from filling abex's memory).
pub const MAX_BODY: usize = 4 << 20;

/// Rough token count of `text` (about four characters a token for English and code), used for
/// budget admission before a call and when the endpoint reports no usage.
pub fn estimate_tokens(text: &str) -> u64 {
    (text.chars().count() as u64).div_ceil(4)
}

/// How retries wait.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Backoff {
    /// The first wait.
    pub base: Duration,
    /// The longest wait.
    pub max: Duration,
}

impl Backoff {
    /// The wait before retry `attempt` (0-based): `Retry-After` when the server sent one (capped at
    /// `max`), else `base·2^attempt` capped at `max`, scaled by a random factor in [0.5, 1]
    /// ("equal jitter") so that clients that failed together do not retry together.
    pub fn delay(
        &self,
        attempt: u32,
        retry_after: Option<Duration>,
        rng: &mut impl Rng,
    ) -> Duration {
        if let Some(d) = retry_after {
            return d.min(self.max);
        }
        let exp = self.base.saturating_mul(1u32 << attempt.min(16)).min(self.max);
        exp.mul_f64(rng.random_range(0.5..=1.0))
    }
}

/// Whether a status is worth retrying.
pub fn retryable(status: u16) -> bool {
    status == 408 || status == 409 || status == 429 || status >= 500
}

/// `Retry-After` as seconds or an HTTP date.
fn parse_retry_after(v: &str) -> Option<Duration> {
    let v = v.trim();
    if let Ok(s) = v.parse::<f64>() {
        return (s.is_finite() && s >= 0.0).then(|| Duration::from_secs_f64(s));
    }
    let at = httpdate::parse_http_date(v).ok()?;
    Some(at.duration_since(std::time::SystemTime::now()).unwrap_or_default())
}

/// What the attempts of one call are billed: each answer's `usage`, or the worst case (the
/// prompt's bound plus the answer's cap) for an attempt whose answer has none (an error status,
/// a timeout, a lost connection: the endpoint may have done the work all the same). An attempt
/// whose connection was never made (refused, unresolved) sent nothing and is billed nothing.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Billed {
    /// Prompt tokens.
    pub prompt_tokens: u64,
    /// Completion tokens.
    pub completion_tokens: u64,
    /// Attempts billed at the worst case.
    pub worst_cases: u32,
}

impl Billed {
    /// Prompt and completion tokens.
    pub fn tokens(&self) -> u64 {
        self.prompt_tokens + self.completion_tokens
    }
}

/// An upper bound of a request's prompt tokens, whatever the tokenizer: a token covers at least
/// one byte, plus a few tokens of framing per message.
pub fn prompt_bound(req: &Request) -> u64 {
    req.messages.iter().map(|m| m.content.len() as u64 + 4).sum::<u64>() + 3
}

/// What bounds one call's attempts: the run's deadline (each attempt's time limit is the
/// configured one or the time left, whichever is shorter) and the budget, asked before every
/// attempt after the first whether another worst case still fits after what is billed so far.
pub struct Bounds<'a> {
    /// When calls must stop.
    pub deadline: Option<Instant>,
    /// Whether one more attempt fits after `billed`.
    pub admit: &'a dyn Fn(&Billed) -> bool,
}

impl Bounds<'_> {
    /// No deadline, no budget.
    pub fn none() -> Bounds<'static> {
        Bounds { deadline: None, admit: &|_| true }
    }
}

/// A call's result and what its attempts are billed.
pub struct Called {
    /// The answer, or why there is none.
    pub result: Result<Answer, CallError>,
    /// Every attempt's bill.
    pub billed: Billed,
}

/// The client.
pub struct Client {
    http: reqwest::blocking::Client,
    base_url: String,
    api_key: String,
    retries: u32,
    timeout: Duration,
    backoff: Backoff,
    json_mode: super::config::JsonMode,
    reasoning_effort: Option<String>,
    /// What each model's endpoint accepts, learnt during the run.
    rules: Mutex<HashMap<String, Rules>>,
    /// The adaptations made, in words, for the report.
    adaptations: Mutex<Vec<String>>,
    slots: Mutex<usize>,
    freed: Condvar,
    sent: AtomicU64,
}

impl Client {
    /// A client for the endpoint of `cfg`.
    pub fn new(cfg: &super::config::LlmConfig) -> Client {
        let http = reqwest::blocking::Client::builder()
            .timeout(cfg.timeout)
            .user_agent(concat!("abex/", env!("CARGO_PKG_VERSION")))
            .build()
            .unwrap_or_else(|_| reqwest::blocking::Client::new());
        Client {
            http,
            base_url: cfg.base_url.trim_end_matches('/').to_string(),
            api_key: cfg.api_key.clone(),
            retries: cfg.retries,
            timeout: cfg.timeout,
            backoff: Backoff { base: Duration::from_millis(500), max: Duration::from_secs(30) },
            json_mode: cfg.json_mode,
            reasoning_effort: cfg.reasoning_effort.clone(),
            rules: Mutex::new(HashMap::new()),
            adaptations: Mutex::new(Vec::new()),
            slots: Mutex::new(cfg.concurrency.max(1)),
            freed: Condvar::new(),
            sent: AtomicU64::new(0),
        }
    }

    /// HTTP requests sent so far, retries included.
    pub fn requests(&self) -> u64 {
        self.sent.load(Ordering::Relaxed)
    }

    /// How requests were adapted to what the endpoint accepts, in words, oldest first.
    pub fn adaptations(&self) -> Vec<String> {
        self.adaptations.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// The same client with another backoff (tests use short waits).
    pub fn with_backoff(mut self, backoff: Backoff) -> Client {
        self.backoff = backoff;
        self
    }

    fn rules_of(&self, model: &str) -> Rules {
        let mut rules = self.rules.lock().unwrap_or_else(|e| e.into_inner());
        rules
            .entry(model.to_string())
            .or_insert_with(|| Rules::for_model(model, self.json_mode))
            .clone()
    }

    /// Adapts the rules of `model` to an error answer; whether anything changed.
    fn adapt(&self, model: &str, status: u16, body: &str) -> bool {
        let mut rules = self.rules.lock().unwrap_or_else(|e| e.into_inner());
        let r = rules
            .entry(model.to_string())
            .or_insert_with(|| Rules::for_model(model, self.json_mode));
        match r.adapt(status, body) {
            Some(what) => {
                let mut a = self.adaptations.lock().unwrap_or_else(|e| e.into_inner());
                a.push(format!("`{model}`: {what}"));
                true
            }
            None => false,
        }
    }

    /// Sends `req` without deadline or budget; see [`Client::chat_within`].
    pub fn chat(&self, req: &Request) -> Result<Answer, CallError> {
        self.chat_within(req, &Bounds::none()).result
    }

    /// Sends `req`, retrying as the module describes and adapting the request to what the
    /// endpoint accepts, within `bounds`, and parses the answer's JSON. Every attempt is billed.
    pub fn chat_within(&self, req: &Request, bounds: &Bounds<'_>) -> Called {
        let _slot = self.acquire();
        let url = format!("{}/chat/completions", self.base_url);
        let mut rng = rand::rng();
        let mut billed = Billed::default();
        let worst = (prompt_bound(req), u64::from(req.max_tokens));
        let mut requests = 0u32;
        let mut attempt = 0u32;
        let out_of_time = |url: &str| CallError::Transport {
            url: url.to_string(),
            message: "the time budget is spent".into(),
        };
        loop {
            if requests > 0 && !(bounds.admit)(&billed) {
                let result = Err(CallError::Budget { url: url.clone() });
                return Called { result, billed };
            }
            let timeout = match bounds.deadline {
                Some(d) => match d.checked_duration_since(Instant::now()) {
                    Some(left) if !left.is_zero() => self.timeout.min(left),
                    _ => return Called { result: Err(out_of_time(&url)), billed },
                },
                None => self.timeout,
            };
            requests += 1;
            self.sent.fetch_add(1, Ordering::Relaxed);
            let rules = self.rules_of(&req.model);
            let mut body = serde_json::json!({"model": req.model, "messages": req.messages});
            rules.shape_body(
                &mut body,
                req.max_tokens,
                req.temperature,
                (req.shape.name, &req.shape.schema),
                self.reasoning_effort.as_deref(),
            );
            let mut call = self.http.post(&url).timeout(timeout).json(&body);
            if !self.api_key.is_empty() {
                call = call.bearer_auth(&self.api_key);
            }
            let failure = match call.send() {
                Ok(resp) => {
                    let status = resp.status().as_u16();
                    let retry_after = resp
                        .headers()
                        .get("retry-after")
                        .and_then(|v| v.to_str().ok())
                        .and_then(parse_retry_after);
                    let text = match crate::bounded::read_body(resp, MAX_BODY) {
                        Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
                        Err(_) => {
                            bill_worst(&mut billed, worst);
                            let result = Err(CallError::TooLarge { url: url.clone() });
                            return Called { result, billed };
                        }
                    };
                    if (200..300).contains(&status) {
                        let result = parse_completion(&text, req)
                            .map(|(json, text, usage)| Answer { json, text, usage, requests })
                            .map_err(|message| CallError::NotCompletion {
                                url: url.clone(),
                                message,
                            });
                        match &result {
                            Ok(a) => {
                                billed.prompt_tokens += a.usage.prompt_tokens;
                                billed.completion_tokens += a.usage.completion_tokens;
                            }
                            Err(_) => bill_worst(&mut billed, worst),
                        }
                        return Called { result, billed };
                    }
                    bill_worst(&mut billed, worst);
                    let err = CallError::Status {
                        url: url.clone(),
                        status,
                        body: text.chars().take(300).collect(),
                    };
                    // A parameter, value or output form the endpoint does not take: adapt the
                    // request once for it, and ask again at once.
                    if self.adapt(&req.model, status, &text) {
                        continue;
                    }
                    if !retryable(status) {
                        return Called { result: Err(err), billed };
                    }
                    (err, retry_after)
                }
                Err(e) => {
                    // A connection never made (refused, no route, a name that does not
                    // resolve) sent nothing, so nothing can be billed; any later failure
                    // (a timeout, a lost connection) may have had the work done.
                    if !e.is_connect() {
                        bill_worst(&mut billed, worst);
                    }
                    (CallError::Transport { url: url.clone(), message: e.to_string() }, None)
                }
            };
            if attempt >= self.retries {
                return Called { result: Err(failure.0), billed };
            }
            let mut wait = self.backoff.delay(attempt, failure.1, &mut rng);
            if let Some(d) = bounds.deadline {
                let left = d.saturating_duration_since(Instant::now());
                if left <= wait {
                    return Called { result: Err(failure.0), billed };
                }
                wait = wait.min(left);
            }
            std::thread::sleep(wait);
            attempt += 1;
        }
    }

    fn acquire(&self) -> SlotGuard<'_> {
        let mut free = self.slots.lock().unwrap_or_else(|e| e.into_inner());
        while *free == 0 {
            free = self.freed.wait(free).unwrap_or_else(|e| e.into_inner());
        }
        *free -= 1;
        SlotGuard(self)
    }
}

/// Bills one attempt at its worst case: `worst` is the prompt's bound and the answer's cap.
fn bill_worst(billed: &mut Billed, worst: (u64, u64)) {
    billed.prompt_tokens += worst.0;
    billed.completion_tokens += worst.1;
    billed.worst_cases += 1;
}

/// Gives its slot back when dropped.
struct SlotGuard<'a>(&'a Client);

impl Drop for SlotGuard<'_> {
    fn drop(&mut self) {
        *self.0.slots.lock().unwrap_or_else(|e| e.into_inner()) += 1;
        self.0.freed.notify_one();
    }
}

/// The answer text, its JSON and its usage, from a chat completion body.
type Parsed = (Option<serde_json::Value>, String, Usage);

fn parse_completion(body: &str, req: &Request) -> Result<Parsed, String> {
    #[derive(Deserialize)]
    struct Completion {
        choices: Vec<Choice>,
        usage: Option<RawUsage>,
    }
    #[derive(Deserialize)]
    struct Choice {
        message: ChoiceMessage,
    }
    #[derive(Deserialize)]
    struct ChoiceMessage {
        content: Option<String>,
    }
    #[derive(Deserialize)]
    struct RawUsage {
        prompt_tokens: u64,
        completion_tokens: u64,
    }
    let c: Completion = serde_json::from_str(body).map_err(|e| e.to_string())?;
    let text = c.choices.into_iter().next().and_then(|c| c.message.content).unwrap_or_default();
    let usage = match c.usage {
        Some(u) => Usage {
            prompt_tokens: u.prompt_tokens,
            completion_tokens: u.completion_tokens,
            estimated: false,
        },
        // No usage: bounds that cannot undercount (a token covers at least one byte).
        None => Usage {
            prompt_tokens: prompt_bound(req),
            completion_tokens: text.len() as u64,
            estimated: true,
        },
    };
    Ok((extract_json(&text), text, usage))
}

/// The JSON object in `text`: the whole text, a fenced block, or the span from the first `{` to
/// the last `}`.
pub fn extract_json(text: &str) -> Option<serde_json::Value> {
    let t = text.trim();
    let candidates = [
        Some(t),
        t.split_once("```").map(|(_, rest)| {
            let rest = rest.strip_prefix("json").unwrap_or(rest);
            rest.split_once("```").map_or(rest, |(inside, _)| inside)
        }),
        t.find('{').zip(t.rfind('}')).filter(|(a, b)| a < b).map(|(a, b)| &t[a..=b]),
    ];
    let parsed = candidates
        .iter()
        .flatten()
        .filter_map(|c| serde_json::from_str::<serde_json::Value>(c.trim()).ok())
        .find(serde_json::Value::is_object);
    parsed.or_else(|| {
        let from = t.find('{')?;
        serde_json::from_str::<serde_json::Value>(&repair_json(&t[from..]))
            .ok()
            .filter(serde_json::Value::is_object)
    })
}

/// Small slips of a model's JSON mended: commas before a closing bracket dropped, and an answer
/// cut off (by its length cap) closed: an open string, then every open bracket. Text after the
/// outermost object closes is dropped.
pub fn repair_json(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    let mut open: Vec<char> = Vec::new();
    let (mut in_string, mut escaped) = (false, false);
    for c in text.chars() {
        if in_string {
            out.push(c);
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => in_string = true,
            '{' => open.push('}'),
            '[' => open.push(']'),
            '}' | ']' => {
                let trimmed = out.trim_end().len();
                if out[..trimmed].ends_with(',') {
                    out.truncate(trimmed - 1);
                }
                if open.pop() != Some(c) {
                    return out;
                }
            }
            _ => {}
        }
        out.push(c);
        if open.is_empty() && c == '}' {
            return out;
        }
    }
    if in_string {
        out.push('"');
    }
    let trimmed = out.trim_end().len();
    if out[..trimmed].ends_with(',') || out[..trimmed].ends_with(':') {
        out.truncate(trimmed - 1);
    }
    while let Some(c) = open.pop() {
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn backoff_doubles_with_jitter_caps_and_honours_retry_after() {
        let b = Backoff { base: Duration::from_millis(100), max: Duration::from_secs(1) };
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
        for attempt in 0..8 {
            let full = Duration::from_millis(100 << attempt).min(b.max);
            let d = b.delay(attempt, None, &mut rng);
            assert!(d >= full / 2 && d <= full, "attempt {attempt}: {d:?}");
        }
        assert_eq!(
            b.delay(0, Some(Duration::from_millis(700)), &mut rng),
            Duration::from_millis(700)
        );
        assert_eq!(b.delay(0, Some(Duration::from_secs(90)), &mut rng), b.max);
    }

    #[test]
    fn retry_after_reads_seconds_and_dates() {
        assert_eq!(parse_retry_after("2"), Some(Duration::from_secs(2)));
        assert_eq!(parse_retry_after("0.5"), Some(Duration::from_millis(500)));
        assert_eq!(parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT"), Some(Duration::ZERO));
        assert_eq!(parse_retry_after("soon"), None);
    }

    #[test]
    fn only_rate_limits_timeouts_and_server_errors_are_retried() {
        for s in [408, 429, 500, 502, 503] {
            assert!(retryable(s), "{s}");
        }
        for s in [400, 401, 403, 404, 422] {
            assert!(!retryable(s), "{s}");
        }
    }

    #[test]
    fn json_is_found_in_fences_and_prose_and_prose_alone_is_refused() {
        let want = serde_json::json!({"a": 1});
        assert_eq!(extract_json("{\"a\": 1}"), Some(want.clone()));
        assert_eq!(extract_json("Sure!\n```json\n{\"a\": 1}\n```\nDone."), Some(want.clone()));
        assert_eq!(extract_json("Here: {\"a\": 1} as asked"), Some(want));
        assert_eq!(extract_json("I cannot help with that."), None);
        assert_eq!(extract_json("[1, 2]"), None);
    }

    #[test]
    fn trailing_commas_and_cut_off_answers_are_repaired() {
        let want = serde_json::json!({"pairs": [[1, 2]]});
        assert_eq!(extract_json("{\"pairs\": [[1, 2],],}"), Some(want.clone()));
        assert_eq!(extract_json("{\"pairs\": [[1, 2]"), Some(want));
        assert_eq!(extract_json("Sure {\"a\": \"x, y"), Some(serde_json::json!({"a": "x, y"})));
        assert_eq!(extract_json("{\"a\": \"}\"} trailing }"), Some(serde_json::json!({"a": "}"})));
    }

    #[test]
    fn usage_is_estimated_when_the_endpoint_sends_none() {
        let req = Request {
            model: "m".into(),
            temperature: 0.0,
            messages: vec![Message::user("x".repeat(40))],
            shape: Shape { name: "s", schema: serde_json::json!({}) },
            max_tokens: 10,
        };
        let body = r#"{"choices":[{"message":{"content":"{\"ok\":true}"}}]}"#;
        let (_, _, u) = parse_completion(body, &req).unwrap();
        assert_eq!(u, Usage { prompt_tokens: 47, completion_tokens: 11, estimated: true });
        let body = r#"{"choices":[{"message":{"content":"{}"}}],"usage":{"prompt_tokens":7,"completion_tokens":2,"total_tokens":9}}"#;
        let (_, _, u) = parse_completion(body, &req).unwrap();
        assert_eq!(u, Usage { prompt_tokens: 7, completion_tokens: 2, estimated: false });
    }
}
