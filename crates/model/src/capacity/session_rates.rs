//! Capacity in session arrivals: from a session scenario's open-loop sweep of session start
//! rates (`rate_unit: "sessions"`, each rate a cell `s<rate>`), the highest offered rate
//! whose turns met the SLO in a complete, steady cell that was not overloaded and sent the
//! starts it was offered, below every rate that failed; in sessions per minute, with the
//! instances a target number of concurrent users needs at the sessions active there.

use super::answer::widest_failure;
use super::sessions::{bracket, overload_check, session_plan, steady_check};
use super::slo_checks;
use crate::config::{CapacityConfig, RateUnit};
use crate::metrics::{SessionMetrics, shortfall};
use crate::results::capacity::{Check, SessionRateCapacity, SessionRateCell, SessionStatus};
use crate::results::summary::{CellStatus, CellSummary};

/// The answer in session arrivals for `who` (endpoint, model, scenario) from its cells
/// (`(directory, summary)`, any order): the first run (repeat 1) of each open-loop cell of
/// sessions is judged; `None` when there is none.
pub fn session_rate_capacity(
    who: [&str; 3],
    cells: &[(String, &CellSummary)],
    config: &CapacityConfig,
) -> Option<SessionRateCapacity> {
    let mut judged: Vec<SessionRateCell> = cells
        .iter()
        .filter(|(_, s)| s.cell.repeat == 1 && s.cell.load.rate_unit == Some(RateUnit::Sessions))
        .filter_map(|(dir, s)| {
            let (rate, sessions) = (s.cell.load.request_rate?, s.metrics.sessions.as_ref()?);
            Some(judge(rate * 60.0, dir, s, sessions, config))
        })
        .collect();
    if judged.is_empty() {
        return None;
    }
    judged.sort_by(|a, b| a.starts_per_minute.total_cmp(&b.starts_per_minute));
    let b = bracket(&judged, |c| (c.starts_per_minute, c.status, c.passed));
    let (pass, fail) = (b.pass.map(|i| &judged[i]), b.fail.map(|i| &judged[i]));
    let per = pass.map(|p| p.sessions_active_mean).filter(|&a| a > 0.0);
    Some(SessionRateCapacity {
        endpoint: who[0].into(),
        model: who[1].into(),
        scenario: who[2].into(),
        status: b.status,
        max_starts_per_minute: pass.map(|p| p.starts_per_minute),
        failing_starts_per_minute: fail.map(|f| f.starts_per_minute),
        first_failed: fail.and_then(|f| widest_failure(&f.checks)),
        sessions_active_mean: pass.map(|p| p.sessions_active_mean),
        requests_in_flight_mean: pass.map(|p| p.requests_in_flight_mean),
        plan: per.and_then(|per| session_plan(config, per)),
        notes: notes(&judged, b.status, pass, fail),
        cells: judged,
    })
}

/// The cell `s` offered `per_minute` session starts (directory `dir`, its `sessions`
/// block) against the SLO, for overload, for the starts it sent, and steady.
fn judge(
    per_minute: f64,
    dir: &str,
    s: &CellSummary,
    sessions: &SessionMetrics,
    config: &CapacityConfig,
) -> SessionRateCell {
    let m = &s.metrics;
    let mut checks = slo_checks(s, &config.slo);
    checks.push(overload_check(s));
    let minutes = m.throughput.window_s / 60.0;
    let offered = sessions.session_starts_offered_per_minute;
    let sent = sessions.session_starts_per_minute;
    if let (Some(offered), Some(sent)) = (offered, sent) {
        checks.push(Check {
            bound: "session_starts_per_minute".into(),
            limit: offered,
            value: Some(sent),
            upper_ci: None,
            lower_ci: None,
            passed: !shortfall(offered * minutes, sent * minutes),
        });
    }
    checks.push(steady_check(s));
    SessionRateCell {
        starts_per_minute: per_minute,
        dir: dir.to_owned(),
        status: s.status,
        passed: s.status == CellStatus::Complete && checks.iter().all(|c| c.passed),
        checks,
        achieved_starts_per_minute: sent,
        sessions_active_mean: sessions.sessions_active_mean,
        requests_in_flight_mean: sessions.requests_in_flight_mean,
    }
}

/// What the reader should know of the answer: cells not judged, passes above a failure
/// (left out), a capacity above the highest rate run.
fn notes(
    cells: &[SessionRateCell],
    status: SessionStatus,
    pass: Option<&SessionRateCell>,
    fail: Option<&SessionRateCell>,
) -> Vec<String> {
    let mut out = Vec::new();
    for c in cells.iter().filter(|c| c.status == CellStatus::Interrupted) {
        out.push(format!(
            "{} session starts/min was interrupted: not judged",
            c.starts_per_minute
        ));
    }
    if let Some(f) = fail {
        for c in cells
            .iter()
            .filter(|c| c.passed && c.starts_per_minute > f.starts_per_minute)
        {
            out.push(format!(
                "{}/min met the SLO, steady, but {}/min below it did not: left out",
                c.starts_per_minute, f.starts_per_minute
            ));
        }
    }
    if let (SessionStatus::AtLeast, Some(p)) = (status, pass) {
        out.push(format!(
            "{}/min, the highest rate run, passed: the capacity is at least {} session \
             starts/min (run higher rates to find it)",
            p.starts_per_minute, p.starts_per_minute
        ));
    }
    out
}

#[cfg(test)]
mod tests;
