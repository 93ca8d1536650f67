//! The tables of report.html and summary.md: which columns, in which order, and which rows.
//! The summary table ([`summary`], [`SUMMARY_COLUMNS`]) is the one both open on: a row per
//! cell, scenario by scenario, with the few numbers a user quotes. Below it, the
//! per-scenario results tables ([`groups`]): one of closed-loop cells (by N) and one of
//! open-loop cells (by request rate, with the load columns and the overload verdict), each
//! with per-GPU throughput and cost where its endpoint states hardware, and the server's
//! running, waiting and KV-cache gauges where its `/metrics` was scraped.
//! Writers format them; nothing is computed here.

use plateau_model::load::Load;
use plateau_model::results::run_info::RunStatus;
use plateau_model::results::summary::CellSummary;
use plateau_model::validate::{self, Thresholds, Verdict};

use crate::matrix::{Cell, Matrix, Scenario};
use crate::quantity::{self as q, Quantity};

/// The numeric columns of the summary table, in order (the scenario, series and load
/// columns come before them, the verdict after): what a user quotes of a cell. summary.csv
/// has each of them under its [`Quantity::column`].
pub const SUMMARY_COLUMNS: [Quantity; 6] = [
    q::SERVER_TPS,
    q::TTFT_P50,
    q::TTFT_P99,
    q::TPOT_P50,
    q::TPOT_P99,
    q::ERRORS,
];

/// The numeric columns of a closed-loop table, in order (the series and steady columns are
/// added around them).
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

/// The numeric columns of an open-loop table, in order (the series, overloaded and steady
/// columns are added around them).
pub const OPEN_COLUMNS: [Quantity; 14] = [
    q::TARGET_RPS,
    q::OFFERED_RPS,
    q::ACHIEVED_RPS,
    q::SCHEDULE_LAG_P99,
    q::QUEUE_P99,
    q::OK,
    q::ERRORS,
    q::TTFT_P50,
    q::TTFT_P99,
    q::TPOT_P50,
    q::TPOT_P99,
    q::ITL_P99,
    q::SERVER_TPS,
    q::GOODPUT_RPS,
];

/// The cost columns, added to a table when any of its cells has a `cost` block (its
/// endpoint states `hardware`).
pub const COST_COLUMNS: [Quantity; 2] = [q::TPS_PER_GPU, q::USD_PER_MILLION];

/// The server's own view of Measure, added to a table when any of its cells scraped the
/// server's `/metrics`: a waiting queue while plateau holds N in flight means the server
/// is saturated at that N.
pub const SERVER_COLUMNS: [Quantity; 4] = [
    q::SERVER_RUNNING_MEAN,
    q::SERVER_WAITING_MEAN,
    q::SERVER_KV_MAX,
    q::SERVER_PREFIX_HIT_RATE,
];

/// The GPUs' energy over Measure, added to a table when any of its cells sampled them
/// (`gpu_metrics`).
pub const GPU_COLUMNS: [Quantity; 3] = [
    q::GPU_POWER_MEAN,
    q::GPU_JOULES_PER_TOKEN,
    q::GPU_TOKENS_PER_JOULE,
];

/// Whether any of `rows` has a cost block.
fn any_cost(rows: &[Row<'_>]) -> bool {
    rows.iter().any(|r| r.summary.cost.is_some())
}

/// One scenario's table of closed-loop or of open-loop cells.
pub struct Group<'a> {
    /// The scenario.
    pub scenario: &'a Scenario,
    /// Open-loop cells (else closed-loop).
    pub open: bool,
    /// The numeric columns: [`COLUMNS`] or [`OPEN_COLUMNS`], then [`COST_COLUMNS`] when a
    /// row has a cost and [`SERVER_COLUMNS`] when a row has the server's metrics.
    pub columns: Vec<Quantity>,
    /// Rows: the series label (when the run has several series), the cell's path and summary.
    pub rows: Vec<Row<'a>>,
}

/// One row: a cell.
pub struct Row<'a> {
    /// Series label, when the run has more than one series.
    pub series: Option<&'a str>,
    /// Its load: N or a request rate.
    pub load: Load,
    /// Path relative to the results directory.
    pub rel: &'a str,
    /// The summary.
    pub summary: &'a CellSummary,
}

impl Group<'_> {
    /// The table's heading: `A1 · Same Short`, `A1 · Same Short, open loop`.
    pub fn title(&self) -> String {
        if self.open {
            format!("{}, open loop", self.scenario.title())
        } else {
            self.scenario.title()
        }
    }
}

/// The tables of `m`: per scenario, its closed-loop cells by series then concurrency, then
/// its open-loop cells by series then rate (a table without rows is left out).
pub fn groups<'a>(m: &'a Matrix<'a>) -> Vec<Group<'a>> {
    let group = |k: usize, open: bool| {
        let cells = if open { &m.open } else { &m.cells };
        let rows: Vec<Row<'a>> = cells
            .iter()
            .filter(|c| c.scenario == k)
            .map(|c| row(m, c))
            .collect();
        let mut columns = if open {
            OPEN_COLUMNS.to_vec()
        } else {
            COLUMNS.to_vec()
        };
        if any_cost(&rows) {
            columns.extend(COST_COLUMNS);
        }
        if rows.iter().any(|r| r.summary.server.is_some()) {
            columns.extend(SERVER_COLUMNS);
        }
        if rows.iter().any(|r| r.summary.gpu.is_some()) {
            columns.extend(GPU_COLUMNS);
        }
        Group {
            scenario: &m.scenarios[k],
            open,
            columns,
            rows,
        }
    };
    (0..m.scenarios.len())
        .flat_map(|k| [group(k, false), group(k, true)])
        .filter(|g| !g.rows.is_empty())
        .collect()
}

/// The row of `cell` (its series named when `m` has several).
fn row<'a>(m: &'a Matrix<'a>, cell: &Cell<'a>) -> Row<'a> {
    Row {
        series: (m.series.len() > 1).then(|| m.series[cell.series].label.as_str()),
        load: cell.load,
        rel: cell.rel,
        summary: cell.summary,
    }
}

/// The summary table of `m`: per scenario with cells, its rows, series by series, each
/// series' closed-loop cells by N then its open-loop cells by request rate.
pub fn summary<'a>(m: &'a Matrix<'a>) -> Vec<(&'a Scenario, Vec<Row<'a>>)> {
    (0..m.scenarios.len())
        .map(|k| {
            let mut cells: Vec<&Cell<'a>> = m.all().filter(|c| c.scenario == k).collect();
            cells.sort_by_key(|c| c.series);
            let rows: Vec<Row<'a>> = cells.into_iter().map(|c| row(m, c)).collect();
            (&m.scenarios[k], rows)
        })
        .filter(|(_, rows)| !rows.is_empty())
        .collect()
}

/// The overloaded column of an open-loop table: `yes` with the core's reason, or `no`.
pub fn overloaded(s: &CellSummary) -> (&'static str, String) {
    match s.metrics.load.as_ref().and_then(|l| l.overloaded.clone()) {
        Some(why) => ("overloaded", why),
        None if s.metrics.steady.overloaded => ("overloaded", String::new()),
        None => ("no", String::new()),
    }
}

/// The header of a column: `TTFT p50 (ms)`.
pub fn header(q: &Quantity) -> String {
    q.axis_label()
}

/// The verdict column: `steady`, `overloaded`, `interrupted`, `failed` or the checks the
/// cell failed (`FAIL unsteady, client_bottleneck`), and why; the same checks as the
/// findings, so a row never reads steady beside a failure.
pub fn verdict(s: &CellSummary, t: &Thresholds) -> Verdict {
    validate::verdict(s, t)
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
