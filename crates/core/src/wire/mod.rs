//! The wire-format seam: everything one HTTP API decides — the path, the request body,
//! the auth headers, how one stream event or whole body decodes, which event ends the
//! stream, what an error body says — behind [`Wire`]. The client knows only HTTP and
//! framing (connections, body frames, SSE); a new API is one file beside [`openai`].

pub mod openai;

use http::HeaderMap;
use serde::Deserialize;

pub use openai::OpenAi;

use crate::plan::{Endpoint, RequestOptions};
use crate::sse;
use crate::workload::Prompt;
use plateau_model::config::Api;
use plateau_model::sample::server::{ServerTiming, TimingSource, ms_to_us};

/// The wire format of `endpoint`'s API (OpenAI's for every engine plateau speaks today).
pub fn of(_endpoint: &Endpoint) -> &'static dyn Wire {
    &OpenAi
}

/// One HTTP API's wire format. Pure: no I/O, no clock.
pub trait Wire: Send + Sync {
    /// The path under the endpoint's base URL for `api`.
    fn path(&self, api: Api) -> &'static str;
    /// The JSON body of one request.
    fn body(
        &self,
        endpoint: &Endpoint,
        model: &str,
        prompt: &Prompt,
        opts: &RequestOptions,
    ) -> Vec<u8>;
    /// Auth and extra headers, values marked sensitive where secret.
    fn auth_headers(&self, endpoint: &Endpoint) -> HeaderMap;
    /// Decodes one stream event's data (or a whole non-streaming body), appending what it
    /// generated to `text`.
    fn decode(&self, data: &[u8], text: &mut Text) -> Result<Decoded, serde_json::Error>;
    /// Whether `event` ends the stream.
    fn is_end(&self, event: &sse::Event) -> bool;
    /// A readable message from an error response body.
    fn error_message(&self, body: &[u8]) -> String;
}

/// Token counts from a `usage` object (OpenAI's shape, which other APIs map onto).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
pub struct Usage {
    /// Prompt tokens.
    #[serde(default)]
    pub prompt_tokens: Option<u32>,
    /// Completion tokens (cumulative, on per-chunk usage), reasoning tokens included.
    #[serde(default)]
    pub completion_tokens: Option<u32>,
    /// The breakdown of the completion tokens, where the server gives one.
    #[serde(default)]
    pub completion_tokens_details: Option<CompletionDetails>,
    /// The breakdown of the prompt tokens (vLLM, SGLang, OpenAI: `cached_tokens`).
    #[serde(default)]
    pub prompt_tokens_details: Option<PromptDetails>,
}

impl Usage {
    /// Reasoning tokens among the completion tokens, where the server says.
    pub fn reasoning_tokens(&self) -> Option<u32> {
        self.completion_tokens_details?.reasoning_tokens
    }

    /// Prompt tokens reused from the server's prefix cache, where it says.
    pub fn cached_tokens(&self) -> Option<u32> {
        self.prompt_tokens_details?.cached_tokens
    }
}

/// `usage.prompt_tokens_details`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
pub struct PromptDetails {
    /// Prompt tokens served from the prefix cache.
    #[serde(default)]
    pub cached_tokens: Option<u32>,
}

/// `usage.completion_tokens_details`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
pub struct CompletionDetails {
    /// Reasoning tokens.
    #[serde(default)]
    pub reasoning_tokens: Option<u32>,
}

/// llama.cpp's `timings` object in a final response (tools/server `server.cpp`,
/// `result_timings`): prompt tokens evaluated and their time, tokens reused from its cache,
/// tokens predicted and their time. Numbers are read as floats, whatever their JSON type.
#[derive(Clone, Copy, Debug, Default, PartialEq, Deserialize)]
pub struct Timings {
    /// Prompt tokens evaluated (those not found in the cache).
    #[serde(default)]
    pub prompt_n: Option<f64>,
    /// Time evaluating them, ms.
    #[serde(default)]
    pub prompt_ms: Option<f64>,
    /// Prompt tokens reused from the slot's cache.
    #[serde(default)]
    pub cache_n: Option<f64>,
    /// Tokens predicted.
    #[serde(default)]
    pub predicted_n: Option<f64>,
    /// Time predicting them, ms.
    #[serde(default)]
    pub predicted_ms: Option<f64>,
}

impl Timings {
    /// The server timing these say: prefill the prompt's evaluation, decode the
    /// prediction; prompt tokens those evaluated plus those reused from the cache.
    pub fn server_timing(&self) -> ServerTiming {
        let count = |n: Option<f64>| {
            n.filter(|n| n.is_finite() && *n >= 0.0)
                .map(|n| n.round().min(f64::from(u32::MAX)) as u32)
        };
        let cached = count(self.cache_n);
        ServerTiming {
            prefill_us: self.prompt_ms.and_then(ms_to_us),
            decode_us: self.predicted_ms.and_then(ms_to_us),
            prompt_tokens: count(self.prompt_n).map(|p| p.saturating_add(cached.unwrap_or(0))),
            cached_tokens: cached,
            output_tokens: count(self.predicted_n),
            ..ServerTiming::new(TimingSource::Timings)
        }
    }
}

/// The generated text of one response, as it arrives.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Text {
    /// Every generated piece in arrival order: answer, reasoning and tool-call text (what
    /// output tokens are counted over).
    pub all: String,
    /// The answer alone (`content` / `text`): what a conversation sends back as history.
    pub answer: String,
    /// Reasoning text (`reasoning_content` / `reasoning` deltas).
    pub reasoning: String,
    /// The tool calls the reply made, their deltas joined by `index` (an agent session
    /// sends them back as the assistant message's `tool_calls`).
    pub tool_calls: Vec<crate::workload::ToolCall>,
}

/// What one stream event or whole body carried.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Decoded {
    /// Bytes of generated text appended to [`Text::all`].
    pub content_len: usize,
    /// Bytes of answer text among them.
    pub answer_len: usize,
    /// Bytes of reasoning text among them.
    pub reasoning_len: usize,
    /// Whether a choice carried a tool-call delta (output, even with no argument text).
    pub tool_call: bool,
    /// The `usage` object, if present.
    pub usage: Option<Usage>,
    /// Whether a choice carried a `finish_reason`.
    pub finished: bool,
    /// The server's error message, if this was an error object.
    pub error: Option<String>,
    /// llama.cpp's `timings`, if present.
    pub timings: Option<Timings>,
}

impl Decoded {
    /// Whether this event is token-bearing on its own: generated text, a tool-call delta,
    /// or the `finish_reason` that ends the output (its token may decode to no text).
    pub fn carries_output(&self) -> bool {
        self.content_len > 0 || self.tool_call || self.finished
    }
}
