//! The open-loop and capacity keys of `benchmark_config.json`: how requests arrive at a
//! request rate ([`Arrival`]), what each arrival starts ([`RateUnit`]) and what the
//! capacity search looks for ([`CapacityConfig`]).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// How arrivals are spaced at a request rate: `"poisson"`, `"constant"`, or
/// `{"gamma": {"burstiness": k}}`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Arrival {
    /// Exponential gaps (a Poisson process): independent users arriving at random.
    #[default]
    Poisson,
    /// Equal gaps of exactly `1 / rate`.
    Constant,
    /// Gamma-distributed gaps with mean `1 / rate` and shape `burstiness`, as in
    /// `vllm bench serve --burstiness`: 1 is Poisson, below 1 burstier, above 1 more even.
    Gamma(GammaArrival),
}

/// What each open-loop arrival starts, and so what `request_rates` count: `"requests"`
/// (default: one request per arrival) or `"sessions"` (each arrival starts a session that
/// runs all its turns with their think times; the rates are session starts per second).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RateUnit {
    /// One request per arrival (an idle session's next turn in session scenarios).
    #[default]
    Requests,
    /// One new session per arrival, run to its last turn on its own.
    Sessions,
}

impl RateUnit {
    /// The unit of a rate in labels: `req/s` or `sessions/s`.
    pub fn per_second(self) -> &'static str {
        match self {
            RateUnit::Requests => "req/s",
            RateUnit::Sessions => "sessions/s",
        }
    }
}

/// The shape of gamma-distributed gaps.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GammaArrival {
    /// Shape `k` of the gap distribution (1 = Poisson).
    pub burstiness: f64,
}

impl Arrival {
    /// The name in tables and directory notes: `poisson`, `constant`, `gamma(k=0.5)`.
    pub fn label(self) -> String {
        match self {
            Arrival::Poisson => "poisson".into(),
            Arrival::Constant => "constant".into(),
            Arrival::Gamma(g) => format!("gamma(k={})", g.burstiness),
        }
    }
}

/// The capacity search: the highest request rate each endpoint/model/scenario sustains
/// within `slo`, found by probing rates, each probe a full phased open-loop cell.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CapacityConfig {
    /// The bounds a rate must meet (any subset, at least one).
    pub slo: CapacitySlo,
    /// Load to plan for, req/s: the result says how many instances it needs.
    #[serde(default)]
    pub target_rps: Option<f64>,
    /// Concurrent sessions (users) to plan for in session scenarios: the answer in
    /// sessions (from the closed-loop sweep over N) says how many instances they need.
    #[serde(default)]
    pub target_sessions: Option<u32>,
    /// Spare capacity the plans keep: instances for `target_rps x (1 + headroom)` (and
    /// `target_sessions x (1 + headroom)`).
    #[serde(default = "default_headroom")]
    pub headroom: f64,
    /// Stop when the bracket `[passing, failing]` is narrower than this fraction of the
    /// passing rate.
    #[serde(default = "default_resolution")]
    pub resolution: f64,
    /// Most probes per search (each a full cell).
    #[serde(default = "default_max_probes")]
    pub max_probes: u32,
    /// First rate to probe, req/s, when no closed-loop cell of the scenario gives an
    /// estimate; default 1.
    #[serde(default)]
    pub start_rps: Option<f64>,
    /// Longest Measure of a probe, s. Each probe measures for at least `measure_seconds`
    /// and as long as a queue growing by `resolution` of the rate needs to show (derived
    /// from the rate and the request lifetime), up to this.
    #[serde(default = "default_max_probe_seconds")]
    pub max_probe_seconds: f64,
}

/// Capacity bounds: p99s over the measured requests (latencies from the intended send) and
/// the error rate.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CapacitySlo {
    /// TTFT p99 at most this, ms.
    #[serde(default)]
    pub ttft_p99_ms: Option<f64>,
    /// TPOT p99 at most this, ms.
    #[serde(default)]
    pub tpot_p99_ms: Option<f64>,
    /// E2E p99 at most this, ms.
    #[serde(default)]
    pub e2e_p99_ms: Option<f64>,
    /// Error rate (failed / measured requests) at most this fraction.
    #[serde(default)]
    pub max_error_rate: Option<f64>,
}

impl CapacitySlo {
    /// The bounds in words: `TTFT p99 <= 500 ms, error rate <= 1%`.
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        for (name, bound) in [
            ("TTFT", self.ttft_p99_ms),
            ("TPOT", self.tpot_p99_ms),
            ("E2E", self.e2e_p99_ms),
        ] {
            if let Some(ms) = bound {
                parts.push(format!("{name} p99 <= {ms} ms"));
            }
        }
        if let Some(e) = self.max_error_rate {
            parts.push(format!("error rate <= {}%", e * 100.0));
        }
        parts.join(", ")
    }
}

fn default_headroom() -> f64 {
    0.2
}
fn default_resolution() -> f64 {
    0.1
}
fn default_max_probes() -> u32 {
    12
}
fn default_max_probe_seconds() -> f64 {
    300.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arrivals_parse_as_the_issue_writes_them() {
        let parse = |s: &str| serde_json::from_str::<Arrival>(s);
        assert_eq!(parse(r#""poisson""#).unwrap(), Arrival::Poisson);
        assert_eq!(parse(r#""constant""#).unwrap(), Arrival::Constant);
        assert_eq!(
            parse(r#"{"gamma": {"burstiness": 0.5}}"#).unwrap(),
            Arrival::Gamma(GammaArrival { burstiness: 0.5 })
        );
        let err = parse(r#""poison""#).unwrap_err().to_string();
        assert!(err.contains("unknown variant `poison`"), "{err}");
        let err = parse(r#"{"gamma": {"burstyness": 2}}"#)
            .unwrap_err()
            .to_string();
        assert!(err.contains("unknown field `burstyness`"), "{err}");
        assert_eq!(
            Arrival::Gamma(GammaArrival { burstiness: 2.0 }).label(),
            "gamma(k=2)"
        );
    }

    #[test]
    fn rate_units_parse_and_label() {
        let parse = |s: &str| serde_json::from_str::<RateUnit>(s);
        assert_eq!(parse(r#""requests""#).unwrap(), RateUnit::Requests);
        assert_eq!(parse(r#""sessions""#).unwrap(), RateUnit::Sessions);
        let err = parse(r#""session""#).unwrap_err().to_string();
        assert!(err.contains("unknown variant `session`"), "{err}");
        assert_eq!(RateUnit::default().per_second(), "req/s");
        assert_eq!(RateUnit::Sessions.per_second(), "sessions/s");
    }

    #[test]
    fn capacity_defaults() {
        let c: CapacityConfig = serde_json::from_str(r#"{"slo": {"ttft_p99_ms": 500}}"#).unwrap();
        assert_eq!((c.headroom, c.resolution, c.max_probes), (0.2, 0.1, 12));
        assert_eq!(c.slo.ttft_p99_ms, Some(500.0));
        assert_eq!(c.slo.describe(), "TTFT p99 <= 500 ms");
        let slo = CapacitySlo {
            tpot_p99_ms: Some(50.0),
            max_error_rate: Some(0.01),
            ..c.slo
        };
        assert_eq!(
            slo.describe(),
            "TTFT p99 <= 500 ms, TPOT p99 <= 50 ms, error rate <= 1%"
        );
        assert!(serde_json::from_str::<CapacityConfig>(r#"{"slo": {"ttft_p99": 5}}"#).is_err());
    }
}
