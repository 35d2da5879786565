//! A blocking client for OpenAI-compatible chat completions (`POST {base}/chat/completions`):
//! hosted APIs, vLLM, Ollama, llama.cpp server.
//!
//! It asks for JSON through `response_format` (a JSON schema, or JSON mode) where the
//! configuration says so, and falls back to plain text once if the endpoint rejects the field;
//! either way the answer's JSON is extracted from the text (fences and prose around it are
//! dropped) and parsed. Requests are retried with exponential backoff and jitter on 429, 5xx,
//! timeouts and connection errors, honouring `Retry-After`; other 4xx fail at once. A counting
//! semaphore caps requests in flight. Token usage comes from the answer's `usage`, or an estimate
//! when the endpoint has none. The core is synchronous, so this is built on reqwest's blocking
//! client (a tokio runtime on its own thread, the same hyper and rustls stack as the GitHub client).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Condvar, Mutex};
use std::time::Duration;

use rand::Rng;
use serde::{Deserialize, Serialize};

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
    /// The body is not a chat completion.
    #[error("`{url}` did not answer with a chat completion: {message}")]
    NotCompletion {
        /// The URL.
        url: String,
        /// The parser's message.
        message: String,
    },
}

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

/// The client.
pub struct Client {
    http: reqwest::blocking::Client,
    base_url: String,
    api_key: String,
    retries: u32,
    backoff: Backoff,
    json_mode: super::config::JsonMode,
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
            backoff: Backoff { base: Duration::from_millis(500), max: Duration::from_secs(30) },
            json_mode: cfg.json_mode,
            slots: Mutex::new(cfg.concurrency.max(1)),
            freed: Condvar::new(),
            sent: AtomicU64::new(0),
        }
    }

    /// HTTP requests sent so far, retries included.
    pub fn requests(&self) -> u64 {
        self.sent.load(Ordering::Relaxed)
    }

    /// The same client with another backoff (tests use short waits).
    pub fn with_backoff(mut self, backoff: Backoff) -> Client {
        self.backoff = backoff;
        self
    }

    fn body(&self, req: &Request, json_mode: super::config::JsonMode) -> serde_json::Value {
        use super::config::JsonMode;
        let mut body = serde_json::json!({
            "model": req.model,
            "messages": req.messages,
            "temperature": req.temperature,
            "max_tokens": req.max_tokens,
        });
        let format = match json_mode {
            JsonMode::Schema => Some(serde_json::json!({
                "type": "json_schema",
                "json_schema": {"name": req.shape.name, "schema": req.shape.schema, "strict": false},
            })),
            JsonMode::Object => Some(serde_json::json!({"type": "json_object"})),
            JsonMode::Off => None,
        };
        if let Some(f) = format {
            body["response_format"] = f;
        }
        body
    }

    /// Sends `req`, retrying as the module describes, and parses the answer's JSON.
    pub fn chat(&self, req: &Request) -> Result<Answer, CallError> {
        let _slot = self.acquire();
        let url = format!("{}/chat/completions", self.base_url);
        let mut rng = rand::rng();
        let mut json_mode = self.json_mode;
        let mut requests = 0u32;
        let mut attempt = 0u32;
        loop {
            requests += 1;
            self.sent.fetch_add(1, Ordering::Relaxed);
            let mut call = self.http.post(&url).json(&self.body(req, json_mode));
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
                    let text = resp.text().unwrap_or_default();
                    if (200..300).contains(&status) {
                        return parse_completion(&text, req)
                            .map(|(json, text, usage)| Answer { json, text, usage, requests })
                            .map_err(|message| CallError::NotCompletion { url, message });
                    }
                    let err = CallError::Status {
                        url: url.clone(),
                        status,
                        body: text.chars().take(300).collect(),
                    };
                    // An endpoint without structured output: ask again in plain text, once.
                    if status == 400
                        && json_mode != super::config::JsonMode::Off
                        && text.contains("response_format")
                    {
                        json_mode = super::config::JsonMode::Off;
                        continue;
                    }
                    if !retryable(status) {
                        return Err(err);
                    }
                    (err, retry_after)
                }
                Err(e) => (CallError::Transport { url: url.clone(), message: e.to_string() }, None),
            };
            if attempt >= self.retries {
                return Err(failure.0);
            }
            std::thread::sleep(self.backoff.delay(attempt, failure.1, &mut rng));
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
        None => Usage {
            prompt_tokens: req.messages.iter().map(|m| estimate_tokens(&m.content) + 4).sum(),
            completion_tokens: estimate_tokens(&text),
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
    candidates
        .into_iter()
        .flatten()
        .filter_map(|c| serde_json::from_str::<serde_json::Value>(c.trim()).ok())
        .find(serde_json::Value::is_object)
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
        assert_eq!(u, Usage { prompt_tokens: 14, completion_tokens: 3, estimated: true });
        let body = r#"{"choices":[{"message":{"content":"{}"}}],"usage":{"prompt_tokens":7,"completion_tokens":2,"total_tokens":9}}"#;
        let (_, _, u) = parse_completion(body, &req).unwrap();
        assert_eq!(u, Usage { prompt_tokens: 7, completion_tokens: 2, estimated: false });
    }
}
