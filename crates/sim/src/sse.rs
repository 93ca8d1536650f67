//! The wire format of responses: vLLM-shaped SSE chunks (preformatted) and whole bodies.
//!
//! A `Writer` renders the parts of a chunk that never change (id, object, created, model)
//! once per request; a content chunk is then one buffer: prefix, words, suffix, optional
//! usage. Field order follows vLLM's pydantic models. A `Shape` (from `WireConfig`) says
//! where each token goes (content, reasoning, tool-call arguments), which tokens have no
//! text, and how usage is reported.

use std::io::Write as _;

use bytes::Bytes;
use rand::Rng;
use rand_chacha::ChaCha8Rng;

use crate::openai::{Api, error_body};
use crate::vocab::push_words;
use crate::wire::{UsageMode, WireConfig};

/// The stream terminator.
pub(crate) const DONE: &[u8] = b"data: [DONE]\n\n";
/// An SSE comment sent while waiting for the first token.
pub(crate) const KEEPALIVE: &[u8] = b": keep-alive\n\n";

/// What one reply's tokens look like: the field each token goes to, which tokens have no
/// text, how usage is reported (from `WireConfig`; the chat-only switches are off for
/// completions).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Shape {
    usage: UsageMode,
    usage_scale: f64,
    empty_text_every: u32,
    reasoning_tokens: u32,
    tool_calls: bool,
}

/// Where a token's text goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Field {
    /// `delta.reasoning_content`.
    Reasoning,
    /// `delta.content`, a tool call's arguments, or a completion's `text`.
    Answer,
}

impl Shape {
    /// The shape `wire` gives replies on `api`.
    pub(crate) fn new(api: Api, wire: &WireConfig) -> Self {
        let chat = api == Api::Chat;
        Shape {
            usage: wire.usage,
            usage_scale: wire.usage_scale,
            empty_text_every: wire.empty_text_every,
            reasoning_tokens: if chat { wire.reasoning_tokens } else { 0 },
            tool_calls: chat && wire.tool_calls,
        }
    }

    /// Field of token `i` (1-based).
    fn field(&self, i: u32) -> Field {
        if i <= self.reasoning_tokens {
            Field::Reasoning
        } else {
            Field::Answer
        }
    }

    /// Whether token `i` (1-based) decodes to text.
    fn has_text(&self, i: u32) -> bool {
        self.empty_text_every == 0 || !i.is_multiple_of(self.empty_text_every)
    }

    /// `completion_tokens` as reported for `n` true tokens.
    fn reported(&self, n: u32) -> u64 {
        match self.usage {
            UsageMode::Scaled => (f64::from(n) * self.usage_scale).round() as u64,
            UsageMode::Normal | UsageMode::None => u64::from(n),
        }
    }
}

/// Formats one request's chunks and draws its words.
#[derive(Debug)]
pub(crate) struct Writer {
    api: Api,
    shape: Shape,
    /// `data: {"id":...,"object":...,"created":...,"model":...,` (ends before `choices`).
    meta: String,
    /// Response id (`chatcmpl-...` / `cmpl-...`).
    id: String,
    /// Model name as given.
    model: String,
    /// Unix seconds of the request.
    created: u64,
    prompt_tokens: u32,
    /// Usage on every chunk (vLLM `continuous_usage_stats`).
    continuous_usage: bool,
    /// A final `choices: []` chunk with usage.
    include_usage: bool,
    rng: ChaCha8Rng,
    /// Completion tokens written so far.
    sent: u32,
}

/// The function name of simulated tool calls.
pub(crate) const TOOL_NAME: &str = "sim_tool";

impl Writer {
    /// A writer for a response labelled `model` shaped by `shape`; `rng` draws the id and the
    /// words. `usage` is what the request asked for: (`include_usage`, `continuous_usage`).
    pub(crate) fn new(
        api: Api,
        model: &str,
        prompt_tokens: u32,
        (include_usage, continuous_usage): (bool, bool),
        shape: Shape,
        created: u64,
        mut rng: ChaCha8Rng,
    ) -> Self {
        let (id_prefix, object) = match api {
            Api::Chat => ("chatcmpl-", "chat.completion.chunk"),
            Api::Completions => ("cmpl-", "text_completion"),
        };
        let id = format!(
            "{id_prefix}{:016x}{:016x}",
            rng.random::<u64>(),
            rng.random::<u64>()
        );
        let quoted = serde_json::Value::from(model).to_string(); // quoted and escaped
        let meta = format!(
            r#"data: {{"id":"{id}","object":"{object}","created":{created},"model":{quoted},"#
        );
        let usage_allowed = shape.usage != UsageMode::None;
        Writer {
            api,
            shape,
            meta,
            id,
            model: model.to_owned(),
            created,
            prompt_tokens,
            continuous_usage: continuous_usage && usage_allowed,
            include_usage: include_usage && usage_allowed,
            rng,
            sent: 0,
        }
    }

    /// The tool call id (derived from the response id).
    fn tool_call_id(&self) -> String {
        format!("call_{}", &self.id[self.id.len() - 24..])
    }

    /// Usage numbers for `completion` true tokens: (prompt, total, completion, reasoning
    /// detail). The completion and total counts are as reported (`usage_scale`).
    fn usage_counts(&self, completion: u32) -> (u32, u64, u64, Option<u32>) {
        let reported = self.shape.reported(completion);
        let reasoning =
            (self.shape.reasoning_tokens > 0).then(|| completion.min(self.shape.reasoning_tokens));
        let total = u64::from(self.prompt_tokens) + reported;
        (self.prompt_tokens, total, reported, reasoning)
    }

    /// Usage object fields for the tokens sent so far, in vLLM's order.
    fn push_usage(&self, out: &mut Vec<u8>) {
        let (prompt, total, completion, reasoning) = self.usage_counts(self.sent);
        let _ = write!(
            out,
            r#""usage":{{"prompt_tokens":{prompt},"total_tokens":{total},"completion_tokens":{completion}"#
        );
        if let Some(r) = reasoning {
            let _ = write!(
                out,
                r#","completion_tokens_details":{{"reasoning_tokens":{r}}}"#
            );
        }
        out.push(b'}');
    }

    fn open(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(self.meta.as_bytes());
        out.extend_from_slice(br#""choices":[{"index":0,"#);
    }

    fn close(&self, out: &mut Vec<u8>) {
        if self.continuous_usage {
            out.push(b',');
            self.push_usage(out);
        }
        out.extend_from_slice(b"}\n\n");
    }

    /// The chat role chunk (`delta: {role: assistant, content: ""}`); empty for completions.
    pub(crate) fn role_chunk(&self, out: &mut Vec<u8>) {
        if self.api == Api::Chat {
            self.open(out);
            out.extend_from_slice(
                br#""delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]"#,
            );
            self.close(out);
        }
    }

    /// The events carrying the next `n` tokens: one, or two where the reasoning ends inside.
    pub(crate) fn content_chunk(&mut self, n: u32) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.meta.len() + 200 + 8 * n as usize);
        let end = self.sent + n;
        while self.sent < end {
            let field = self.shape.field(self.sent + 1);
            let run_end = match field {
                Field::Reasoning => end.min(self.shape.reasoning_tokens),
                Field::Answer => end,
            };
            self.event(&mut out, field, run_end - self.sent);
        }
        out
    }

    /// One event carrying the next `n` tokens, all going to `field`.
    fn event(&mut self, out: &mut Vec<u8>, field: Field, n: u32) {
        self.open(out);
        let first_answer = self.sent == self.shape.reasoning_tokens;
        let suffix: &[u8] = match (self.api, field) {
            (Api::Completions, _) => {
                out.extend_from_slice(br#""text":""#);
                br#"","logprobs":null,"finish_reason":null,"stop_reason":null}]"#
            }
            (Api::Chat, Field::Reasoning) => {
                out.extend_from_slice(br#""delta":{"reasoning_content":""#);
                br#""},"logprobs":null,"finish_reason":null}]"#
            }
            (Api::Chat, Field::Answer) if self.shape.tool_calls => {
                if first_answer {
                    let _ = write!(
                        out,
                        r#""delta":{{"tool_calls":[{{"index":0,"id":"{}","type":"function","function":{{"name":"{TOOL_NAME}","arguments":""#,
                        self.tool_call_id()
                    );
                } else {
                    out.extend_from_slice(
                        br#""delta":{"tool_calls":[{"index":0,"function":{"arguments":""#,
                    );
                }
                br#""}}]},"logprobs":null,"finish_reason":null}]"#
            }
            (Api::Chat, Field::Answer) => {
                out.extend_from_slice(br#""delta":{"content":""#);
                br#""},"logprobs":null,"finish_reason":null}]"#
            }
        };
        for i in self.sent + 1..=self.sent + n {
            if self.shape.has_text(i) {
                push_words(out, &mut self.rng, 1);
            }
        }
        self.sent += n;
        out.extend_from_slice(suffix);
        self.close(out);
    }

    /// The finish reason of a reply that `stopped` on EOS or not.
    fn finish_reason(&self, stopped: bool) -> &'static str {
        if self.shape.tool_calls && self.sent > self.shape.reasoning_tokens {
            "tool_calls"
        } else if stopped {
            "stop"
        } else {
            "length"
        }
    }

    /// The end of a successful stream: the finish chunk, the usage chunk when asked, `[DONE]`.
    pub(crate) fn finish(&self, out: &mut Vec<u8>, stopped: bool) {
        let reason = self.finish_reason(stopped);
        self.open(out);
        let empty = match self.api {
            Api::Chat => r#""delta":{}"#,
            Api::Completions => r#""text":"""#,
        };
        let _ = write!(
            out,
            r#"{empty},"logprobs":null,"finish_reason":"{reason}","stop_reason":null}}]"#
        );
        self.close(out);
        if self.include_usage {
            out.extend_from_slice(self.meta.as_bytes());
            out.extend_from_slice(br#""choices":[],"#);
            self.push_usage(out);
            out.extend_from_slice(b"}\n\n");
        }
        out.extend_from_slice(DONE);
    }

    /// A mid-stream error event (as vLLM sends on an engine error), then `[DONE]`.
    pub(crate) fn error_event(out: &mut Vec<u8>) {
        let body = error_body("simulated engine error", "InternalServerError", 500);
        out.extend_from_slice(b"data: ");
        out.extend_from_slice(body.as_bytes());
        out.extend_from_slice(b"\n\n");
        out.extend_from_slice(DONE);
    }

    /// The whole non-streaming response for `n` tokens.
    pub(crate) fn full_body(mut self, n: u32, stopped: bool) -> Bytes {
        let (mut reasoning, mut answer) = (Vec::new(), Vec::with_capacity(8 * n as usize));
        for i in 1..=n {
            if self.shape.has_text(i) {
                let text = match self.shape.field(i) {
                    Field::Reasoning => &mut reasoning,
                    Field::Answer => &mut answer,
                };
                push_words(text, &mut self.rng, 1);
            }
        }
        self.sent = n;
        let reason = self.finish_reason(stopped);
        let answer = String::from_utf8_lossy(&answer);
        let (object, choice) = match self.api {
            Api::Chat => {
                let mut message = serde_json::json!({"role": "assistant", "content": answer});
                if self.shape.reasoning_tokens > 0 {
                    message["reasoning_content"] = String::from_utf8_lossy(&reasoning).into();
                }
                if self.shape.tool_calls {
                    message["content"] = serde_json::Value::Null;
                    message["tool_calls"] = serde_json::json!([{"id": self.tool_call_id(),
                        "type": "function",
                        "function": {"name": TOOL_NAME, "arguments": answer}}]);
                }
                (
                    "chat.completion",
                    serde_json::json!({"index": 0, "message": message, "logprobs": null,
                        "finish_reason": reason, "stop_reason": null}),
                )
            }
            Api::Completions => (
                "text_completion",
                serde_json::json!({"index": 0, "text": answer, "logprobs": null,
                    "finish_reason": reason, "stop_reason": null}),
            ),
        };
        let mut body = serde_json::json!({
            "id": self.id, "object": object, "created": self.created, "model": self.model,
            "choices": [choice],
        });
        if self.shape.usage != UsageMode::None {
            let (prompt, total, completion, reasoning) = self.usage_counts(n);
            let mut usage = serde_json::json!({"prompt_tokens": prompt, "total_tokens": total,
                "completion_tokens": completion});
            if let Some(r) = reasoning {
                usage["completion_tokens_details"] = serde_json::json!({"reasoning_tokens": r});
            }
            body["usage"] = usage;
        }
        Bytes::from(body.to_string())
    }
}

#[cfg(test)]
mod tests;
