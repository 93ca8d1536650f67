//! `benchmark_config.json` as written by users: serde types with defaults, unknown keys
//! rejected. Core's `plan::Plan::build` turns a [`RunConfig`] into a validated plan; the
//! result files carry these types as written (with secrets removed).

use std::collections::BTreeMap;
use std::path::PathBuf;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub use check::{CheckConfig, Tolerance};
pub use endpoint::{
    Api, EndpointConfig, Engine, HardwareConfig, HeaderConfig, ModelConfig, ProxyConfig, TlsConfig,
};
pub use gpu_metrics::GpuMetricsConfig;
pub use open_loop::{Arrival, CapacityConfig, CapacitySlo, GammaArrival, RateUnit};
pub use output_tokens::{LengthDist, MAX_OUTPUT_TOKENS, OutputTokens};
pub use phases::{
    AdaptivePhases, DEFAULT_ADAPTIVE_MEASURE, DEFAULT_ADAPTIVE_STABILIZE, DEFAULT_PRECISION,
    PhaseRange, PhasesConfig, PhasesMode, PhasesSpec,
};
pub use server_metrics::ServerMetricsConfig;
pub use server_traces::ServerTracesConfig;
pub use think::{MAX_THINK_S, Think};

/// The whole benchmark configuration.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RunConfig {
    /// Servers to benchmark.
    pub endpoints: Vec<EndpointConfig>,
    /// Models to request from every endpoint.
    pub models: Vec<ModelConfig>,
    /// Scenario ids to run: the built-in A1 A2 B1 B2 C D (the default) and S, or the id of a
    /// scenario file in `scenarios_dir`.
    #[serde(default = "default_scenarios")]
    pub scenarios: Vec<String>,
    /// Concurrencies N to sweep, one closed-loop cell each. A run needs at least one of
    /// `batch_sizes`, `request_rates` or `capacity`.
    #[serde(default)]
    pub batch_sizes: Vec<u32>,
    /// Request rates to sweep, req/s (open loop), beside or instead of `batch_sizes`.
    #[serde(default)]
    pub request_rates: Vec<f64>,
    /// How open-loop arrivals are spaced: `"poisson"` (default), `"constant"`, or
    /// `{"gamma": {"burstiness": k}}`.
    #[serde(default)]
    pub arrival: Arrival,
    /// Open loop: at most this many requests in flight; later arrivals wait client-side
    /// (their queue time counts in latencies from the intended send). Absent: no cap.
    #[serde(default)]
    pub max_concurrency: Option<u32>,
    /// What each open-loop arrival starts: `"requests"` (default) or `"sessions"` (each
    /// arrival starts a session of a session scenario, which runs its turns with their think
    /// times on its own; `request_rates` are then session starts per second and
    /// `max_concurrency` caps sessions active).
    #[serde(default)]
    pub rate_unit: RateUnit,
    /// Search the highest request rate within an SLO for every endpoint/model/scenario.
    #[serde(default)]
    pub capacity: Option<CapacityConfig>,
    /// Fill length, seconds: slots start one at a time, evenly spaced over it (at most one
    /// per second when N <= fill_seconds); an open loop ramps its rate up over it.
    #[serde(default = "default_fill")]
    pub fill_seconds: f64,
    /// Stabilize length, seconds: all N requests in flight and nothing measured, so warm-up
    /// (caches, queues, JIT) stays out of Measure.
    #[serde(default = "default_stabilize")]
    pub stabilize_seconds: f64,
    /// Measure window length, seconds: the only data. The steady verdict needs at least
    /// three request lifetimes in it.
    #[serde(default = "default_measure")]
    pub measure_seconds: f64,
    /// `"fixed"` (default: `stabilize_seconds` and `measure_seconds`) or `"adaptive"`:
    /// Stabilize ends when the warm-up is over and Measure when the 95% intervals of output
    /// tokens/s and TTFT p50 are within `precision`, each phase within its `min`..`max`
    /// (`{"mode": "adaptive", "stabilize": {"min": 10, "max": 120}, "measure": {"min": 20,
    /// "max": 300}, "precision": 0.02}`, the defaults); `stabilize_seconds` and
    /// `measure_seconds` are then not used.
    #[serde(default, skip_serializing_if = "PhasesConfig::is_default")]
    pub phases: PhasesConfig,
    /// Longest wait in Drain for measured requests to finish, seconds. Absent: derived per cell at
    /// the end of Measure as `max(30 s, 2 x the longest request that succeeded at full load
    /// before it)`, at most `request_timeout_seconds`.
    #[serde(default)]
    pub drain_seconds: Option<f64>,
    /// `max_tokens` of each request: a number (every request), or a distribution each
    /// request's length is drawn from (`{"dist": "uniform", "min": 64, "max": 512}`, or
    /// `fixed`, `normal`, `lognormal`, `dataset`); a scenario's `max_tokens` setting
    /// overrides it.
    #[serde(default)]
    pub max_tokens: OutputTokens,
    /// A request not finished after this many seconds fails with `timeout`.
    #[serde(default = "default_request_timeout")]
    pub request_timeout_seconds: f64,
    /// Give up on a cell once every request has failed for this long (5 s at most when no
    /// connection could be opened): the cell is marked `failed` with the server's message
    /// and the endpoint's later cells are skipped.
    #[serde(default = "default_give_up_after")]
    pub give_up_after_seconds: f64,
    /// The results directory (`--output-dir` overrides it).
    #[serde(default = "default_output_dir")]
    pub output_dir: PathBuf,
    /// Stream responses (SSE). Without streaming, TTFT equals E2E and ITL is not measured.
    #[serde(default = "default_true")]
    pub stream: bool,
    /// Ask the server to ignore EOS so every reply is `max_tokens` long; default: true where
    /// the engine supports it (vLLM, SGLang, NIM, llama.cpp and the simulator).
    #[serde(default)]
    pub ignore_eos: Option<bool>,
    /// Seed for every random choice of the workloads and the simulator.
    #[serde(default)]
    pub seed: u64,
    /// Run every listed cell this many times (interleaved across endpoints) for the
    /// across-run spread in `repeats.json`; each repeat sends the same prompts.
    #[serde(default = "default_repeats")]
    pub repeats: u32,
    /// The tokenizer prompt lengths are met in: `server` (each endpoint's own `/tokenize`,
    /// its chat template included, so `usage.prompt_tokens` meets the target; the prompts are
    /// cut once per run at preparation), a `tokenizer.json` path, a Hugging Face model id
    /// (`owner/name` or `owner/name@revision`, its `tokenizer.json` fetched through the hub
    /// cache), or `cl100k_base` / `o200k_base`; default: `server` where every endpoint's
    /// engine has `/tokenize` (vllm, sglang, llamacpp, sim), else the embedded
    /// `cl100k_base`.
    #[serde(default)]
    pub tokenizer: Option<PathBuf>,
    /// Where `plateau fetch-datasets` put the datasets; default: `datasets/` of the plateau
    /// checkout plateau runs in, else `plateau/datasets` in the user's data directory
    /// (`$XDG_DATA_HOME`, else `~/.local/share`).
    #[serde(default)]
    pub datasets_dir: Option<PathBuf>,
    /// A folder of scenario definition files, which override and add to the built-in ones;
    /// default: `scenarios/` in the current directory when it exists, else that of the
    /// plateau checkout plateau runs in, else none (the built-in definitions alone).
    #[serde(default)]
    pub scenarios_dir: Option<PathBuf>,
    /// Store prompt and response text in `requests.jsonl.gz`.
    #[serde(default)]
    pub store_text: bool,
    /// Run a model the endpoint's `/v1/models` does not list. By default a listed set that
    /// lacks a configured `models[].name` stops the run at preflight (exit 3), naming what
    /// is listed: servers such as llama.cpp answer any model name with the one they serve,
    /// so a typo would otherwise measure a model other than the one named in the results.
    /// Per run, not per model: it says the endpoint's list is not authoritative (a gateway
    /// that routes names it does not list), which holds for every model sent to it.
    #[serde(default)]
    pub allow_unlisted_model: bool,
    /// Service-level objectives: goodput counts the measured requests that meet every one
    /// set, and the report's headline says where TTFT p99 crosses `ttft_ms`.
    #[serde(default)]
    pub slo: Option<SloConfig>,
    /// Thresholds of the steady-state verdict.
    #[serde(default)]
    pub steady: SteadyConfig,
    /// Per-scenario overrides of a scenario's settings, keyed by scenario id (`{"D":
    /// {"replies": "dataset"}}`); a setting the scenario's kind does not take is an error.
    #[serde(default)]
    pub scenario_options: BTreeMap<String, serde_json::Value>,
    /// Scraping the server's Prometheus `/metrics` during each cell:
    /// `{"enabled": true, "interval_ms": 250}` by default; `{"enabled": false}` turns it off.
    #[serde(default)]
    pub server_metrics: ServerMetricsConfig,
    /// Read the GPUs' power, energy and utilization during each cell: DCGM exporter URLs,
    /// `nvidia-smi` or `amd-smi` (see [`GpuMetricsConfig`]). Absent: off.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<gpu_metrics::Written>")]
    pub gpu_metrics: Option<GpuMetricsConfig>,
    /// Receive the servers' own spans (OTLP/HTTP) and join each request to the server's
    /// timing of it: `{"listen": "127.0.0.1:4318"}` (see [`ServerTracesConfig`]). Absent: off
    /// (llama.cpp's `timings` are read without it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_traces: Option<ServerTracesConfig>,
    /// What `plateau check` calls a regression: per headline number, how much worse it may
    /// get, in percent of the baseline, signed the way it gets worse (`{"server_tps":
    /// "-3%", "ttft_p99": "+10%"}`). Empty: server_tps and request_rps -3%, ttft_p99 +10%,
    /// tpot_p50 +3%, tpot_p99 and e2e_p99 +5%.
    #[serde(default, skip_serializing_if = "CheckConfig::is_empty")]
    #[schemars(with = "BTreeMap<String, String>")]
    pub check: CheckConfig,
}

/// Service-level objectives; a request meets them when every one given holds.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SloConfig {
    /// TTFT at most this, ms.
    #[serde(default)]
    pub ttft_ms: Option<f64>,
    /// TPOT at most this, ms.
    #[serde(default)]
    pub tpot_ms: Option<f64>,
    /// E2E at most this, ms.
    #[serde(default)]
    pub e2e_ms: Option<f64>,
}

/// Thresholds of the steady-state verdict over the measure window.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SteadyConfig {
    /// Largest coefficient of variation of the output-token series in blocks of one request
    /// lifetime (E2E p50, at least 1 s).
    #[serde(default = "default_max_cv")]
    pub max_cv: f64,
    /// Largest relative change across the window of the block means' linear trend; with six
    /// blocks or more, a larger trend whose slope is not significant at the 5% level also
    /// passes.
    #[serde(default = "default_max_trend")]
    pub max_trend: f64,
    /// Smallest time-weighted mean achieved concurrency, as a fraction of N.
    #[serde(default = "default_min_concurrency")]
    pub min_concurrency_ratio: f64,
    /// Largest difference between two levels of the output-token series (or of TTFT, for
    /// warm-up), as a fraction of the level, that a warm-up left in Measure (MSER) or a
    /// change of level inside it (Pettitt) may show; a larger one that is also significant
    /// makes the cell unsteady.
    #[serde(default = "default_max_shift")]
    pub max_shift: f64,
}

impl Default for SteadyConfig {
    fn default() -> Self {
        SteadyConfig {
            max_cv: default_max_cv(),
            max_trend: default_max_trend(),
            min_concurrency_ratio: default_min_concurrency(),
            max_shift: default_max_shift(),
        }
    }
}

fn default_scenarios() -> Vec<String> {
    ["A1", "A2", "B1", "B2", "C", "D"]
        .map(String::from)
        .to_vec()
}
fn default_fill() -> f64 {
    30.0
}
fn default_stabilize() -> f64 {
    60.0
}
fn default_measure() -> f64 {
    120.0
}
fn default_request_timeout() -> f64 {
    600.0
}
fn default_give_up_after() -> f64 {
    30.0
}
fn default_output_dir() -> PathBuf {
    PathBuf::from("results/latest")
}
fn default_repeats() -> u32 {
    1
}

fn default_true() -> bool {
    true
}
fn default_max_cv() -> f64 {
    0.25
}
fn default_max_trend() -> f64 {
    0.15
}
fn default_min_concurrency() -> f64 {
    0.95
}
fn default_max_shift() -> f64 {
    0.1
}

pub mod check;
mod endpoint;
mod gpu_metrics;
pub mod named;
mod open_loop;
mod output_tokens;
mod phases;
mod server_metrics;
mod server_traces;
mod think;

#[cfg(test)]
mod tests {
    use super::named::Named;
    use super::*;

    #[test]
    fn spec_example_parses_with_defaults() {
        let json = r#"{
          "endpoints": [{"name": "vllm", "url": "http://localhost:8000/v1", "engine": "vllm"}],
          "models": [{"id": "llama-70b", "name": "meta-llama/Llama-3.1-70B-Instruct"}],
          "scenarios": ["A1", "A2", "B1", "B2", "C", "D"],
          "batch_sizes": [1, 2, 8, 16, 32, 64, 128, 256],
          "measure_seconds": 120,
          "stabilize_seconds": 60,
          "max_tokens": 512,
          "output_dir": "results/my_benchmark"
        }"#;
        let c: RunConfig = serde_json::from_str(json).unwrap();
        assert_eq!(c.fill_seconds, 30.0);
        assert_eq!(c.drain_seconds, None, "derived per cell");
        assert!(c.stream);
        assert_eq!(c.endpoints[0].api, Api::Chat);
        assert_eq!(c.endpoints[0].engine, Engine::Vllm);
        assert_eq!(c.batch_sizes.len(), 8);
    }

    #[test]
    fn unknown_keys_are_rejected_at_every_level() {
        let top = r#"{"endpoints": [], "models": [], "batch_sizes": [1], "measure_secondz": 3}"#;
        let err = serde_json::from_str::<RunConfig>(top)
            .unwrap_err()
            .to_string();
        assert!(err.contains("unknown field `measure_secondz`"), "{err}");
        let nested = r#"{"endpoints": [{"name": "a", "engine": "sim", "urll": "x"}],
                         "models": [], "batch_sizes": [1]}"#;
        let err = serde_json::from_str::<RunConfig>(nested)
            .unwrap_err()
            .to_string();
        assert!(err.contains("unknown field `urll`"), "{err}");
    }

    #[test]
    fn unknown_engine_is_rejected() {
        let json = r#"{"endpoints": [{"name": "a", "engine": "vllmm"}], "models": [],
                       "batch_sizes": [1]}"#;
        let err = serde_json::from_str::<RunConfig>(json)
            .unwrap_err()
            .to_string();
        assert!(err.contains("unknown variant `vllmm`"), "{err}");
    }

    #[test]
    fn names_match_serialization() {
        fn check<T: Named + Serialize + for<'de> Deserialize<'de> + PartialEq + std::fmt::Debug>() {
            assert_eq!(T::ALL.len(), T::NAMES.len());
            for (value, name) in T::ALL.iter().zip(T::NAMES) {
                assert_eq!(serde_json::to_value(value).unwrap(), *name);
                assert_eq!(serde_json::from_value::<T>((*name).into()).unwrap(), *value);
            }
        }
        check::<Engine>();
        check::<Api>();
        for e in Engine::ALL {
            assert!(Engine::NAMES.contains(&e.as_str()));
        }
    }

    #[test]
    fn enum_errors_list_the_valid_names_whatever_the_value() {
        let engines = "one of `vllm`, `sglang`, `nim`, `tgi`, `llamacpp`, `openai`, `sim`";
        for (engine, want) in [
            (
                serde_json::json!("vllmm"),
                format!("unknown variant `vllmm`, expected {engines}"),
            ),
            (
                serde_json::json!(3),
                format!("invalid type: integer `3`, expected {engines}"),
            ),
            (
                serde_json::json!(true),
                format!("invalid type: boolean `true`, expected {engines}"),
            ),
            (
                serde_json::json!({"vllm": 1}),
                format!("invalid type: map, expected {engines}"),
            ),
        ] {
            let err = serde_json::from_value::<Engine>(engine).unwrap_err();
            assert_eq!(err.to_string(), want);
        }
        let err = serde_json::from_value::<Api>(serde_json::json!([1])).unwrap_err();
        assert_eq!(
            err.to_string(),
            "invalid type: sequence, expected `chat` or `completions`"
        );
        let err = serde_json::from_str::<Api>("7").unwrap_err();
        assert_eq!(
            err.to_string(),
            "invalid type: integer `7`, expected `chat` or `completions` at line 1 column 1"
        );
    }
}
