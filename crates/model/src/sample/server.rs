//! One request's server timing as its record keeps it ([`ServerTiming`], the record's
//! `server`): what the engine itself said of the request (the span it exported for it, or
//! llama.cpp's `timings`).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Where a record's server timing came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TimingSource {
    /// The OpenTelemetry span the engine exported for the request (vLLM, SGLang), joined
    /// by the trace id plateau sent in its `traceparent`.
    Span,
    /// llama.cpp's `timings` object in its final response.
    Timings,
}

/// The server's own account of one request, durations in us (absent where the engine
/// does not say).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ServerTiming {
    /// Where it came from.
    pub source: TimingSource,
    /// Time waiting for a place in the running batch, us (vLLM's `time_in_queue`, SGLang's
    /// `prefill_waiting` span; llama.cpp does not say).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queue_us: Option<u64>,
    /// The server's time to first token, from the request's arrival to its first token, us
    /// (spans only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttft_us: Option<u64>,
    /// Prefill: the engine's evaluation of the prompt tokens not found in its cache, after
    /// which it samples the first token (llama.cpp's `prompt_ms`; a span's
    /// `time_in_model_prefill`, from being scheduled, the queue taken off for SGLang), us.
    /// It excludes any wait for a free slot.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prefill_us: Option<u64>,
    /// Decode: the generation of the output tokens (llama.cpp's `predicted_ms`, a span's
    /// `time_in_model_decode`), us.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decode_us: Option<u64>,
    /// The server's end to end, from arrival to the last token, us (spans only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub e2e_us: Option<u64>,
    /// Prompt tokens the server evaluated plus those it reused from its cache.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt_tokens: Option<u32>,
    /// Prompt tokens it reused from its prefix cache (llama.cpp's `cache_n`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cached_tokens: Option<u32>,
    /// Output tokens the server counted (llama.cpp's `predicted_n`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_tokens: Option<u32>,
}

impl ServerTiming {
    /// A timing from `source` with nothing known yet.
    pub fn new(source: TimingSource) -> ServerTiming {
        ServerTiming {
            source,
            queue_us: None,
            ttft_us: None,
            prefill_us: None,
            decode_us: None,
            e2e_us: None,
            prompt_tokens: None,
            cached_tokens: None,
            output_tokens: None,
        }
    }
}

/// Seconds (a span attribute, a double) as whole us; `None` for what is negative or not
/// finite.
pub fn seconds_to_us(s: f64) -> Option<u64> {
    (s.is_finite() && s >= 0.0).then(|| (s * 1e6).round() as u64)
}

/// Milliseconds (llama.cpp's `timings`) as whole us; `None` for what is negative or not
/// finite.
pub fn ms_to_us(ms: f64) -> Option<u64> {
    (ms.is_finite() && ms >= 0.0).then(|| (ms * 1e3).round() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_convert_and_nonsense_is_absent() {
        assert_eq!(ms_to_us(12.5), Some(12_500));
        assert_eq!(seconds_to_us(0.0581), Some(58_100));
        assert_eq!(seconds_to_us(-1.0), None);
        assert_eq!(ms_to_us(0.0004), Some(0));
        assert_eq!(ms_to_us(-1.0), None);
        assert_eq!(ms_to_us(f64::NAN), None);
        assert_eq!(ms_to_us(f64::INFINITY), None);
    }
}
