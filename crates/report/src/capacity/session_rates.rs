//! What the capacity section says of the answer in session arrivals (`capacity.json`'s
//! `session_rates` block): each session scenario's highest offered session start rate
//! within the SLO, not overloaded and steady, as labelled facts, and its cells as a table.

use plateau_model::results::capacity::{CapacityReport, SessionRateCapacity, SessionStatus};

use super::sessions::{Judged, judged, status};
use crate::per_run::PerRun;
use crate::style::{number, tick};

/// Every answer in session arrivals of every run, with its report, in the runs' order.
pub fn answers(
    runs: &[PerRun<CapacityReport>],
) -> impl Iterator<Item = (&CapacityReport, &SessionRateCapacity)> {
    runs.iter()
        .flat_map(|r| r.file.session_rates.iter().map(move |s| (&r.file, s)))
}

/// `vllm · llama-8b · D`.
pub fn title(s: &SessionRateCapacity) -> String {
    format!("{} · {} · {}", s.endpoint, s.model, s.scenario)
}

/// The answer in a few words: `12 session starts/min`, `at least 12 session starts/min`.
pub fn headline(s: &SessionRateCapacity) -> String {
    match (s.max_starts_per_minute, s.status) {
        (Some(r), SessionStatus::AtLeast) => format!("at least {} session starts/min", number(r)),
        (Some(r), _) => format!("{} session starts/min", number(r)),
        (None, SessionStatus::Stopped) => "no session-rate cell ran to its end".into(),
        (None, _) => "no session start rate met the SLO".into(),
    }
}

/// The answer as `(label, text)` pairs, in reading order.
pub fn facts(report: &CapacityReport, s: &SessionRateCapacity) -> Vec<(&'static str, String)> {
    let mut out = vec![(
        "max session starts",
        s.max_starts_per_minute
            .map_or("none: even the lowest rate run failed".into(), |r| {
                format!(
                    "{} session starts/min within the SLO, steady, not overloaded",
                    number(r)
                )
            }),
    )];
    let bracket = match (s.max_starts_per_minute, s.failing_starts_per_minute) {
        (Some(lo), Some(hi)) => format!("[{}, {}) session starts/min", number(lo), number(hi)),
        (Some(lo), None) => format!(
            "≥ {} session starts/min (the highest rate run passed)",
            number(lo)
        ),
        (None, Some(hi)) => format!("below {} session starts/min", number(hi)),
        (None, None) => "–".into(),
    };
    out.push(("capacity in", bracket));
    if let Some(bound) = &s.first_failed {
        let at = s
            .failing_starts_per_minute
            .map_or(String::new(), |r| format!(" at {}/min", number(r)));
        out.push(("first to fail", format!("{bound}{at}")));
    }
    if let (Some(active), Some(in_flight)) = (s.sessions_active_mean, s.requests_in_flight_mean) {
        out.push((
            "at that rate",
            format!(
                "{} sessions active, {} requests in flight (means)",
                number(active),
                number(in_flight)
            ),
        ));
    }
    out.push(("status", status(s.status).into()));
    let plan = match (&s.plan, report.target_sessions) {
        (Some(p), _) => format!(
            "{} concurrent users: {} instance{}, {} with {}% headroom (at the sessions active \
             per instance)",
            p.target_sessions,
            p.instances,
            if p.instances == 1 { "" } else { "s" },
            p.instances_with_headroom,
            tick(p.headroom * 100.0)
        ),
        (None, Some(t)) => format!("{t} sessions target: no rate passed"),
        (None, None) => "no target_sessions configured".into(),
    };
    out.push(("instance plan", plan));
    if !s.notes.is_empty() {
        out.push(("notes", s.notes.join("; ")));
    }
    out
}

/// The cells table: a header and one row of text per offered rate, ascending.
pub fn cells(s: &SessionRateCapacity) -> (Vec<String>, Vec<Vec<String>>) {
    judged(
        "starts/min offered",
        &[
            "starts/min sent",
            "sessions active",
            "in flight (mean)",
            "cell",
        ],
        s.cells.iter().map(|c| Judged {
            load: number(c.starts_per_minute),
            status: c.status,
            passed: c.passed,
            checks: &c.checks,
            tail: vec![
                c.achieved_starts_per_minute.map_or("–".into(), number),
                number(c.sessions_active_mean),
                number(c.requests_in_flight_mean),
                c.dir.clone(),
            ],
        }),
    )
}
