//! A fake OpenAI-compatible chat-completions server on 127.0.0.1, for tests: a script decides
//! each answer from the request (its role, read from the prompt, and its position), and every
//! request is logged so tests can count them. Each request is served on its own thread, so a
//! slow answer does not hold up the retry that follows it.

#![allow(dead_code)]

use std::sync::{Arc, Mutex};
use std::time::Duration;

/// One request as the script sees it.
#[derive(Clone, Debug)]
pub struct Call {
    /// 0-based position among all requests.
    pub n: usize,
    /// 0-based position among the requests of the same role.
    pub nth_of_role: usize,
    /// `explorer`, `coordinator`, `ideator`, `generator`, `mutator`, `tester` or `other`.
    pub role: &'static str,
    /// The request body.
    pub body: serde_json::Value,
    /// The last user message.
    pub prompt: String,
    /// The `Authorization` header, when the request had one (what a key was sent to).
    pub authorization: Option<String>,
}

/// What the server answers.
pub enum Reply {
    /// A chat completion whose message content is this text; usage is about four characters a
    /// token of the request's messages and of the text.
    Content { text: String },
    /// A bare status with a body and headers.
    Status { code: u16, body: String, headers: Vec<(String, String)> },
    /// Waits, then answers.
    Slow(Duration, Box<Reply>),
}

impl Reply {
    /// A completion with this JSON as content and small usage figures.
    pub fn json(v: serde_json::Value) -> Reply {
        Reply::Content { text: v.to_string() }
    }
    /// A completion with this text.
    pub fn text(t: &str) -> Reply {
        Reply::Content { text: t.to_string() }
    }
    /// A status.
    pub fn status(code: u16) -> Reply {
        Reply::Status { code, body: format!("{{\"error\":\"status {code}\"}}"), headers: vec![] }
    }
}

/// The role of a request, from its last user message.
pub fn role_of(prompt: &str) -> &'static str {
    if prompt.contains("Propose") && prompt.contains("new input pairs") {
        "explorer"
    } else if prompt.contains("You coordinate") {
        "coordinator"
    } else if prompt.contains("Propose 2 or 3 directions") {
        "ideator"
    } else if prompt.contains("strategy of type") {
        "generator"
    } else if prompt.contains("Write a mutant") {
        "mutator"
    } else if prompt.contains("unit test for the function") {
        "tester"
    } else {
        "other"
    }
}

type Script = dyn Fn(&Call) -> Reply + Send + Sync;

/// Which request rules the server enforces before the script answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Strictness {
    /// Any request is taken.
    Lenient,
    /// OpenAI's rules for GPT-5 and o-series models: `max_tokens` and any temperature other than
    /// 1 are refused with HTTP 400 and the API's own error texts.
    Gpt5,
    /// llama-cpp-python's server: `response_format` of type `json_schema` is refused with HTTP
    /// 500 (it takes `text` and `json_object`, with an optional `schema`).
    LlamaCpp,
}

/// The error a strict server answers `body` with, if it breaks its rules.
pub fn rule_error(strictness: Strictness, body: &serde_json::Value) -> Option<Reply> {
    let openai = |message: &str, param: &str, code: &str| Reply::Status {
        code: 400,
        body: serde_json::json!({"error": {"message": message, "type": "invalid_request_error",
                                           "param": param, "code": code}})
        .to_string(),
        headers: vec![("Content-Type".into(), "application/json".into())],
    };
    match strictness {
        Strictness::Lenient => None,
        Strictness::Gpt5 => {
            if body.get("max_tokens").is_some() {
                return Some(openai(
                    "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
                    "max_tokens",
                    "unsupported_parameter",
                ));
            }
            match body.get("temperature").and_then(|t| t.as_f64()) {
                Some(t) if t != 1.0 => Some(openai(
                    &format!("Unsupported value: 'temperature' does not support {t} with this model. Only the default (1) value is supported."),
                    "temperature",
                    "unsupported_value",
                )),
                _ => None,
            }
        }
        Strictness::LlamaCpp => {
            let t = body["response_format"]["type"].as_str();
            (t.is_some() && t != Some("text") && t != Some("json_object")).then(|| Reply::Status {
                code: 500,
                body: serde_json::json!({"error": {"message": "[{'type': 'literal_error', 'loc': ('body', 'response_format', 'type'), 'msg': \"Input should be 'text' or 'json_object'\", 'input': 'json_schema'}]", "type": "internal_server_error"}}).to_string(),
                headers: vec![],
            })
        }
    }
}

/// A running fake server.
pub struct FakeLlm {
    server: Arc<tiny_http::Server>,
    /// Every request, in arrival order.
    pub log: Arc<Mutex<Vec<Call>>>,
    /// `http://127.0.0.1:PORT/v1`.
    pub base_url: String,
}

impl FakeLlm {
    /// Starts a server answering with `script`.
    pub fn start(script: impl Fn(&Call) -> Reply + Send + Sync + 'static) -> FakeLlm {
        FakeLlm::start_with(Strictness::Lenient, script)
    }

    /// Starts a server that enforces `strictness`'s rules (a refused request is logged and
    /// answered with the error; the script never sees it), and answers the rest with `script`.
    pub fn start_with(
        strictness: Strictness,
        script: impl Fn(&Call) -> Reply + Send + Sync + 'static,
    ) -> FakeLlm {
        let server = Arc::new(tiny_http::Server::http("127.0.0.1:0").expect("bind 127.0.0.1"));
        let port = server.server_addr().to_ip().expect("an IP address").port();
        let log: Arc<Mutex<Vec<Call>>> = Arc::default();
        let script: Arc<Script> = Arc::new(script);
        let (s, l) = (server.clone(), log.clone());
        std::thread::spawn(move || {
            for mut rq in s.incoming_requests() {
                let mut text = String::new();
                let _ = rq.as_reader().read_to_string(&mut text);
                let authorization = rq
                    .headers()
                    .iter()
                    .find(|h| h.field.equiv("Authorization"))
                    .map(|h| h.value.to_string());
                let body: serde_json::Value = serde_json::from_str(&text).unwrap_or_default();
                let prompt = body["messages"]
                    .as_array()
                    .and_then(|m| m.iter().rev().find(|m| m["role"] == "user"))
                    .and_then(|m| m["content"].as_str())
                    .unwrap_or_default()
                    .to_string();
                let first = body["messages"]
                    .as_array()
                    .and_then(|m| m.iter().find(|m| m["role"] == "user"))
                    .and_then(|m| m["content"].as_str())
                    .unwrap_or_default()
                    .to_string();
                let role = role_of(&first);
                let call = {
                    let mut log = l.lock().unwrap();
                    let nth_of_role = log.iter().filter(|c| c.role == role).count();
                    let call =
                        Call { n: log.len(), nth_of_role, role, body, prompt, authorization };
                    log.push(call.clone());
                    call
                };
                let script = script.clone();
                std::thread::spawn(move || {
                    let reply = rule_error(strictness, &call.body).unwrap_or_else(|| script(&call));
                    respond(rq, &call, reply)
                });
            }
        });
        FakeLlm { server, log, base_url: format!("http://127.0.0.1:{port}/v1") }
    }

    /// Requests so far.
    pub fn count(&self) -> usize {
        self.log.lock().unwrap().len()
    }

    /// Requests refused by the server's rules so far.
    pub fn refused(&self, strictness: Strictness) -> usize {
        self.log
            .lock()
            .unwrap()
            .iter()
            .filter(|c| rule_error(strictness, &c.body).is_some())
            .count()
    }

    /// The `Authorization` headers the server received (one per request that had one).
    pub fn authorizations(&self) -> Vec<String> {
        self.log.lock().unwrap().iter().filter_map(|c| c.authorization.clone()).collect()
    }

    /// Requests of `role` so far.
    pub fn count_role(&self, role: &str) -> usize {
        self.log.lock().unwrap().iter().filter(|c| c.role == role).count()
    }
}

impl Drop for FakeLlm {
    fn drop(&mut self) {
        self.server.unblock();
    }
}

fn respond(rq: tiny_http::Request, call: &Call, reply: Reply) {
    match reply {
        Reply::Slow(d, inner) => {
            std::thread::sleep(d);
            respond(rq, call, *inner)
        }
        Reply::Content { text } => {
            let messages = call.body["messages"].as_array().cloned().unwrap_or_default();
            let prompt_tokens: u64 = messages
                .iter()
                .map(|m| m["content"].as_str().unwrap_or_default().chars().count() as u64 / 4 + 4)
                .sum();
            let completion_tokens = text.chars().count() as u64 / 4 + 1;
            let body = serde_json::json!({
                "id": "fake", "object": "chat.completion", "model": "fake",
                "choices": [{"index": 0, "finish_reason": "stop",
                             "message": {"role": "assistant", "content": text}}],
                "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                          "total_tokens": prompt_tokens + completion_tokens}
            });
            let _ = rq.respond(tiny_http::Response::from_string(body.to_string()).with_header(
                tiny_http::Header::from_bytes("Content-Type", "application/json").unwrap(),
            ));
        }
        Reply::Status { code, body, headers } => {
            let mut r = tiny_http::Response::from_string(body).with_status_code(code);
            for (k, v) in headers {
                r.add_header(tiny_http::Header::from_bytes(k.as_bytes(), v.as_bytes()).unwrap());
            }
            let _ = rq.respond(r);
        }
    }
}
