//! `capacity.json`'s `session_rates` block: for each session scenario swept in the open
//! loop of sessions (`rate_unit: "sessions"`, cells `s<rate>`), the highest offered session
//! start rate one instance took with every turn inside the SLO, not overloaded and steady,
//! each rate's verdict, and the instances a target number of concurrent users needs.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Check, SessionPlan, SessionStatus};
use crate::results::summary::CellStatus;

/// One open-loop cell of sessions judged at its offered session start rate.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SessionRateCell {
    /// The offered session start rate, sessions/min (the cell's rate x 60).
    pub starts_per_minute: f64,
    /// The cell directory, relative to the results directory.
    pub dir: String,
    /// How the cell ended (an interrupted cell is listed, not judged).
    pub status: CellStatus,
    /// Whether every bound held and the cell completed.
    pub passed: bool,
    /// Each bound with its value: the SLO's p99s over the measured turns, the error rate,
    /// `overloaded`, `session_starts_per_minute` (the starts sent fell short of those
    /// offered: a `max_concurrency` cap held them back) and `steady`.
    pub checks: Vec<Check>,
    /// Session starts sent inside Measure, per minute.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub achieved_starts_per_minute: Option<f64>,
    /// Time-weighted mean of sessions active over Measure: the concurrent users this
    /// start rate kept on the instance (Little's law: start rate x session duration).
    pub sessions_active_mean: f64,
    /// Time-weighted mean of requests in flight over Measure (what the server saw).
    pub requests_in_flight_mean: f64,
}

/// The capacity in session arrivals of one endpoint x model x session scenario.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SessionRateCapacity {
    /// Endpoint name.
    pub endpoint: String,
    /// Model id.
    pub model: String,
    /// Scenario id.
    pub scenario: String,
    /// How the answer stands (`found`: a higher rate failed; `at_least`: the highest rate
    /// run passed).
    pub status: SessionStatus,
    /// The answer, sessions/min: the highest offered start rate that passed, below every
    /// rate that failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_starts_per_minute: Option<f64>,
    /// The lowest offered start rate that failed, sessions/min.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failing_starts_per_minute: Option<f64>,
    /// The bound that failed at `failing_starts_per_minute` by the widest margin.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_failed: Option<String>,
    /// Mean sessions active at the answer: the concurrent users one instance held there,
    /// what the instance plan divides by.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sessions_active_mean: Option<f64>,
    /// Mean requests in flight at the answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requests_in_flight_mean: Option<f64>,
    /// Instances for `capacity.target_sessions` concurrent users, when given and a rate
    /// passed: `ceil(target / sessions_active_mean)`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plan: Option<SessionPlan>,
    /// What the reader should know: a rate that passed above a failure (left out), cells
    /// not judged, a capacity above the highest rate run.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// Every open-loop cell of sessions of the scenario, by rate.
    pub cells: Vec<SessionRateCell>,
}

impl SessionRateCapacity {
    /// The answer in one line, for the log and the console:
    /// `sim/m/D: 12 session starts/min within the SLO, steady, not overloaded; 24/min
    /// fails on ttft_p99_ms`.
    pub fn answer(&self) -> String {
        let who = format!("{}/{}/{}", self.endpoint, self.model, self.scenario);
        let Some(max) = self.max_starts_per_minute else {
            return match self.status {
                SessionStatus::Stopped => format!("{who}: no session-rate cell ran to its end"),
                _ => format!(
                    "{who}: no session start rate met the SLO (lowest run {}/min)",
                    self.cells.first().map_or(0.0, |c| c.starts_per_minute)
                ),
            };
        };
        let at_least = self.status.at_least();
        let mut line = format!(
            "{who}: {at_least}{max} session starts/min within the SLO, steady, not overloaded"
        );
        if let Some(a) = self.sessions_active_mean {
            line += &format!(" ({a:.1} sessions active)");
        }
        if let Some(fail) = self.failing_starts_per_minute {
            line += &format!(
                "; {fail}/min fails on {}",
                self.first_failed.as_deref().unwrap_or("the SLO")
            );
        }
        if let Some(p) = &self.plan {
            line += &p.clause("concurrent users");
        }
        line
    }
}
