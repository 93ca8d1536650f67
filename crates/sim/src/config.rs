//! `SimConfig`: the simulator's JSON configuration, its presets and its validation.

use serde::{Deserialize, Serialize};

use crate::SimError;
use crate::otlp::OtlpConfig;
use crate::wire::WireConfig;

/// The names `SimConfig::from_profile` accepts.
pub const PROFILE_NAMES: [&str; 3] = ["fixed", "realistic", "faulty"];

/// Which timing model generates tokens.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Profile {
    /// Every request gets exactly `fixed.ttft_ms` and `fixed.itl_ms`, with unlimited capacity.
    Fixed,
    /// A continuous-batching engine (`engine.*`): batch bound, chunked prefill, prefix cache.
    #[default]
    Realistic,
}

/// Configuration of the simulated server. Every field has a default; unknown keys are errors.
///
/// The defaults, as JSON (`SimConfig::default()`, the `realistic` preset):
///
/// ```json
/// {
///   "profile": "realistic",
///   "seed": 0,
///   "served_models": [],
///   "fixed": {"ttft_ms": 100.0, "itl_ms": 20.0, "queue_ms": 0.0},
///   "engine": {"max_num_seqs": 32, "max_num_batched_tokens": 4096,
///              "prefill_us_per_token": 25.0, "decode_base_ms": 8.0,
///              "decode_per_seq_ms": 0.25, "prefill_attention_us_per_ktoken": 10.0,
///              "decode_us_per_ktoken": 20.0, "prefix_caching": true, "block_size": 16,
///              "cache_blocks": 32768, "noise": 0.03},
///   "faults": {"http_500_rate": 0.0, "http_429_rate": 0.0, "disconnect_rate": 0.0,
///              "stall_rate": 0.0, "error_event_rate": 0.0},
///   "tokens_per_chunk": 1,
///   "keepalive_ms": 0,
///   "wire": {"close_after_response": false, "events_per_write": 1,
///            "whole_stream_at_end": false, "burst_after_first": false,
///            "usage": "normal", "usage_scale": 1.0, "empty_text_every": 0,
///            "tool_calls": false, "reasoning_tokens": 0}
/// }
/// ```
///
/// `wire` makes the server misbehave like real ones (all off above): `close_after_response`
/// closes the connection after each response without saying so in the headers;
/// `events_per_write: k` writes token chunks `k` to a network write; `whole_stream_at_end`
/// writes the whole stream at once when it ends; `burst_after_first` writes the first token
/// alone, then the rest at once when the stream ends; `usage: "none"` never sends `usage`,
/// `usage: "scaled"` reports `usage_scale` times the true `completion_tokens`;
/// `empty_text_every: k` makes every k-th token's text `""`; `tool_calls` (chat) streams
/// tokens as function-call arguments; `reasoning_tokens: k` (chat) streams the first k tokens
/// as `reasoning_content`. See [`WireConfig`] for the exact wire timing and the true numbers
/// each switch implies for a client.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SimConfig {
    /// Timing model.
    pub profile: Profile,
    /// Seed of every random choice (noise, faults, output words, EOS).
    pub seed: u64,
    /// Models listed by `/v1/models`; when non-empty, other models get 404.
    pub served_models: Vec<String>,
    /// The context length `/v1/models` states for each model (vLLM's `max_model_len`);
    /// absent when unset.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_model_len: Option<u32>,
    /// Timings of the `fixed` profile.
    pub fixed: FixedConfig,
    /// Engine model of the `realistic` profile.
    pub engine: EngineConfig,
    /// Fault injection rates (per request, all default 0).
    pub faults: FaultConfig,
    /// Tokens per SSE chunk after the first token (which is always sent alone).
    pub tokens_per_chunk: u32,
    /// Interval of `: keep-alive` comments while a stream waits for its first token; 0 = off.
    pub keepalive_ms: u64,
    /// How responses are written: connection closes, write grouping, usage, delta kinds.
    pub wire: WireConfig,
    /// Export one OpenTelemetry span per request as vLLM does, to an OTLP/HTTP endpoint
    /// (`{"endpoint": "http://127.0.0.1:4318/v1/traces", "export_interval_ms": 100}`);
    /// off when absent. Under `plateau run` with `server_traces`, an in-process simulator
    /// exports to the run's receiver.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub otlp: Option<OtlpConfig>,
}

/// Timings of the `fixed` profile.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct FixedConfig {
    /// Time from request arrival to the first token.
    pub ttft_ms: f64,
    /// Time between consecutive tokens.
    pub itl_ms: f64,
    /// Of `ttft_ms`, the time a request is reported waiting in the queue before its prefill
    /// (its span's `gen_ai.latency.time_in_queue`; at most `ttft_ms`).
    pub queue_ms: f64,
}

/// The continuous-batching engine model of the `realistic` profile.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct EngineConfig {
    /// Bound on the running batch; further requests wait in a FIFO queue.
    pub max_num_seqs: u32,
    /// Prefill token budget per step (chunked prefill).
    pub max_num_batched_tokens: u32,
    /// Step time added per prefilled token.
    pub prefill_us_per_token: f64,
    /// Fixed part of every step.
    pub decode_base_ms: f64,
    /// Step time added per running sequence.
    pub decode_per_seq_ms: f64,
    /// Attention cost of prefill: step time added per prefilled token per 1,000 tokens of
    /// context before it (cached prompt included), so a long history costs more to extend.
    pub prefill_attention_us_per_ktoken: f64,
    /// Attention cost of decode: step time added per 1,000 tokens of context summed over the
    /// running sequences.
    pub decode_us_per_ktoken: f64,
    /// Whether leading prompt blocks already seen are skipped by prefill.
    pub prefix_caching: bool,
    /// Tokens per KV block (the prefix cache's unit).
    pub block_size: u32,
    /// Capacity of the prefix cache, in blocks (LRU eviction).
    pub cache_blocks: u32,
    /// Relative standard deviation of the step time.
    pub noise: f64,
}

/// Per-request fault probabilities; they are exclusive and must sum to at most 1.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct FaultConfig {
    /// Answer 500 with an error body.
    pub http_500_rate: f64,
    /// Answer 429 with `Retry-After: 1`.
    pub http_429_rate: f64,
    /// Stream some tokens, then drop the connection without `[DONE]`.
    pub disconnect_rate: f64,
    /// Accept and send headers, then never send a token.
    pub stall_rate: f64,
    /// Stream some tokens, then a `data: {"error": ...}` event and `[DONE]` (as vLLM does).
    pub error_event_rate: f64,
}

impl Default for SimConfig {
    fn default() -> Self {
        SimConfig {
            profile: Profile::Realistic,
            seed: 0,
            served_models: Vec::new(),
            max_model_len: None,
            fixed: FixedConfig::default(),
            engine: EngineConfig::default(),
            faults: FaultConfig::default(),
            tokens_per_chunk: 1,
            keepalive_ms: 0,
            wire: WireConfig::default(),
            otlp: None,
        }
    }
}

impl Default for FixedConfig {
    fn default() -> Self {
        FixedConfig {
            ttft_ms: 100.0,
            itl_ms: 20.0,
            queue_ms: 0.0,
        }
    }
}

impl Default for EngineConfig {
    fn default() -> Self {
        EngineConfig {
            max_num_seqs: 32,
            max_num_batched_tokens: 4096,
            prefill_us_per_token: 25.0,
            decode_base_ms: 8.0,
            decode_per_seq_ms: 0.25,
            prefill_attention_us_per_ktoken: 10.0,
            decode_us_per_ktoken: 20.0,
            prefix_caching: true,
            block_size: 16,
            cache_blocks: 32768,
            noise: 0.03,
        }
    }
}

impl FaultConfig {
    /// The rates in the order faults are drawn: 500, 429, disconnect, stall, error event.
    pub(crate) fn rates(&self) -> [(&'static str, f64); 5] {
        [
            ("faults.http_500_rate", self.http_500_rate),
            ("faults.http_429_rate", self.http_429_rate),
            ("faults.disconnect_rate", self.disconnect_rate),
            ("faults.stall_rate", self.stall_rate),
            ("faults.error_event_rate", self.error_event_rate),
        ]
    }
}

impl SimConfig {
    /// A preset: `fixed` (exact 100 ms TTFT / 20 ms ITL), `realistic` (the default engine)
    /// or `faulty` (realistic plus 5% 500s, 3% disconnects, 1% stalls, 2% error events).
    pub fn from_profile(name: &str) -> Result<SimConfig, SimError> {
        let mut config = SimConfig::default();
        match name {
            "fixed" => config.profile = Profile::Fixed,
            "realistic" => {}
            "faulty" => {
                config.faults = FaultConfig {
                    http_500_rate: 0.05,
                    disconnect_rate: 0.03,
                    stall_rate: 0.01,
                    error_event_rate: 0.02,
                    ..FaultConfig::default()
                }
            }
            _ => {
                return Err(SimError::UnknownProfile {
                    name: name.to_owned(),
                    valid: PROFILE_NAMES.join(", "),
                });
            }
        }
        Ok(config)
    }

    /// Decodes a JSON document (missing keys take defaults) and validates it.
    pub fn from_json(text: &str) -> Result<SimConfig, SimError> {
        let de = &mut serde_json::Deserializer::from_str(text);
        let config: SimConfig =
            serde_path_to_error::deserialize(de).map_err(|e| SimError::ParseConfig {
                path: e.path().to_string(),
                message: e.inner().to_string(),
            })?;
        config.validate()?;
        Ok(config)
    }

    /// Checks every value is in range; `Server::start` calls this.
    pub fn validate(&self) -> Result<(), SimError> {
        let bad = |field, reason: &str| {
            Err(SimError::InvalidConfig {
                field,
                reason: reason.to_owned(),
            })
        };
        let non_negative = [
            ("fixed.ttft_ms", self.fixed.ttft_ms),
            ("fixed.itl_ms", self.fixed.itl_ms),
            ("fixed.queue_ms", self.fixed.queue_ms),
            (
                "engine.prefill_us_per_token",
                self.engine.prefill_us_per_token,
            ),
            ("engine.decode_base_ms", self.engine.decode_base_ms),
            ("engine.decode_per_seq_ms", self.engine.decode_per_seq_ms),
            (
                "engine.prefill_attention_us_per_ktoken",
                self.engine.prefill_attention_us_per_ktoken,
            ),
            (
                "engine.decode_us_per_ktoken",
                self.engine.decode_us_per_ktoken,
            ),
            ("engine.noise", self.engine.noise),
        ];
        for (field, value) in non_negative {
            // Also bounds durations so `Duration::from_secs_f64` cannot panic.
            if !(0.0..=1e9).contains(&value) {
                return bad(field, "must be a finite number between 0 and 1e9");
            }
        }
        let at_least_one = [
            ("engine.max_num_seqs", self.engine.max_num_seqs),
            (
                "engine.max_num_batched_tokens",
                self.engine.max_num_batched_tokens,
            ),
            ("engine.block_size", self.engine.block_size),
            ("tokens_per_chunk", self.tokens_per_chunk),
        ];
        for (field, value) in at_least_one {
            if value == 0 {
                return bad(field, "must be at least 1");
            }
        }
        let mut sum = 0.0;
        for (field, rate) in self.faults.rates() {
            if !(0.0..=1.0).contains(&rate) {
                return bad(field, "must be a probability between 0 and 1");
            }
            sum += rate;
        }
        if sum > 1.0 + 1e-9 {
            return bad("faults", "rates must sum to at most 1");
        }
        if self.fixed.queue_ms > self.fixed.ttft_ms {
            return bad(
                "fixed.queue_ms",
                "must be at most fixed.ttft_ms (the queue is part of it)",
            );
        }
        if let Some(o) = &self.otlp {
            o.uri()?;
        }
        self.wire.validate(self.keepalive_ms)
    }

    /// Exports spans to `url` unless an exporter endpoint of its own is set.
    pub fn export_spans_to(&mut self, url: &str) {
        if self.otlp.as_ref().is_none_or(|o| o.endpoint.is_empty()) {
            let interval = self.otlp.as_ref().map(|o| o.export_interval_ms);
            let mut o = OtlpConfig {
                endpoint: url.to_owned(),
                ..OtlpConfig::default()
            };
            if let Some(ms) = interval {
                o.export_interval_ms = ms;
            }
            self.otlp = Some(o);
        }
    }
}

#[cfg(test)]
mod tests;
