//! `capacity.json`: the answer of each capacity search (the highest request rate within
//! the SLO), how it was found (every probe, each a full open-loop cell with its own
//! directory), which bound failed first, how sure the answer is, and the instance plan;
//! for session scenarios also the answer in concurrent sessions ([`sessions`]) and in
//! session arrivals per minute ([`session_rates`]).
//! Its JSON Schema is checked in at `schemas/capacity.schema.json`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::config::CapacitySlo;
use crate::load::format_rps;
use crate::results::summary::CellStatus;

pub mod session_rates;
pub mod sessions;

pub use session_rates::{SessionRateCapacity, SessionRateCell};
pub use sessions::{SessionCapacity, SessionCell, SessionPlan, SessionStatus};

/// File name, at the top of the results directory.
pub const CAPACITY_FILE: &str = "capacity.json";

/// Every search of a run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CapacityReport {
    /// The bounds every probe was judged by.
    pub slo: CapacitySlo,
    /// A search stops when its bracket is narrower than this fraction of the passing rate.
    pub resolution: f64,
    /// Load the instance plans are for, req/s.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_rps: Option<f64>,
    /// Spare capacity the plans keep (0.2 = plan for 120% of the target).
    pub headroom: f64,
    /// One search per endpoint x model x scenario, in run order.
    pub searches: Vec<CapacitySearch>,
    /// Concurrent sessions the instance plans in sessions are for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_sessions: Option<u32>,
    /// The answer in concurrent sessions of each session scenario with closed-loop cells,
    /// in run order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sessions: Vec<SessionCapacity>,
    /// The answer in session arrivals per minute of each session scenario with open-loop
    /// cells of sessions (`rate_unit: "sessions"`), in run order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub session_rates: Vec<SessionRateCapacity>,
}

/// How a search ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SearchStatus {
    /// The bracket narrowed to the resolution: `max_rps` is the answer.
    Found,
    /// `max_probes` ran out first: `max_rps` is the best passing rate, the bracket wider
    /// than asked.
    ProbesExhausted,
    /// Even the lowest rate probed failed the SLO.
    NonePassed,
    /// Ctrl-C, a failed cell or a skipped endpoint stopped the search.
    Stopped,
}

/// Where the first probe's rate came from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "source", rename_all = "snake_case")]
pub enum StartRate {
    /// Little's law on a closed-loop cell of the same scenario: the request rate it
    /// completed at the highest N whose p99s met the SLO (else its lowest N).
    ClosedLoop {
        /// The cell (`c8`).
        cell: String,
        /// Its completed requests per second.
        request_rps: f64,
    },
    /// `capacity.start_rps`.
    Configured,
    /// Neither: 1 req/s.
    Default,
}

/// One bound checked on one probe.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Check {
    /// `ttft_p99_ms`, `tpot_p99_ms`, `e2e_p99_ms`, `error_rate`, `overloaded`,
    /// `achieved_rps` (completions fell short of arrivals: the server did not carry the
    /// rate) or, judging a closed-loop cell in sessions, `steady` (value 1 when steady).
    pub bound: String,
    /// The limit (0 for `overloaded`, 1 for `steady`; the offered rate for `achieved_rps`).
    pub limit: f64,
    /// The probe's value; absent when not measured (no successful request).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<f64>,
    /// Upper end of the value's 95% confidence interval (p99s with enough samples).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub upper_ci: Option<f64>,
    /// Lower end of that interval.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lower_ci: Option<f64>,
    /// Whether the bound held.
    pub passed: bool,
}

/// One probe: a full phased open-loop cell at one rate.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Probe {
    /// Target rate, req/s.
    pub rps: f64,
    /// The cell directory, relative to the results directory.
    pub dir: String,
    /// How the cell ended.
    pub status: CellStatus,
    /// Whether every bound held (and the cell completed).
    pub passed: bool,
    /// Each bound with its value.
    pub checks: Vec<Check>,
    /// Requests completed per second in the window.
    pub achieved_rps: f64,
    /// Output tokens per second in the window (server throughput, direct).
    pub output_tps: f64,
    /// Length of the probe's Measure, s.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub measure_s: Option<f64>,
    /// E2E p50 of its measured requests, ms: the request lifetime the next probe's window
    /// is derived from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub e2e_p50_ms: Option<f64>,
}

impl Probe {
    /// Whether the probe saw the server at its limit: its queue grew (`overloaded`) or its
    /// completions fell short of its arrivals (`achieved_rps`). Its achieved rate is then
    /// the server's saturation throughput.
    pub fn saturated(&self) -> bool {
        self.checks
            .iter()
            .any(|c| !c.passed && (c.bound == "overloaded" || c.bound == "achieved_rps"))
    }
}

/// How sure the answer is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Confidence {
    /// Every bound at the answer holds with its whole 95% interval, and the bound that
    /// failed just above it failed with its whole interval.
    High,
    /// The answer passed and its neighbour failed, but an interval straddles its limit
    /// (or a p99 rests on under 1000 samples): the true capacity may sit a probe away.
    Medium,
    /// No bracket (nothing passed, nothing failed, or the search stopped).
    Low,
}

/// The instances a target load needs at the found capacity.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct InstancePlan {
    /// Load to serve, req/s.
    pub target_rps: f64,
    /// `ceil(target / max_rps)`.
    pub instances: u32,
    /// Spare fraction kept.
    pub headroom: f64,
    /// `ceil(target x (1 + headroom) / max_rps)`.
    pub instances_with_headroom: u32,
}

/// One search: endpoint x model x scenario.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CapacitySearch {
    /// Endpoint name.
    pub endpoint: String,
    /// Model id.
    pub model: String,
    /// Scenario id.
    pub scenario: String,
    /// How it ended.
    pub status: SearchStatus,
    /// The answer, req/s: the rate the server completed at the highest rate that met the
    /// SLO (`passed_rps`), or that rate when it completed as much. A server completes no
    /// more than it carries, so the answer is never above its capacity, whatever the
    /// probe's length: a rate slightly over capacity that a short probe let pass is
    /// answered with what the server completed at it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_rps: Option<f64>,
    /// The highest rate offered that met the SLO, req/s.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub passed_rps: Option<f64>,
    /// Output tokens per second the server delivered at that rate.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_output_tps: Option<f64>,
    /// The lowest rate that failed, req/s: the capacity lies in `[max_rps, failing_rps)`,
    /// and below `ceiling_rps` when that is lower.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failing_rps: Option<f64>,
    /// The server's saturation throughput as the search measured it: the lowest achieved
    /// rate of a probe whose queue grew or whose completions fell short of its arrivals.
    /// No answer is at or above it, and a probe that met the SLO above it is left out (its
    /// window was too short to show the queue).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ceiling_rps: Option<f64>,
    /// The bound that failed at the lowest rate (the first to break as load grows).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_failed: Option<String>,
    /// How sure the answer is.
    pub confidence: Confidence,
    /// Why that confidence.
    pub confidence_reasons: Vec<String>,
    /// Where the first rate came from.
    pub start: StartRate,
    /// Instances for `target_rps`, when given and a rate passed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plan: Option<InstancePlan>,
    /// Every probe, in the order run.
    pub probes: Vec<Probe>,
}

impl CapacitySearch {
    /// The answer in one line, for the log and the console:
    /// `sim/m/A1: 22.3 req/s (2230 output tok/s) within the SLO; ...`.
    pub fn answer(&self) -> String {
        let a = self;
        let who = format!("{}/{}/{}", a.endpoint, a.model, a.scenario);
        let Some(max) = a.max_rps else {
            return match a.status {
                SearchStatus::Stopped => format!("{who}: search stopped before an answer"),
                _ => format!(
                    "{who}: no rate met the SLO (lowest probed {} req/s)",
                    a.probes.iter().map(|p| p.rps).fold(f64::INFINITY, f64::min)
                ),
            };
        };
        let mut line = format!(
            "{who}: {} req/s ({:.0} output tok/s) within the SLO",
            format_rps(max),
            a.max_output_tps.unwrap_or_default()
        );
        if let Some(fail) = a.failing_rps {
            line += &format!(
                "; {} fails at {} req/s",
                a.first_failed.as_deref().unwrap_or("the SLO"),
                format_rps(fail)
            );
        }
        if let Some(c) = a.ceiling_rps {
            line += &format!("; the server saturates at {c:.2} req/s");
        }
        line +=
            &format!("; confidence {:?}, {} probes", a.confidence, a.probes.len()).to_lowercase();
        if let Some(p) = &a.plan {
            line += &instances_clause(
                &format!("{} req/s needs", format_rps(p.target_rps)),
                p.instances,
                p.instances_with_headroom,
                p.headroom,
            );
        }
        line
    }
}

/// An instance plan's clause in an answer line: `; {load} {instances} instance(s)
/// ({with headroom} with {headroom}% headroom)`, `load` ending in its verb (`12 req/s
/// needs`, `64 sessions need`).
pub(crate) fn instances_clause(
    load: &str,
    instances: u32,
    instances_with_headroom: u32,
    headroom: f64,
) -> String {
    format!(
        "; {load} {instances} instance{} ({instances_with_headroom} with {:.0}% headroom)",
        if instances == 1 { "" } else { "s" },
        headroom * 100.0
    )
}

#[cfg(test)]
mod tests {
    use super::instances_clause;

    #[test]
    fn the_plan_clause_counts_instances_and_headroom() {
        assert_eq!(
            instances_clause("12 req/s needs", 1, 2, 0.2),
            "; 12 req/s needs 1 instance (2 with 20% headroom)"
        );
        assert_eq!(
            instances_clause("100 sessions need", 13, 16, 0.25),
            "; 100 sessions need 13 instances (16 with 25% headroom)"
        );
    }
}
