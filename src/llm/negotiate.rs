//! What an endpoint accepts, learnt once per run and per model: which field caps the answer's
//! length (`max_tokens` or `max_completion_tokens`), whether a temperature may be sent, whether
//! `reasoning_effort` is taken, and which form of structured output works.
//!
//! A run starts from what the model's name says: OpenAI's GPT-5 family and o-series reasoning
//! models take `max_completion_tokens` and only the default temperature, so neither `max_tokens`
//! nor a temperature is sent to them. When an endpoint still answers with an error that names
//! a parameter it does not support (`"Unsupported parameter: 'max_tokens' …"`, `"'temperature'
//! does not support 0.5 with this model"`, `param: "reasoning_effort"`), the request is adapted
//! once for that parameter and the rule is kept for the rest of the run. An error that names
//! `response_format` (a 400 from a hosted API, a 500 from llama.cpp's server, which takes only
//! `text` and `json_object`) steps down to the next form: a JSON schema, then JSON mode with the
//! schema attached (llama.cpp turns it into a grammar), then plain text whose JSON is extracted
//! and repaired. Each adaptation is recorded in words for the report.

use std::collections::BTreeSet;

use super::config::JsonMode;

/// The field that caps an answer's length.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LengthField {
    /// `max_tokens` (chat models, most OpenAI-compatible servers).
    MaxTokens,
    /// `max_completion_tokens` (OpenAI's reasoning models; newer chat models take it too).
    MaxCompletionTokens,
}

impl LengthField {
    fn name(self) -> &'static str {
        match self {
            LengthField::MaxTokens => "max_tokens",
            LengthField::MaxCompletionTokens => "max_completion_tokens",
        }
    }
}

/// The request rules of one model at one endpoint.
#[derive(Clone, Debug, PartialEq)]
pub struct Rules {
    /// The length field.
    pub length: LengthField,
    /// Whether a temperature is sent.
    pub temperature: bool,
    /// Whether `reasoning_effort` is sent (when one is configured).
    pub reasoning_effort: bool,
    /// The structured-output form.
    pub json: JsonMode,
    /// Parameters already adapted (each is adapted once).
    adapted: BTreeSet<&'static str>,
}

/// Whether `model` is one of OpenAI's reasoning families (GPT-5, o1, o3, o4…), which take
/// `max_completion_tokens` and only the default temperature. A gateway prefix (`openai/`) is
/// ignored; `gpt-5-chat` models are chat models and keep the classic rules.
pub fn reasoning_family(model: &str) -> bool {
    let name = model.rsplit('/').next().unwrap_or(model).to_ascii_lowercase();
    if name.starts_with("gpt-5") {
        return !name.contains("-chat");
    }
    let mut chars = name.chars();
    chars.next() == Some('o') && chars.next().is_some_and(|c| c.is_ascii_digit())
}

impl Rules {
    /// What a run assumes of `model` before any answer, with `json` as configured.
    pub fn for_model(model: &str, json: JsonMode) -> Rules {
        let reasoning = reasoning_family(model);
        Rules {
            length: if reasoning {
                LengthField::MaxCompletionTokens
            } else {
                LengthField::MaxTokens
            },
            temperature: !reasoning,
            reasoning_effort: true,
            json,
            adapted: BTreeSet::new(),
        }
    }

    /// Completes a request `body` (which holds the model and the messages) for these rules:
    /// the length cap, the temperature, the reasoning effort and the answer's declared shape
    /// (`shape_name`, `schema`).
    pub fn shape_body(
        &self,
        body: &mut serde_json::Value,
        max_tokens: u32,
        temperature: f64,
        (shape_name, schema): (&str, &serde_json::Value),
        reasoning_effort: Option<&str>,
    ) {
        body[self.length.name()] = max_tokens.into();
        if self.temperature {
            body["temperature"] = temperature.into();
        }
        if let Some(effort) = reasoning_effort.filter(|_| self.reasoning_effort) {
            body["reasoning_effort"] = effort.into();
        }
        let format = match self.json {
            JsonMode::Schema => Some(serde_json::json!({
                "type": "json_schema",
                "json_schema": {"name": shape_name, "schema": schema, "strict": false},
            })),
            JsonMode::Object => Some(serde_json::json!({"type": "json_object", "schema": schema})),
            JsonMode::Off => None,
        };
        if let Some(f) = format {
            body["response_format"] = f;
        }
    }

    /// Adapts to an error answer (`status`, `body`) that names a parameter or value the endpoint
    /// does not take; returns what changed, in words, or `None` when the error names nothing
    /// these rules can change (or that parameter was adapted before).
    pub fn adapt(&mut self, status: u16, body: &str) -> Option<String> {
        let named = named_parameter(body);
        let mentions = |p: &str| named.as_deref() == Some(p) || body.contains(p);
        // `response_format` (and its forms) on any error status: the next form.
        if mentions("response_format") || body.contains("json_schema") {
            let next = match self.json {
                JsonMode::Schema => JsonMode::Object,
                JsonMode::Object => JsonMode::Off,
                JsonMode::Off => return None,
            };
            let from = json_name(self.json);
            self.json = next;
            return Some(format!(
                "structured output: {} instead of {from} (HTTP {status})",
                json_name(next)
            ));
        }
        if !(400..500).contains(&status) {
            return None;
        }
        let change = if mentions("max_tokens") && self.length == LengthField::MaxTokens {
            self.length = LengthField::MaxCompletionTokens;
            ("max_tokens", "sends max_completion_tokens instead of max_tokens")
        } else if mentions("max_completion_tokens")
            && self.length == LengthField::MaxCompletionTokens
        {
            self.length = LengthField::MaxTokens;
            ("max_completion_tokens", "sends max_tokens instead of max_completion_tokens")
        } else if mentions("temperature") && self.temperature {
            self.temperature = false;
            ("temperature", "sends no temperature (the model takes only its default)")
        } else if mentions("reasoning_effort") && self.reasoning_effort {
            self.reasoning_effort = false;
            ("reasoning_effort", "sends no reasoning_effort")
        } else {
            return None;
        };
        if !self.adapted.insert(change.0) {
            return None;
        }
        Some(format!("{} (HTTP {status})", change.1))
    }
}

fn json_name(m: JsonMode) -> &'static str {
    match m {
        JsonMode::Schema => "a JSON schema",
        JsonMode::Object => "JSON mode with the schema",
        JsonMode::Off => "plain text with JSON repair",
    }
}

/// The `error.param` of an OpenAI-style error body, if it has one.
fn named_parameter(body: &str) -> Option<String> {
    let v: serde_json::Value = serde_json::from_str(body).ok()?;
    v["error"]["param"].as_str().map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;

    trait Body {
        fn body(&self, model: &str, effort: Option<&str>) -> serde_json::Value;
    }

    impl Body for Rules {
        fn body(&self, model: &str, effort: Option<&str>) -> serde_json::Value {
            let mut b = serde_json::json!({"model": model, "messages": []});
            let schema = serde_json::json!({"type": "object"});
            self.shape_body(&mut b, 100, 0.8, ("s", &schema), effort);
            b
        }
    }

    #[test]
    fn reasoning_models_get_max_completion_tokens_and_no_temperature() {
        for m in ["gpt-5-mini", "gpt-5.1", "openai/gpt-5", "o3", "o4-mini", "o1-preview"] {
            assert!(reasoning_family(m), "{m}");
            let b = Rules::for_model(m, JsonMode::Schema).body(m, Some("low"));
            assert_eq!(b["max_completion_tokens"], 100, "{m}");
            assert!(b.get("max_tokens").is_none() && b.get("temperature").is_none(), "{m}");
            assert_eq!(b["reasoning_effort"], "low");
        }
        for m in ["gpt-4o", "gpt-5-chat-latest", "claude-sonnet-4-5", "smollm2", "omni"] {
            assert!(!reasoning_family(m), "{m}");
            let b = Rules::for_model(m, JsonMode::Schema).body(m, None);
            assert_eq!(
                (b["max_tokens"].as_u64(), b["temperature"].as_f64()),
                (Some(100), Some(0.8))
            );
            assert!(b.get("reasoning_effort").is_none());
        }
    }

    #[test]
    fn each_named_parameter_is_adapted_once() {
        let mut r = Rules::for_model("gpt-4o", JsonMode::Schema);
        let e = r#"{"error":{"message":"Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.","type":"invalid_request_error","param":"max_tokens","code":"unsupported_parameter"}}"#;
        assert!(r.adapt(400, e).unwrap().contains("max_completion_tokens"));
        assert_eq!(r.length, LengthField::MaxCompletionTokens);
        let t = r#"{"error":{"message":"Unsupported value: 'temperature' does not support 0.5 with this model. Only the default (1) value is supported.","param":"temperature","code":"unsupported_value"}}"#;
        assert!(r.adapt(400, t).is_some());
        assert!(!r.temperature);
        assert_eq!(r.adapt(400, t), None);
        assert_eq!(r.adapt(400, "{\"error\":{\"message\":\"bad key\"}}"), None);
        assert_eq!(r.adapt(503, e), None, "a server error is not a parameter rule");
    }

    #[test]
    fn response_format_errors_step_down_the_forms_on_any_status() {
        let mut r = Rules::for_model("smollm2", JsonMode::Schema);
        let llama = r#"{"detail":[{"loc":["body","response_format","type"],"msg":"Input should be 'text' or 'json_object'"}]}"#;
        assert!(r.adapt(500, llama).unwrap().contains("JSON mode"));
        let b = r.body("smollm2", None);
        assert_eq!(b["response_format"]["type"], "json_object");
        assert_eq!(b["response_format"]["schema"]["type"], "object");
        assert!(r.adapt(400, "response_format is not supported").unwrap().contains("plain text"));
        assert!(r.body("x", None).get("response_format").is_none());
        assert_eq!(r.adapt(400, "response_format"), None);
    }
}
