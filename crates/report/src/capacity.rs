//! What the capacity section of report.html and summary.md says, from `capacity.json`:
//! the SLO, each search's answer as labelled facts (max req/s, output tok/s, the bracket,
//! the first bound to fail, confidence, status, instance plan) and its probes as a table of
//! text, and the answers in concurrent sessions ([`sessions`]). Writers lay them out; every number is read from the file (measurements with three
//! significant digits, configured limits as given).

use plateau_model::config::CapacitySlo;
use plateau_model::load::format_rps;
use plateau_model::results::capacity::{
    CapacityReport, CapacitySearch, Check, Confidence, SearchStatus, StartRate,
};
use plateau_model::results::summary::CellStatus;

use crate::per_run::{PerRun, uniform};
use crate::style::{number, tick};

pub mod session_rates;
pub mod sessions;

/// `TTFT p99 ≤ 500 ms, error rate ≤ 0.01`: the bounds every probe was judged by.
pub fn slo(slo: &CapacitySlo) -> String {
    let ms = |name: &str, v: Option<f64>| v.map(|v| format!("{name} ≤ {} ms", tick(v)));
    let parts: Vec<String> = [
        ms("TTFT p99", slo.ttft_p99_ms),
        ms("TPOT p99", slo.tpot_p99_ms),
        ms("E2E p99", slo.e2e_p99_ms),
        slo.max_error_rate
            .map(|v| format!("error rate ≤ {}", tick(v))),
    ]
    .into_iter()
    .flatten()
    .collect();
    if parts.is_empty() {
        "no bound".into()
    } else {
        parts.join(", ")
    }
}

/// The SLO of the runs (at least one): [`slo`] when they share it, else each run's
/// (`run-a: TTFT p99 ≤ 500 ms; run-b: ...`).
pub fn slo_of(runs: &[PerRun<CapacityReport>]) -> String {
    uniform(runs, |r| slo(&r.slo)).unwrap_or_else(|each| each)
}

/// Every search of every run, with the report it belongs to, in the runs' order.
pub fn searches(
    runs: &[PerRun<CapacityReport>],
) -> impl Iterator<Item = (&CapacityReport, &CapacitySearch)> {
    runs.iter()
        .flat_map(|r| r.file.searches.iter().map(move |s| (&r.file, s)))
}

/// `vllm · llama-8b · A1`.
pub fn title(s: &CapacitySearch) -> String {
    format!("{} · {} · {}", s.endpoint, s.model, s.scenario)
}

/// The answer in a few words: `6 req/s, 1234 output tok/s` or `no rate met the SLO`.
pub fn headline(s: &CapacitySearch) -> String {
    match (s.max_rps, s.max_output_tps) {
        (Some(r), Some(tps)) => format!("{} req/s, {} output tok/s", format_rps(r), number(tps)),
        (Some(r), None) => format!("{} req/s", format_rps(r)),
        (None, _) => "no rate met the SLO".into(),
    }
}

/// The search's answer as `(label, text)` pairs, in reading order.
pub fn facts(report: &CapacityReport, s: &CapacitySearch) -> Vec<(&'static str, String)> {
    let mut out = vec![(
        "max rate",
        s.max_rps
            .map_or("none: even the lowest rate probed failed".into(), |r| {
                format!("{} req/s within the SLO", format_rps(r))
            }),
    )];
    if let Some(tps) = s.max_output_tps {
        out.push(("output", format!("{} tok/s at that rate", number(tps))));
    }
    let bracket = match (s.max_rps, s.failing_rps) {
        (Some(lo), Some(hi)) => format!("[{}, {}) req/s", format_rps(lo), format_rps(hi)),
        (Some(lo), None) => format!("≥ {} req/s (no rate probed failed)", format_rps(lo)),
        (None, Some(hi)) => format!("below {} req/s", format_rps(hi)),
        (None, None) => "–".into(),
    };
    out.push(("capacity in", bracket));
    if let Some(bound) = &s.first_failed {
        let at = s
            .failing_rps
            .map_or(String::new(), |r| format!(" at {} req/s", format_rps(r)));
        out.push(("first to fail", format!("{bound}{at}")));
    }
    if let Some(c) = s.ceiling_rps {
        out.push((
            "saturates at",
            format!(
                "{} req/s: what the server completed when its queue grew; no answer at or above it",
                number(c)
            ),
        ));
    }
    let confidence = match s.confidence {
        Confidence::High => "high",
        Confidence::Medium => "medium",
        Confidence::Low => "low",
    };
    out.push((
        "confidence",
        if s.confidence_reasons.is_empty() {
            confidence.into()
        } else {
            format!("{confidence}: {}", s.confidence_reasons.join("; "))
        },
    ));
    out.push(("status", status(s.status).into()));
    let start = match &s.start {
        StartRate::ClosedLoop { cell, request_rps } => format!(
            "{} req/s, Little's law on closed-loop cell {cell}",
            number(*request_rps)
        ),
        StartRate::Configured => "capacity.start_rps".into(),
        StartRate::Default => "1 req/s (no estimate)".into(),
    };
    out.push(("started from", start));
    let plan = match (&s.plan, report.target_rps) {
        (Some(p), _) => format!(
            "{} req/s target: {} instance{}, {} with {}% headroom",
            format_rps(p.target_rps),
            p.instances,
            if p.instances == 1 { "" } else { "s" },
            p.instances_with_headroom,
            tick(p.headroom * 100.0)
        ),
        (None, Some(t)) => format!("{} req/s target: no rate passed", format_rps(t)),
        (None, None) => "no target_rps configured".into(),
    };
    out.push(("instance plan", plan));
    out
}

/// How a search ended, in words.
pub fn status(status: SearchStatus) -> &'static str {
    match status {
        SearchStatus::Found => "found (bracket within the resolution)",
        SearchStatus::ProbesExhausted => "probes exhausted (bracket wider than the resolution)",
        SearchStatus::NonePassed => "none passed",
        SearchStatus::Stopped => "stopped",
    }
}

/// The probes table: a header and one row of text per probe, in the order run.
pub fn probes(s: &CapacitySearch) -> (Vec<String>, Vec<Vec<String>>) {
    let mut bounds: Vec<&str> = Vec::new();
    for c in s.probes.iter().flat_map(|p| &p.checks) {
        if !bounds.contains(&c.bound.as_str()) {
            bounds.push(&c.bound);
        }
    }
    let mut head: Vec<String> = vec!["rate (req/s)".into(), "status".into(), "passed".into()];
    head.extend(bounds.iter().map(|b| (*b).to_owned()));
    head.extend(["achieved (req/s)", "output (tok/s)", "measure (s)", "cell"].map(String::from));
    let rows = s
        .probes
        .iter()
        .map(|p| {
            let mut row = vec![
                format_rps(p.rps),
                cell_status(p.status).into(),
                if p.passed { "yes" } else { "NO" }.into(),
            ];
            row.extend(bounds.iter().map(|b| {
                p.checks
                    .iter()
                    .find(|c| c.bound == *b)
                    .map_or("–".into(), check)
            }));
            row.extend([
                number(p.achieved_rps),
                number(p.output_tps),
                p.measure_s.map_or("–".into(), tick),
                p.dir.clone(),
            ]);
            row
        })
        .collect();
    (head, rows)
}

fn cell_status(status: CellStatus) -> &'static str {
    match status {
        CellStatus::Complete => "complete",
        CellStatus::Interrupted => "interrupted",
        CellStatus::Failed => "failed",
    }
}

/// One check: `412 ≤ 500`, `612 > 500`, `overloaded` / `no`, `kept up` / `fell short`,
/// `steady` / `unsteady`.
fn check(c: &Check) -> String {
    if c.bound == "steady" {
        return if c.passed { "steady" } else { "unsteady" }.into();
    }
    if c.bound == "overloaded" {
        return if c.passed { "no" } else { "overloaded" }.into();
    }
    if c.bound == "achieved_rps" {
        return if c.passed { "kept up" } else { "fell short" }.into();
    }
    match c.value {
        Some(v) => format!(
            "{} {} {}",
            number(v),
            if c.passed { "≤" } else { ">" },
            tick(c.limit)
        ),
        None => format!("not measured (limit {})", tick(c.limit)),
    }
}
