//! One request's server timing as its record keeps it ([`ServerTiming`], the record's
//! `server`): what the engine itself said of the request (llama.cpp's `timings`).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Where a record's server timing came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TimingSource {
    /// llama.cpp's `timings` object in its final response.
    Timings,
}

/// The server's own account of one request, durations in us (absent where the engine
/// does not say).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ServerTiming {
    /// Where it came from.
    pub source: TimingSource,
    /// Prefill: the engine's evaluation of the prompt tokens not found in its cache, after
    /// which it samples the first token (llama.cpp's `prompt_ms`), us. It excludes any wait
    /// for a free slot.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prefill_us: Option<u64>,
    /// Decode: the generation of the output tokens (llama.cpp's `predicted_ms`), us.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decode_us: Option<u64>,
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
        assert_eq!(ms_to_us(0.0004), Some(0));
        assert_eq!(ms_to_us(-1.0), None);
        assert_eq!(ms_to_us(f64::NAN), None);
        assert_eq!(ms_to_us(f64::INFINITY), None);
    }
}
