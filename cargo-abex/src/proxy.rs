//! `cargo abex model-proxy`: holds the model's key for a run whose analysing process also runs
//! the project's code (`pytest --abex` imports the pull request's `conftest.py`, and its
//! package's `.pth` files and `pytest11` entry points run before any plugin). The Action starts
//! it on the pytest path: the key reaches this process on stdin (never an environment), and the
//! analysis gets a loopback endpoint and a token good for this proxy alone.
//!
//! It serves `POST …/chat/completions` on 127.0.0.1 with `Authorization: Bearer <token>`,
//! forwards the body to the trusted endpoint (`--base-url`, `ABEX_BASE_URL`, else the default)
//! with the key, and holds the run's money and token caps itself: a request is forwarded only
//! when its worst case (prompt bytes plus 4 a message, plus its `max_tokens`, priced from the
//! built-in table or `ABEX_PRICES`) fits in what is left; it is billed by the answer's `usage`,
//! or at its worst case. A refused request gets HTTP 402, which the client does not retry. So
//! what the project's code can do with the token is spend at most the run's budget at the
//! endpoint the workflow named, and only while the step runs.

use std::io::{BufRead, Read};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use abex::llm::budget::Budget;
use abex::llm::prices::{Price, Prices};

/// What the proxy forwards to and how much it lets through.
#[derive(Debug)]
pub struct Proxy {
    /// The trusted endpoint, up to `/v1`.
    pub upstream: String,
    /// The key, sent only to `upstream`.
    pub key: String,
    /// The caps.
    pub budget: Budget,
    /// Prices: the built-in table and `ABEX_PRICES`.
    pub prices: Prices,
}

/// A JSON error answer with `status`.
fn error(status: u16, message: &str) -> tiny_http::Response<std::io::Cursor<Vec<u8>>> {
    let body = serde_json::json!({"error": {"message": message, "type": "abex_proxy"}});
    json(status, body.to_string().into_bytes())
}

fn json(status: u16, body: Vec<u8>) -> tiny_http::Response<std::io::Cursor<Vec<u8>>> {
    let header =
        tiny_http::Header::from_bytes("Content-Type", "application/json").expect("a valid header");
    tiny_http::Response::from_data(body).with_status_code(status).with_header(header)
}

/// The request's worst case in tokens: (prompt bound, answer cap), as the client bounds it.
fn worst_case(body: &serde_json::Value) -> (u64, u64) {
    let prompt: u64 = body["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|m| m["content"].as_str().map_or(0, str::len) as u64 + 4)
        .sum::<u64>()
        + 3;
    let answer = body["max_tokens"]
        .as_u64()
        .or_else(|| body["max_completion_tokens"].as_u64())
        .unwrap_or(16_384);
    (prompt, answer)
}

impl Proxy {
    /// Answers one request.
    fn handle(
        &self,
        state: &Mutex<Budget>,
        http: &reqwest::blocking::Client,
        token: &str,
        rq: &mut tiny_http::Request,
    ) -> tiny_http::Response<std::io::Cursor<Vec<u8>>> {
        let bearer = format!("Bearer {token}");
        let authorised = rq
            .headers()
            .iter()
            .any(|h| h.field.equiv("Authorization") && h.value.as_str() == bearer);
        if !authorised {
            return error(401, "abex proxy: wrong token");
        }
        if *rq.method() != tiny_http::Method::Post || !rq.url().ends_with("/chat/completions") {
            return error(404, "abex proxy: only POST …/chat/completions");
        }
        let mut text = Vec::new();
        if rq.as_reader().take(16 << 20).read_to_end(&mut text).is_err() {
            return error(400, "abex proxy: unreadable request");
        }
        let Ok(body) = serde_json::from_slice::<serde_json::Value>(&text) else {
            return error(400, "abex proxy: the request is not JSON");
        };
        let model = body["model"].as_str().unwrap_or_default();
        let price = match self.prices.known(model) {
            Some(p) => p,
            None if state.lock().map(|b| b.max_usd.is_none()).unwrap_or(false) => Price::default(),
            None => return error(402, &format!("abex proxy: no price for model `{model}`")),
        };
        let (prompt, answer) = worst_case(&body);
        {
            let Ok(mut b) = state.lock() else { return error(500, "abex proxy: poisoned") };
            if let Err(why) = b.admit(prompt, answer, price) {
                return error(402, &format!("abex proxy: {why}"));
            }
            // Reserved at its worst case while in flight; billed when it answers.
            b.spend(prompt, answer, price);
        }
        let url = format!("{}/chat/completions", self.upstream.trim_end_matches('/'));
        let sent = http
            .post(&url)
            .bearer_auth(&self.key)
            .header("Content-Type", "application/json")
            .body(text)
            .send();
        let (status, reply) = match sent {
            Ok(r) => (r.status().as_u16(), r.bytes().map(|b| b.to_vec()).unwrap_or_default()),
            Err(e) => {
                return error(
                    502,
                    &format!("abex proxy: the endpoint did not answer: {}", e.without_url()),
                )
            }
        };
        let usage = serde_json::from_slice::<serde_json::Value>(&reply).ok().and_then(|v| {
            let u = &v["usage"];
            Some((u["prompt_tokens"].as_u64()?, u["completion_tokens"].as_u64()?))
        });
        if let (Some((p, c)), Ok(mut b)) = (usage, state.lock()) {
            // What it really cost instead of its worst case.
            b.tokens = b.tokens.saturating_sub(prompt + answer) + p + c;
            b.usd = (b.usd - price.cost(prompt, answer)).max(0.0) + price.cost(p, c);
        }
        json(status, reply)
    }

    /// Serves on 127.0.0.1 until the process is stopped (the Action's step stops it after the
    /// analysis, or the runner with the step); calls `ready` with the
    /// endpoint to give the client (`http://127.0.0.1:PORT/v1`) and the token it must send.
    pub fn serve(self, ready: impl FnOnce(&str, &str)) -> std::io::Result<()> {
        let server = tiny_http::Server::http("127.0.0.1:0")
            .map_err(|e| std::io::Error::other(e.to_string()))?;
        let port = server.server_addr().to_ip().map_or(0, |a| a.port());
        let token = format!("abex-proxy-{}", abex::github::api::new_nonce());
        let http = reqwest::blocking::Client::builder()
            .timeout(Duration::from_secs(600))
            .build()
            .map_err(std::io::Error::other)?;
        let state = Arc::new(Mutex::new(self.budget.clone()));
        let me = Arc::new(self);
        ready(&format!("http://127.0.0.1:{port}/v1"), &token);
        for mut rq in server.incoming_requests() {
            let (me, state, http, token) = (me.clone(), state.clone(), http.clone(), token.clone());
            std::thread::spawn(move || {
                let answer = me.handle(&state, &http, &token, &mut rq);
                let _ = rq.respond(answer);
            });
        }
        Ok(())
    }
}

/// Reads the key: the first line of stdin.
pub fn read_key() -> std::io::Result<String> {
    let mut line = String::new();
    std::io::stdin().lock().read_line(&mut line)?;
    Ok(line.trim().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_s_worst_case_is_its_prompt_bytes_and_its_answer_cap() {
        let body = serde_json::json!({"messages": [{"content": "abcd"}, {"content": ""}],
            "max_completion_tokens": 100});
        assert_eq!(worst_case(&body), (4 + 4 + 4 + 3, 100));
        assert_eq!(worst_case(&serde_json::json!({"max_tokens": 7})).1, 7);
    }
}
