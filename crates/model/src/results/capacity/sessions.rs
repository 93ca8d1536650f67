//! `capacity.json`'s `sessions` block: for each session scenario, the most concurrent
//! sessions one instance held in the closed-loop sweep with every turn inside the SLO and
//! the cell steady, each N's verdict, and the instances a target number of users needs.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::Check;
use crate::results::summary::CellStatus;

/// How the answer in sessions stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SessionStatus {
    /// An N (or session start rate) passed and a larger one failed: the capacity lies in
    /// `[max_sessions, failing_sessions)`.
    Found,
    /// The largest N (or rate) run passed: the capacity is at least `max_sessions` (run
    /// larger N to find it).
    AtLeast,
    /// Even the smallest N (or rate) run failed.
    NonePassed,
    /// No cell of the scenario ran to its end (Ctrl-C): nothing to judge.
    Stopped,
}

impl SessionStatus {
    /// `"at least "` before an answer that is a lower bound ([`SessionStatus::AtLeast`]),
    /// else nothing.
    pub(crate) fn at_least(self) -> &'static str {
        if self == SessionStatus::AtLeast {
            "at least "
        } else {
            ""
        }
    }
}

/// One closed-loop cell judged as a number of concurrent sessions.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SessionCell {
    /// N: concurrent sessions.
    pub sessions: u32,
    /// The cell directory, relative to the results directory.
    pub dir: String,
    /// How the cell ended (an interrupted cell is listed, not judged).
    pub status: CellStatus,
    /// Whether every bound held, the cell was steady and it completed.
    pub passed: bool,
    /// Each bound with its value: the SLO's p99s over the measured turns, the error rate,
    /// and `steady`.
    pub checks: Vec<Check>,
    /// Completed sessions per minute of Measure.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sessions_per_minute: Option<f64>,
    /// Time-weighted mean of requests in flight over Measure (what the server saw).
    pub requests_in_flight_mean: f64,
}

/// The instances a target number of concurrent sessions needs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SessionPlan {
    /// Concurrent sessions (users) to serve.
    pub target_sessions: u32,
    /// `ceil(target / per instance)`: per instance `max_sessions` (closed loop), or the
    /// sessions active at the answer (open loop of sessions).
    pub instances: u32,
    /// Spare fraction kept.
    pub headroom: f64,
    /// `ceil(target x (1 + headroom) / per instance)`.
    pub instances_with_headroom: u32,
}

impl SessionPlan {
    /// The plan's clause in an answer line: `; 64 {users} need 4 instances (5 with 20%
    /// headroom)`.
    pub(crate) fn clause(&self, users: &str) -> String {
        super::instances_clause(
            &format!("{} {users} need", self.target_sessions),
            self.instances,
            self.instances_with_headroom,
            self.headroom,
        )
    }
}

/// The capacity in sessions of one endpoint x model x session scenario.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SessionCapacity {
    /// Endpoint name.
    pub endpoint: String,
    /// Model id.
    pub model: String,
    /// Scenario id.
    pub scenario: String,
    /// How the answer stands.
    pub status: SessionStatus,
    /// The answer: the largest N that passed, below every N that failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_sessions: Option<u32>,
    /// The smallest N that failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failing_sessions: Option<u32>,
    /// The bound that failed at `failing_sessions` by the widest margin.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_failed: Option<String>,
    /// Sessions completed per minute at `max_sessions`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sessions_per_minute: Option<f64>,
    /// Mean requests in flight at `max_sessions`: the server's load while N users held
    /// sessions (below N by the share of time spent thinking).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requests_in_flight_mean: Option<f64>,
    /// Instances for `capacity.target_sessions`, when given and an N passed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plan: Option<SessionPlan>,
    /// What the reader should know: an N that passed above a failure (left out), cells not
    /// judged, a capacity above the largest N run.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// Every closed-loop cell of the scenario, by N.
    pub cells: Vec<SessionCell>,
}

impl SessionCapacity {
    /// The answer in one line, for the log and the console:
    /// `sim/m/D: 16 concurrent sessions within the SLO, steady; N = 32 fails on ttft_p99_ms`.
    pub fn answer(&self) -> String {
        let who = format!("{}/{}/{}", self.endpoint, self.model, self.scenario);
        let Some(max) = self.max_sessions else {
            return match self.status {
                SessionStatus::Stopped => format!("{who}: no session cell ran to its end"),
                _ => format!(
                    "{who}: no N met the SLO in sessions (smallest run N = {})",
                    self.cells.first().map_or(0, |c| c.sessions)
                ),
            };
        };
        let at_least = self.status.at_least();
        let mut line = format!("{who}: {at_least}{max} concurrent sessions within the SLO, steady");
        if let Some(fail) = self.failing_sessions {
            line += &format!(
                "; N = {fail} fails on {}",
                self.first_failed.as_deref().unwrap_or("the SLO")
            );
        }
        if let Some(p) = &self.plan {
            line += &p.clause("sessions");
        }
        line
    }
}
