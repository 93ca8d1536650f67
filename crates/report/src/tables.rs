//! The per-scenario results tables of report.html and summary.md: which columns, in which
//! order, and the rows of each scenario. Writers format them; nothing is computed here.

use plateau_core::results::run_info::RunStatus;
use plateau_core::results::summary::{CellStatus, CellSummary};

use crate::matrix::{Matrix, Scenario};
use crate::quantity::{self as q, Quantity};

/// The numeric columns, in order (the series and steady columns are added around them).
pub const COLUMNS: [Quantity; 14] = [
    q::CONCURRENCY,
    q::OK,
    q::ERRORS,
    q::TTFT_P50,
    q::TTFT_P99,
    q::TPOT_P50,
    q::TPOT_P99,
    q::ITL_P50,
    q::ITL_P99,
    q::JITTER_CHUNK,
    q::USER_TPS,
    q::SERVER_TPS,
    q::REQUEST_RPS,
    q::CONCURRENCY_MEAN,
];

/// One scenario's table.
pub struct Group<'a> {
    /// The scenario.
    pub scenario: &'a Scenario,
    /// Rows: the series label (when the run has several series), the cell's path and summary.
    pub rows: Vec<Row<'a>>,
}

/// One row: a cell.
pub struct Row<'a> {
    /// Series label, when the run has more than one series.
    pub series: Option<&'a str>,
    /// Path relative to the results directory.
    pub rel: &'a str,
    /// The summary.
    pub summary: &'a CellSummary,
}

/// The tables of `m`, one per scenario, rows by series then concurrency.
pub fn groups<'a>(m: &'a Matrix<'a>) -> Vec<Group<'a>> {
    let many = m.series.len() > 1;
    m.scenarios
        .iter()
        .enumerate()
        .map(|(k, scenario)| Group {
            scenario,
            rows: m
                .cells
                .iter()
                .filter(|c| c.scenario == k)
                .map(|c| Row {
                    series: many.then(|| m.series[c.series].label.as_str()),
                    rel: c.rel,
                    summary: c.summary,
                })
                .collect(),
        })
        .collect()
}

/// The header of a column: `TTFT p50 (ms)`.
pub fn header(q: &Quantity) -> String {
    q.axis_label()
}

/// The steady column: a short verdict and the reasons behind it.
pub fn verdict(s: &CellSummary) -> (&'static str, String) {
    match (s.status, s.metrics.steady.steady) {
        (CellStatus::Interrupted, _) => ("interrupted", "the cell was interrupted".into()),
        (CellStatus::Failed, _) => (
            "failed",
            s.failure
                .clone()
                .unwrap_or_else(|| "the cell failed".into()),
        ),
        (_, true) => ("yes", String::new()),
        (_, false) => ("NO", s.metrics.steady.reasons.join("; ")),
    }
}

/// How a run ended, in words.
pub fn run_status(status: RunStatus) -> &'static str {
    match status {
        RunStatus::Complete => "complete",
        RunStatus::Interrupted => "interrupted",
        RunStatus::Failed => "failed",
        RunStatus::Running => "running (or the process died)",
    }
}
