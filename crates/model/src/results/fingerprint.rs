//! A cell's fingerprint: every input that shapes its numbers ([`Inputs`]: endpoint URL,
//! model, scenario, N, phases, request settings, header names, tokenizer, seed, workload
//! provenance) and a stable hash of them. Stored in `summary.json`; `--resume` reuses a
//! cell only when the fingerprint of what it would run now equals the stored one, and
//! [`differences`] names the fields that changed. Secrets never enter it: headers by name
//! only, the URL as the results show it.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::config::{Api, Engine, SloConfig, SteadyConfig};
use crate::load::LoadInfo;
use crate::results::workload::WorkloadInfo;

/// Prefix of [`Fingerprint::hash`], naming the algorithm.
const HASH_PREFIX: &str = "fnv1a64:";

/// The inputs of a cell and their hash.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Fingerprint {
    /// `fnv1a64:` and 16 hex digits: FNV-1a (64 bit) of [`Inputs`] as canonical JSON
    /// (object keys sorted, no whitespace).
    pub hash: String,
    /// What was hashed.
    pub inputs: Inputs,
}

/// Everything that shapes a cell's numbers.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Inputs {
    /// Endpoint base URL as the results show it (`sim://` for the in-process simulator,
    /// whose loopback port changes every run).
    pub url: String,
    /// Settings of the in-process simulator (`default` when none); absent for URLs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sim: Option<Value>,
    /// Server software (selects request extras).
    pub engine: Engine,
    /// The request's `model`.
    pub model: String,
    /// Scenario id.
    pub scenario: String,
    /// Target concurrency N, or the open loop's rate, arrival and cap.
    #[serde(flatten)]
    pub load: LoadInfo,
    /// Fill length, s.
    pub fill_s: f64,
    /// Stabilize length, s.
    pub stabilize_s: f64,
    /// Measure length, s.
    pub measure_s: f64,
    /// Drain limit: `configured N s` or `derived, at most N s`.
    pub drain: String,
    /// Per-request time limit, s.
    pub request_timeout_s: f64,
    /// `max_tokens` of every request; absent when each request draws its own (the
    /// distribution is in `workload.output_tokens`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u32>,
    /// `ignore_eos` sent.
    pub ignore_eos: bool,
    /// Streaming on.
    pub stream: bool,
    /// Chat or completions.
    pub api: Api,
    /// Extra fields merged into every request body.
    pub extra_body: Map<String, Value>,
    /// Names of the extra headers, lowercase and sorted (never their values).
    pub header_names: Vec<String>,
    /// The client tokenizer.
    pub tokenizer: String,
    /// Seed of the workload and the simulator.
    pub seed: u64,
    /// Where the prompts came from (dataset, revision, built-in text, definition).
    pub workload: WorkloadInfo,
    /// `scenario_options` of this scenario, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scenario_options: Option<Value>,
    /// Goodput objectives (they shape `goodput`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slo: Option<SloConfig>,
    /// Steady-state thresholds (they shape the verdict).
    pub steady: SteadyConfig,
    /// Adaptive phases' ranges and precision (`stabilize_s` and `measure_s` are then
    /// their maxima); absent with fixed phases, so fixed cells keep their hash.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub adaptive_phases: Option<crate::config::AdaptivePhases>,
}

/// The hash of `inputs` as written in [`Fingerprint::hash`].
pub fn hash_of(inputs: &Value) -> String {
    let mut text = String::new();
    canonical(inputs, &mut text);
    format!("{HASH_PREFIX}{:016x}", fnv1a64(text.as_bytes()))
}

/// The fields of `old` and `new` (fingerprint inputs as JSON) that differ, each as
/// `field old -> new` (nested fields dotted: `workload.source`), in key order.
pub fn differences(old: &Value, new: &Value) -> Vec<String> {
    let mut out = Vec::new();
    diff("", old, new, &mut out);
    out
}

fn diff(path: &str, old: &Value, new: &Value, out: &mut Vec<String>) {
    match (old, new) {
        (Value::Object(a), Value::Object(b)) => {
            let mut keys: Vec<&String> = a.keys().chain(b.keys()).collect();
            keys.sort();
            keys.dedup();
            for key in keys {
                let field = if path.is_empty() {
                    key.clone()
                } else {
                    format!("{path}.{key}")
                };
                match (a.get(key), b.get(key)) {
                    (Some(x @ Value::Object(_)), Some(y @ Value::Object(_))) => {
                        diff(&field, x, y, out)
                    }
                    (x, y) if x != y => {
                        out.push(format!("{field} {} -> {}", shown(x), shown(y)));
                    }
                    _ => {}
                }
            }
        }
        _ if old != new => out.push(format!(
            "{} {} -> {}",
            if path.is_empty() { "fingerprint" } else { path },
            shown(Some(old)),
            shown(Some(new))
        )),
        _ => {}
    }
}

/// A value for a log line: strings bare, the rest as compact JSON, long ones cut.
fn shown(v: Option<&Value>) -> String {
    const MAX: usize = 80;
    let text = match v {
        None => return "(absent)".into(),
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
    };
    if text.chars().count() <= MAX {
        text
    } else {
        let cut: String = text.chars().take(MAX).collect();
        format!("{cut}...")
    }
}

/// JSON with object keys sorted and no whitespace, whatever order the map keeps.
fn canonical(v: &Value, out: &mut String) {
    match v {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            out.push('{');
            for (i, key) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String(key.clone()).to_string());
                out.push(':');
                if let Some(value) = map.get(key) {
                    canonical(value, out);
                }
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                canonical(item, out);
            }
            out.push(']');
        }
        scalar => out.push_str(&scalar.to_string()),
    }
}

/// 64-bit FNV-1a: small, stable across platforms and versions, enough to tell inputs
/// apart (they are stored beside the hash and compared field by field).
pub fn fnv1a64(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}
