//! The one table of what each engine's request span says, by attribute name, read from the
//! engine's own source at the version named in [`SpanTable::read_from`]. vLLM and SGLang
//! both use the `gen_ai.*` names of their `SpanAttributes` classes (copied from the
//! OpenTelemetry GenAI conventions, with vLLM's own latency additions); they differ in where
//! the queue is and in what their prefill covers:
//!
//! | quantity | vLLM | SGLang |
//! |---|---|---|
//! | span | `llm_request` (kind SERVER), one per request | root span `"{role} Req {rid[:8]}"` (`" Req <rid>"` on a unified server), with thread and stage spans under it |
//! | queue | `gen_ai.latency.time_in_queue` | the `prefill_waiting` stage span's duration |
//! | TTFT | `gen_ai.latency.time_to_first_token` | same |
//! | prefill | `gen_ai.latency.time_in_model_prefill` (scheduled to first token) | same attribute, but from the dispatch to the scheduler: the queue is taken off |
//! | decode | `gen_ai.latency.time_in_model_decode` | same |
//! | E2E | `gen_ai.latency.e2e` | same |
//! | prompt / output tokens | `gen_ai.usage.prompt_tokens` / `gen_ai.usage.completion_tokens` | same |
//! | cached prompt tokens | (not sent) | `gen_ai.usage.cached_tokens` |
//!
//! Durations are seconds (floats), token counts integers. plateau's simulator sends vLLM's.

use crate::config::Engine;

/// Where an engine puts a request's queue time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Queue {
    /// An attribute of the request's span, seconds.
    Attribute(&'static str),
    /// The duration of a span of this name in the request's trace.
    Span(&'static str),
}

/// The attribute names of one engine's request span.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SpanTable {
    /// The engine family, as `summary.json` names it (`vllm`, `sglang`).
    pub name: &'static str,
    /// Where the names were read: repository, commit and files.
    pub read_from: &'static str,
    /// Queue time.
    pub queue: Queue,
    /// Server TTFT, seconds.
    pub ttft: &'static str,
    /// Prefill, seconds.
    pub prefill: &'static str,
    /// Whether [`SpanTable::prefill`] includes the queue (then it is taken off).
    pub prefill_includes_queue: bool,
    /// Decode, seconds.
    pub decode: &'static str,
    /// E2E, seconds.
    pub e2e: &'static str,
    /// Prompt tokens.
    pub prompt_tokens: &'static str,
    /// Output tokens.
    pub output_tokens: &'static str,
    /// Cached prompt tokens; `None` when not sent.
    pub cached_tokens: Option<&'static str>,
}

/// vLLM (also NIM's vLLM backend and plateau's simulator).
pub const VLLM: SpanTable = SpanTable {
    name: "vllm",
    read_from: "vllm-project/vllm d0782260 (vllm/v1/engine/output_processor.py \
                `do_tracing`), 28ed1fb (vllm/v1/metrics/stats.py), 733dac5 \
                (vllm/foundation/observability/tracing/utils.py `SpanAttributes`)",
    queue: Queue::Attribute("gen_ai.latency.time_in_queue"),
    ttft: "gen_ai.latency.time_to_first_token",
    prefill: "gen_ai.latency.time_in_model_prefill",
    prefill_includes_queue: false,
    decode: "gen_ai.latency.time_in_model_decode",
    e2e: "gen_ai.latency.e2e",
    prompt_tokens: "gen_ai.usage.prompt_tokens",
    output_tokens: "gen_ai.usage.completion_tokens",
    cached_tokens: None,
};

/// SGLang.
pub const SGLANG: SpanTable = SpanTable {
    name: "sglang",
    read_from: "sgl-project/sglang b8e5a7c (python/sglang/srt/observability/trace.py), \
                00ce49e (observability/req_time_stats.py `convert_to_gen_ai_span_attrs`), \
                2d396b5 (managers/tokenizer_manager_components/request_tracing.py \
                `make_span_attrs`)",
    queue: Queue::Span("prefill_waiting"),
    ttft: "gen_ai.latency.time_to_first_token",
    prefill: "gen_ai.latency.time_in_model_prefill",
    prefill_includes_queue: true,
    decode: "gen_ai.latency.time_in_model_decode",
    e2e: "gen_ai.latency.e2e",
    prompt_tokens: "gen_ai.usage.prompt_tokens",
    output_tokens: "gen_ai.usage.completion_tokens",
    cached_tokens: Some("gen_ai.usage.cached_tokens"),
};

/// The table of `engine`'s spans: SGLang's for SGLang, vLLM's for vLLM, NIM and the
/// simulator; `None` for a server plateau cannot tell (its spans are read by [`detect`]).
pub fn of(engine: Engine) -> Option<&'static SpanTable> {
    match engine {
        Engine::Sglang => Some(&SGLANG),
        Engine::Vllm | Engine::Nim | Engine::Sim => Some(&VLLM),
        Engine::Tgi | Engine::Llamacpp | Engine::Openai => None,
    }
}

/// The table a request span itself says it follows: vLLM's `llm_request`, or SGLang's
/// root span (`"{role} Req {rid[:8]}"`, the role empty when unified, with a `rid`
/// attribute). `None` for any other span.
pub fn detect(name: &str, has_rid: bool) -> Option<&'static SpanTable> {
    if name == "llm_request" {
        Some(&VLLM)
    } else if has_rid && (name.starts_with("Req ") || name.contains(" Req ")) {
        Some(&SGLANG)
    } else {
        None
    }
}

/// The attribute carrying the engine's request id (vLLM: `chatcmpl-<X-Request-Id>`, or
/// `cmpl-` on `/v1/completions`; SGLang: its `rid`).
pub const REQUEST_ID: &str = "gen_ai.request.id";

impl SpanTable {
    /// Whether a span with this attribute is a request's timing span.
    pub fn is_timing_attribute(&self, key: &str) -> bool {
        key == self.ttft || key == self.e2e
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_name_their_engine_and_engines_their_table() {
        assert_eq!(detect("llm_request", false).map(|t| t.name), Some("vllm"));
        assert_eq!(
            detect(" Req 9f86d081", true).map(|t| t.name),
            Some("sglang")
        );
        assert_eq!(
            detect("prefill Req 9f86d081", true).map(|t| t.name),
            Some("sglang")
        );
        assert_eq!(detect(" Req 9f86d081", false), None);
        assert_eq!(detect("prefill_waiting", false), None);
        assert_eq!(of(Engine::Sim).map(|t| t.name), Some("vllm"));
        assert_eq!(of(Engine::Sglang).map(|t| t.name), Some("sglang"));
        assert_eq!(of(Engine::Openai), None);
    }
}
