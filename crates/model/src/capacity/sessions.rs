//! Capacity in sessions: from a session scenario's closed-loop sweep over N (each N a cell
//! of N concurrent sessions), the most concurrent sessions whose turns met the SLO (the
//! p99s over the measured turns, each turn one request) in a steady, complete cell, below
//! every N that failed, and the instances a target number of users needs.

use super::answer::{instances, widest_failure};
use super::slo_checks;
use crate::config::CapacityConfig;
use crate::metrics::SessionMetrics;
use crate::results::capacity::{Check, SessionCapacity, SessionCell, SessionPlan, SessionStatus};
use crate::results::summary::{CellStatus, CellSummary};

/// The answer in sessions for `who` (endpoint, model, scenario) from its cells
/// (`(directory, summary)`, any order): the first run (repeat 1) of each closed-loop cell
/// that ran sessions is judged; `None` when there is none.
pub fn session_capacity(
    who: [&str; 3],
    cells: &[(String, &CellSummary)],
    config: &CapacityConfig,
) -> Option<SessionCapacity> {
    let mut judged: Vec<SessionCell> = cells
        .iter()
        .filter(|(_, s)| s.cell.repeat == 1)
        .filter_map(|(dir, s)| {
            let (n, sessions) = (s.cell.load.concurrency?, s.metrics.sessions.as_ref()?);
            Some(judge(n, dir, s, sessions, config))
        })
        .collect();
    if judged.is_empty() {
        return None;
    }
    judged.sort_by_key(|c| c.sessions);
    let b = bracket(&judged, |c| (f64::from(c.sessions), c.status, c.passed));
    let (status, pass, fail) = (
        b.status,
        b.pass.map(|i| &judged[i]),
        b.fail.map(|i| &judged[i]),
    );
    let max = pass.map(|p| p.sessions);
    let plan = max.and_then(|max| session_plan(config, f64::from(max)));
    Some(SessionCapacity {
        endpoint: who[0].into(),
        model: who[1].into(),
        scenario: who[2].into(),
        status,
        max_sessions: max,
        failing_sessions: fail.map(|f| f.sessions),
        first_failed: fail.and_then(|f| widest_failure(&f.checks)),
        sessions_per_minute: pass.and_then(|p| p.sessions_per_minute),
        requests_in_flight_mean: pass.map(|p| p.requests_in_flight_mean),
        plan,
        notes: notes(&judged, status, pass, fail),
        cells: judged,
    })
}

/// The cell `s` of `n` concurrent sessions (directory `dir`, its `sessions` block) against
/// the SLO, and steady.
fn judge(
    n: u32,
    dir: &str,
    s: &CellSummary,
    sessions: &SessionMetrics,
    config: &CapacityConfig,
) -> SessionCell {
    let mut checks = slo_checks(s, &config.slo);
    checks.push(steady_check(s));
    SessionCell {
        sessions: n,
        dir: dir.to_owned(),
        status: s.status,
        passed: s.status == CellStatus::Complete && checks.iter().all(|c| c.passed),
        checks,
        sessions_per_minute: sessions.sessions_per_minute,
        requests_in_flight_mean: sessions.requests_in_flight_mean,
    }
}

/// The instances `capacity.target_sessions` concurrent users need at `per` sessions per
/// instance; `None` without a target.
pub(super) fn session_plan(config: &CapacityConfig, per: f64) -> Option<SessionPlan> {
    let target = config.target_sessions?;
    Some(SessionPlan {
        target_sessions: target,
        instances: instances(f64::from(target), per),
        headroom: config.headroom,
        instances_with_headroom: instances(f64::from(target) * (1.0 + config.headroom), per),
    })
}

/// The `overloaded` bound: value 1 when the cell's queue grew (never the answer, whatever its
/// latencies said).
pub(super) fn overload_check(s: &CellSummary) -> Check {
    let overloaded = s.metrics.steady.overloaded;
    Check {
        bound: "overloaded".into(),
        limit: 0.0,
        value: Some(f64::from(u8::from(overloaded))),
        upper_ci: None,
        lower_ci: None,
        passed: !overloaded,
    }
}

/// The `steady` bound: value 1 when the cell is steady.
pub(super) fn steady_check(s: &CellSummary) -> Check {
    let steady = s.metrics.steady.steady;
    Check {
        bound: "steady".into(),
        limit: 1.0,
        value: Some(f64::from(u8::from(steady))),
        upper_ci: None,
        lower_ci: None,
        passed: steady,
    }
}

/// Where a sweep's answer lies: its status, the highest passing load below every failure
/// and the lowest failure (indices into the judged cells).
pub(super) struct Bracket {
    pub status: SessionStatus,
    pub pass: Option<usize>,
    pub fail: Option<usize>,
}

/// The bracket of `cells` (each read as `(load, status, passed)` by `read`): interrupted
/// cells are not judged; the answer is the highest load that passed below the lowest that
/// failed.
pub(super) fn bracket<C>(cells: &[C], read: impl Fn(&C) -> (f64, CellStatus, bool)) -> Bracket {
    let cells: Vec<(usize, (f64, CellStatus, bool))> =
        cells.iter().map(&read).enumerate().collect();
    let ran = |c: &&(usize, (f64, CellStatus, bool))| c.1.1 != CellStatus::Interrupted;
    let fail = cells
        .iter()
        .filter(ran)
        .filter(|c| !c.1.2)
        .min_by(|a, b| a.1.0.total_cmp(&b.1.0));
    let pass = cells
        .iter()
        .filter(|c| c.1.2 && fail.is_none_or(|f| c.1.0 < f.1.0))
        .max_by(|a, b| a.1.0.total_cmp(&b.1.0));
    let status = match (cells.iter().any(|c| ran(&c)), pass, fail) {
        (false, _, _) => SessionStatus::Stopped,
        (true, None, _) => SessionStatus::NonePassed,
        (true, Some(_), Some(_)) => SessionStatus::Found,
        (true, Some(_), None) => SessionStatus::AtLeast,
    };
    Bracket {
        status,
        pass: pass.map(|c| c.0),
        fail: fail.map(|c| c.0),
    }
}

/// What the reader should know of the answer: cells not judged, passes above a failure
/// (left out), a capacity above the largest N run.
fn notes(
    cells: &[SessionCell],
    status: SessionStatus,
    pass: Option<&SessionCell>,
    fail: Option<&SessionCell>,
) -> Vec<String> {
    let mut out = Vec::new();
    for c in cells.iter().filter(|c| c.status == CellStatus::Interrupted) {
        out.push(format!("N = {} was interrupted: not judged", c.sessions));
    }
    if let Some(f) = fail {
        for c in cells.iter().filter(|c| c.passed && c.sessions > f.sessions) {
            out.push(format!(
                "N = {} met the SLO, steady, but N = {} below it did not: left out",
                c.sessions, f.sessions
            ));
        }
    }
    if let (SessionStatus::AtLeast, Some(p)) = (status, pass) {
        out.push(format!(
            "N = {}, the largest run, met the SLO: the capacity is at least {} sessions \
             (run larger N to find it; an instance plan from it may count more instances \
             than needed)",
            p.sessions, p.sessions
        ));
    }
    out
}

#[cfg(test)]
mod tests;
