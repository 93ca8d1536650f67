//! The server's count of a scenario's prompts beside plateau's ([`TokenCheck`]), asked once
//! per endpoint, model and scenario before its first cell runs.
//!
//! Prompt lengths are targets in plateau's tokenizer; a server whose model tokenizes
//! differently sees other lengths, and its `usage.prompt_tokens` also holds its chat
//! template. So the check asks the server's own tokenizer twice per prompt:
//! - each message's text alone, no special tokens: against plateau's count of the same
//!   texts this is the tokenizer gap;
//! - the whole chat as the server renders it (template and generation prompt): the gap
//!   to the first is the template's tokens, what the chat API adds to every request.
//!
//! vLLM and SGLang answer `POST /tokenize` with `{"model", "prompt" | "messages"}`
//! (`count`, `tokens`); llama.cpp with `{"content"}` (`tokens`) and renders chats at
//! `/apply-template`. The simulator answers like vLLM. Other engines have no such endpoint
//! and are not asked. Every request is bounded by [`TIMEOUT`]; a failure is recorded in
//! the check, never fatal.

use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use serde_json::{Value, json};

pub use plateau_model::results::token_check::TokenCheck;

use crate::plan::{BaseUrl, Endpoint};
use crate::tokens::TokenCounter;
use crate::wire;
use crate::workload::{Message, Workload};
use plateau_http::Client;
use plateau_model::config::{Api, Engine};

/// How long one `/tokenize` request may take.
pub const TIMEOUT: Duration = Duration::from_secs(5);

/// How many slots' first prompts are compared (identical prompts are asked once).
pub const PROMPTS: u32 = 8;

/// How a server's tokenizer is asked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Dialect {
    /// vLLM, SGLang and the simulator: `{"model", "prompt"}` or `{"model", "messages"}`.
    Openai,
    /// llama.cpp: `{"content"}`, chats rendered by `/apply-template` first.
    Llamacpp,
}

/// Whether plateau can ask `engine` for its token counts (`tokenizer: "server"`).
pub fn has_tokenize(engine: Engine) -> bool {
    dialect(engine).is_some()
}

fn dialect(engine: Engine) -> Option<Dialect> {
    match engine {
        Engine::Vllm | Engine::Sglang | Engine::Sim => Some(Dialect::Openai),
        Engine::Llamacpp => Some(Dialect::Llamacpp),
        Engine::Nim | Engine::Tgi | Engine::Openai => None,
    }
}

/// Where a check asks.
pub struct Server<'a> {
    /// The shared client.
    pub client: &'a Client,
    /// The endpoint (engine, auth, secrets to scrub).
    pub endpoint: &'a Endpoint,
    /// Its base URL.
    pub base: &'a BaseUrl,
    /// The model the cells ask for.
    pub model: &'a str,
}

/// Compares the first prompt of the first [`PROMPTS`] slots of `workload` as `counter`
/// and the server count them; `None` when the endpoint's engine has no tokenizer endpoint.
pub async fn run(
    server: &Server<'_>,
    workload: &dyn Workload,
    counter: &dyn TokenCounter,
) -> Option<TokenCheck> {
    let dialect = dialect(server.endpoint.engine)?;
    let mut prompts: Vec<Vec<Message>> = Vec::new();
    for slot in 0..PROMPTS {
        let messages = workload.session(slot).next().messages;
        if !prompts.contains(&messages) {
            prompts.push(messages);
        }
    }
    let ask = Ask {
        server,
        dialect,
        sent: AtomicU32::new(0),
    };
    let mut check = TokenCheck {
        path: "/tokenize".into(),
        prompts: prompts.len() as u32,
        client_tokens_mean: mean(prompts.iter().map(|p| {
            p.iter()
                .map(|m| counter.count(&m.content) as f64)
                .sum::<f64>()
        })),
        server_tokens_mean: None,
        rel_diff: None,
        templated_tokens_mean: None,
        error: None,
        requests: 0,
    };
    let mut alone = Vec::with_capacity(prompts.len());
    for prompt in &prompts {
        let mut tokens = 0;
        for message in prompt {
            match ask.text(&message.content, false).await {
                Ok(n) => tokens += n,
                Err(e) => {
                    check.error = Some(e);
                    check.requests = ask.sent();
                    return Some(check);
                }
            }
        }
        alone.push(tokens as f64);
    }
    let server_mean = mean(alone.into_iter());
    check.server_tokens_mean = Some(server_mean);
    check.rel_diff =
        (check.client_tokens_mean > 0.0).then(|| server_mean / check.client_tokens_mean - 1.0);
    // The completions API sends the text as it is: no template to count.
    if server.endpoint.api == Api::Chat {
        let mut templated = Vec::with_capacity(prompts.len());
        for prompt in &prompts {
            match ask.chat(prompt).await {
                Ok(n) => templated.push(n as f64),
                Err(e) => {
                    check.error = Some(format!("the chat template: {e}"));
                    check.requests = ask.sent();
                    return Some(check);
                }
            }
        }
        check.templated_tokens_mean = Some(mean(templated.into_iter()));
    }
    check.requests = ask.sent();
    Some(check)
}

fn mean(values: impl Iterator<Item = f64>) -> f64 {
    let (sum, n) = values.fold((0.0, 0u32), |(s, n), v| (s + v, n + 1));
    if n == 0 { 0.0 } else { sum / f64::from(n) }
}

struct Ask<'s, 'a> {
    server: &'s Server<'a>,
    dialect: Dialect,
    /// Requests sent so far.
    sent: AtomicU32,
}

impl Ask<'_, '_> {
    fn sent(&self) -> u32 {
        self.sent.load(Ordering::Relaxed)
    }

    /// The server's token count of `text`, with its special tokens (BOS) when `special`.
    async fn text(&self, text: &str, special: bool) -> Result<u64, String> {
        let body = match self.dialect {
            Dialect::Openai => json!({
                "model": self.server.model,
                "prompt": text,
                "add_special_tokens": special,
            }),
            Dialect::Llamacpp => json!({"content": text, "add_special": special,
                "parse_special": special}),
        };
        count(&self.post("/tokenize", &body).await?)
    }

    /// The server's token count of `messages` rendered by its chat template, generation
    /// prompt included: what a chat request's `usage.prompt_tokens` says.
    async fn chat(&self, messages: &[Message]) -> Result<u64, String> {
        let messages: Vec<Value> = messages
            .iter()
            .map(|m| json!({"role": m.role.as_str(), "content": m.content}))
            .collect();
        match self.dialect {
            Dialect::Openai => {
                let body = json!({
                    "model": self.server.model,
                    "messages": messages,
                    "add_generation_prompt": true,
                });
                count(&self.post("/tokenize", &body).await?)
            }
            Dialect::Llamacpp => {
                let rendered = self
                    .post("/apply-template", &json!({"messages": messages}))
                    .await?;
                let prompt = rendered
                    .get("prompt")
                    .and_then(Value::as_str)
                    .ok_or("/apply-template answered without a \"prompt\" string")?;
                self.text(prompt, true).await
            }
        }
    }

    /// POSTs `body` to `path` at the server's root; the JSON answer of a success, else
    /// what went wrong, scrubbed of the endpoint's secrets.
    async fn post(&self, path: &str, body: &Value) -> Result<Value, String> {
        let Server {
            client,
            endpoint,
            base,
            ..
        } = self.server;
        let uri = base
            .join_root(path)
            .map_err(|e| format!("no URL for {path}: {e}"))?;
        let headers = wire::of(endpoint).auth_headers(endpoint);
        self.sent.fetch_add(1, Ordering::Relaxed);
        let (status, bytes) = client
            .post_json(uri, &headers, body, TIMEOUT)
            .await
            .map_err(|e| endpoint.scrub(&format!("{path}: {e}")))?;
        if !status.is_success() {
            let detail = String::from_utf8_lossy(&bytes);
            let detail: String = detail.chars().take(200).collect();
            return Err(endpoint.scrub(&format!("{path} answered {status}: {detail}")));
        }
        serde_json::from_slice(&bytes)
            .map_err(|e| format!("{path} answered with something other than JSON: {e}"))
    }
}

/// The token count in a `/tokenize` answer: `count` (vLLM, SGLang), else the length of
/// `tokens` (llama.cpp).
fn count(answer: &Value) -> Result<u64, String> {
    answer
        .get("count")
        .and_then(Value::as_u64)
        .or_else(|| {
            answer
                .get("tokens")
                .and_then(Value::as_array)
                .map(|t| t.len() as u64)
        })
        .ok_or_else(|| "/tokenize answered without \"count\" or \"tokens\"".to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_count_is_read_from_either_engines_answer() {
        assert_eq!(count(&json!({"count": 7, "tokens": [1, 2]})), Ok(7));
        assert_eq!(count(&json!({"tokens": [1, 2, 3]})), Ok(3));
        assert!(count(&json!({"n": 3})).unwrap_err().contains("count"));
    }

    #[test]
    fn only_engines_with_a_tokenizer_endpoint_are_asked() {
        assert_eq!(dialect(Engine::Vllm), Some(Dialect::Openai));
        assert_eq!(dialect(Engine::Llamacpp), Some(Dialect::Llamacpp));
        assert_eq!(dialect(Engine::Tgi), None);
        assert_eq!(dialect(Engine::Openai), None);
    }

    #[test]
    fn the_mean_of_nothing_is_zero() {
        assert_eq!(mean([2.0, 4.0].into_iter()), 3.0);
        assert_eq!(mean(std::iter::empty()), 0.0);
    }
}
