//! What the capacity section says of the answer in sessions (`capacity.json`'s `sessions`
//! block): each session scenario's most concurrent sessions within the SLO as labelled
//! facts (the answer, the bracket, the first bound to fail, sessions per minute and
//! requests in flight there, the instance plan, the notes) and its cells as a table of text.

use plateau_model::results::capacity::{CapacityReport, Check, SessionCapacity, SessionStatus};
use plateau_model::results::summary::CellStatus;

use super::{cell_status, check};
use crate::per_run::PerRun;
use crate::style::{number, tick};

/// Every answer in sessions of every run, with the report it belongs to, in the runs' order.
pub fn answers(
    runs: &[PerRun<CapacityReport>],
) -> impl Iterator<Item = (&CapacityReport, &SessionCapacity)> {
    runs.iter()
        .flat_map(|r| r.file.sessions.iter().map(move |s| (&r.file, s)))
}

/// `vllm · llama-8b · D`.
pub fn title(s: &SessionCapacity) -> String {
    format!("{} · {} · {}", s.endpoint, s.model, s.scenario)
}

/// The answer in a few words: `8 concurrent sessions`, `at least 8 concurrent sessions`.
pub fn headline(s: &SessionCapacity) -> String {
    match (s.max_sessions, s.status) {
        (Some(n), SessionStatus::AtLeast) => format!("at least {n} concurrent sessions"),
        (Some(n), _) => format!("{n} concurrent sessions"),
        (None, SessionStatus::Stopped) => "no session cell ran to its end".into(),
        (None, _) => "no N met the SLO".into(),
    }
}

/// The answer as `(label, text)` pairs, in reading order.
pub fn facts(report: &CapacityReport, s: &SessionCapacity) -> Vec<(&'static str, String)> {
    let mut out = vec![(
        "max sessions",
        s.max_sessions
            .map_or("none: even the smallest N run failed".into(), |n| {
                format!("{n} concurrent sessions within the SLO, steady")
            }),
    )];
    let bracket = match (s.max_sessions, s.failing_sessions) {
        (Some(lo), Some(hi)) => format!("[{lo}, {hi}) sessions"),
        (Some(lo), None) => format!("≥ {lo} sessions (the largest N run passed)"),
        (None, Some(hi)) => format!("below {hi} sessions"),
        (None, None) => "–".into(),
    };
    out.push(("capacity in", bracket));
    if let Some(bound) = &s.first_failed {
        let at = s
            .failing_sessions
            .map_or(String::new(), |n| format!(" at N = {n}"));
        out.push(("first to fail", format!("{bound}{at}")));
    }
    if let Some(n) = s.max_sessions {
        let per_minute = s.sessions_per_minute.map_or("not measured".into(), |v| {
            format!("{} sessions/min", number(v))
        });
        let in_flight = s.requests_in_flight_mean.map_or("–".into(), |v| {
            format!("{} requests in flight (mean)", number(v))
        });
        out.push((
            "at that N",
            format!("{per_minute}, {in_flight} for {n} sessions"),
        ));
    }
    out.push(("status", status(s.status).into()));
    let plan = match (&s.plan, report.target_sessions) {
        (Some(p), _) => format!(
            "{} sessions target: {} instance{}, {} with {}% headroom",
            p.target_sessions,
            p.instances,
            if p.instances == 1 { "" } else { "s" },
            p.instances_with_headroom,
            tick(p.headroom * 100.0)
        ),
        (None, Some(t)) => format!("{t} sessions target: no N passed"),
        (None, None) => "no target_sessions configured".into(),
    };
    out.push(("instance plan", plan));
    if !s.notes.is_empty() {
        out.push(("notes", s.notes.join("; ")));
    }
    out
}

/// How the answer stands, in words.
pub fn status(status: SessionStatus) -> &'static str {
    match status {
        SessionStatus::Found => "found (a larger N failed)",
        SessionStatus::AtLeast => "at least (the largest N run passed)",
        SessionStatus::NonePassed => "none passed",
        SessionStatus::Stopped => "stopped (no cell ran to its end)",
    }
}

/// The cells table: a header and one row of text per N, ascending.
pub fn cells(s: &SessionCapacity) -> (Vec<String>, Vec<Vec<String>>) {
    judged(
        "sessions N",
        &["sessions/min", "in flight (mean)", "cell"],
        s.cells.iter().map(|c| Judged {
            load: c.sessions.to_string(),
            status: c.status,
            passed: c.passed,
            checks: &c.checks,
            tail: vec![
                c.sessions_per_minute.map_or("–".into(), number),
                number(c.requests_in_flight_mean),
                c.dir.clone(),
            ],
        }),
    )
}

/// One judged cell as a row: its load, how it ended, its verdict and checks, then `tail`.
pub struct Judged<'a> {
    /// The load in words (`8`, `12`).
    pub load: String,
    /// How the cell ended.
    pub status: CellStatus,
    /// Whether it passed.
    pub passed: bool,
    /// Its checks.
    pub checks: &'a [Check],
    /// The columns after the checks.
    pub tail: Vec<String>,
}

/// A table of judged cells: `first` (the load), status, passed, one column per bound any
/// cell checked, then the `tail` columns.
pub fn judged<'a>(
    first: &str,
    tail: &[&str],
    cells: impl Iterator<Item = Judged<'a>> + Clone,
) -> (Vec<String>, Vec<Vec<String>>) {
    let mut bounds: Vec<&str> = Vec::new();
    for c in cells.clone().flat_map(|c| c.checks) {
        if !bounds.contains(&c.bound.as_str()) {
            bounds.push(&c.bound);
        }
    }
    let mut head: Vec<String> = vec![first.into(), "status".into(), "passed".into()];
    head.extend(bounds.iter().map(|b| (*b).to_owned()));
    head.extend(tail.iter().map(|t| (*t).to_owned()));
    let rows = cells
        .map(|c| {
            let mut row = vec![
                c.load,
                cell_status(c.status).into(),
                if c.passed { "yes" } else { "NO" }.into(),
            ];
            row.extend(bounds.iter().map(|b| {
                c.checks
                    .iter()
                    .find(|k| k.bound == *b)
                    .map_or("–".into(), check)
            }));
            row.extend(c.tail);
            row
        })
        .collect();
    (head, rows)
}
