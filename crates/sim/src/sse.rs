//! The wire format of responses: vLLM-shaped SSE chunks (preformatted) and whole bodies.
//!
//! A `Writer` renders the parts of a chunk that never change (id, object, created, model)
//! once per request; a content chunk is then one buffer: prefix, words, suffix, optional
//! usage. Field order follows vLLM's pydantic models.

use std::io::Write as _;

use bytes::Bytes;
use rand::Rng;
use rand_chacha::ChaCha8Rng;

use crate::openai::{Api, error_body};
use crate::vocab::push_words;

/// The stream terminator.
pub(crate) const DONE: &[u8] = b"data: [DONE]\n\n";
/// An SSE comment sent while waiting for the first token.
pub(crate) const KEEPALIVE: &[u8] = b": keep-alive\n\n";

/// Formats one request's chunks and draws its words.
#[derive(Debug)]
pub(crate) struct Writer {
    api: Api,
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

/// Usage object fields for `prompt` and `completion` tokens, in vLLM's order.
fn push_usage(out: &mut Vec<u8>, prompt: u32, completion: u32) {
    let total = u64::from(prompt) + u64::from(completion);
    let _ = write!(
        out,
        r#""usage":{{"prompt_tokens":{prompt},"total_tokens":{total},"completion_tokens":{completion}}}"#
    );
}

impl Writer {
    /// A writer for a response labelled `model`; `rng` draws the id and the words.
    pub(crate) fn new(
        api: Api,
        model: &str,
        prompt_tokens: u32,
        (include_usage, continuous_usage): (bool, bool),
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
        Writer {
            api,
            meta,
            id,
            model: model.to_owned(),
            created,
            prompt_tokens,
            continuous_usage,
            include_usage,
            rng,
            sent: 0,
        }
    }

    fn open(&self, extra: usize) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.meta.len() + 200 + extra);
        out.extend_from_slice(self.meta.as_bytes());
        out.extend_from_slice(br#""choices":[{"index":0,"#);
        out
    }

    fn close(&self, out: &mut Vec<u8>) {
        if self.continuous_usage {
            out.push(b',');
            push_usage(out, self.prompt_tokens, self.sent);
        }
        out.extend_from_slice(b"}\n\n");
    }

    /// The chat role chunk (`delta: {role: assistant, content: ""}`); empty for completions.
    pub(crate) fn role_chunk(&self, out: &mut Vec<u8>) {
        if self.api == Api::Chat {
            let mut chunk = self.open(0);
            chunk.extend_from_slice(
                br#""delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]"#,
            );
            self.close(&mut chunk);
            out.extend_from_slice(&chunk);
        }
    }

    /// A content chunk carrying `n` new tokens.
    pub(crate) fn content_chunk(&mut self, n: u32) -> Vec<u8> {
        let mut out = self.open(8 * n as usize);
        out.extend_from_slice(match self.api {
            Api::Chat => br#""delta":{"content":""#.as_slice(),
            Api::Completions => br#""text":""#.as_slice(),
        });
        push_words(&mut out, &mut self.rng, n);
        self.sent += n;
        out.extend_from_slice(match self.api {
            Api::Chat => br#""},"logprobs":null,"finish_reason":null}]"#.as_slice(),
            Api::Completions => br#"","logprobs":null,"finish_reason":null,"stop_reason":null}]"#,
        });
        self.close(&mut out);
        out
    }

    /// The end of a successful stream: the finish chunk, the usage chunk when asked, `[DONE]`.
    pub(crate) fn finish(&self, out: &mut Vec<u8>, stopped: bool) {
        let reason = if stopped { "stop" } else { "length" };
        let mut chunk = self.open(0);
        let empty = match self.api {
            Api::Chat => r#""delta":{}"#,
            Api::Completions => r#""text":"""#,
        };
        let _ = write!(
            chunk,
            r#"{empty},"logprobs":null,"finish_reason":"{reason}","stop_reason":null}}]"#
        );
        self.close(&mut chunk);
        out.extend_from_slice(&chunk);
        if self.include_usage {
            out.extend_from_slice(self.meta.as_bytes());
            out.extend_from_slice(br#""choices":[],"#);
            push_usage(out, self.prompt_tokens, self.sent);
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
        let mut text = Vec::with_capacity(8 * n as usize);
        push_words(&mut text, &mut self.rng, n);
        let text = String::from_utf8_lossy(&text);
        let reason = if stopped { "stop" } else { "length" };
        let (object, choice) = match self.api {
            Api::Chat => (
                "chat.completion",
                serde_json::json!({"index": 0, "message": {"role": "assistant", "content": text},
                    "logprobs": null, "finish_reason": reason, "stop_reason": null}),
            ),
            Api::Completions => (
                "text_completion",
                serde_json::json!({"index": 0, "text": text, "logprobs": null,
                    "finish_reason": reason, "stop_reason": null}),
            ),
        };
        let p = self.prompt_tokens;
        let body = serde_json::json!({
            "id": self.id, "object": object, "created": self.created, "model": self.model,
            "choices": [choice],
            "usage": {"prompt_tokens": p, "total_tokens": u64::from(p) + u64::from(n),
                "completion_tokens": n},
        });
        Bytes::from(body.to_string())
    }
}

#[cfg(test)]
mod tests;
