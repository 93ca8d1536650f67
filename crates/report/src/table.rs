//! Plain-text tables for the terminal: the per-cell results table (closed-loop cells, then
//! open-loop cells with their load columns) and a one-line result per cell. Every number is
//! a registered [`Quantity`], read and written as the registry says; only the short
//! headers are this table's. Formatting only.

use std::fmt::Write;

use plateau_model::load::LoadInfo;
use plateau_model::metrics::{Distribution, TtftBasis};
use plateau_model::quantity::{self as q, Quantity};
use plateau_model::results::summary::CellSummary;
use plateau_model::results::token_check::SERVER;
use plateau_model::validate::{self, Thresholds, cell_label};

/// One column of the terminal table.
#[derive(Clone, Copy)]
enum Column {
    /// The cell's label.
    Cell,
    /// A quantity under a short header.
    Number(&'static str, Quantity),
    /// The verdict: steady, or the checks the cell failed.
    Verdict,
}

use Column::{Cell, Number, Verdict};

/// Columns are as wide as their header or widest value, two spaces apart, so the default
/// run's table fits in 100 columns; ITL, jitter, the achieved concurrency (the steady
/// verdict checks it) and the rest are in the report and the CSV.
const GAP: &str = "  ";

const COLUMNS: &[Column] = &[
    Cell,
    Number("ok", q::OK),
    Number("err", q::ERRORS),
    Number("TTFT p50", q::TTFT_P50),
    Number("TTFT p99", q::TTFT_P99),
    Number("TPOT p50", q::TPOT_P50),
    Number("user t/s", q::USER_TPS),
    Number("server t/s", q::SERVER_TPS),
    Number("req/s", q::REQUEST_RPS),
    Verdict,
];

/// Per-GPU throughput and cost, added before the verdict when any cell has a cost block.
const COST_COLUMNS: &[Column] = &[
    Number("t/s/GPU", q::TPS_PER_GPU),
    Number("$/M out", q::USD_PER_MILLION),
];

/// The columns of open-loop cells (the client-side queue is added when a cell has one).
const OPEN_COLUMNS: &[Column] = &[
    Cell,
    Number("err", q::ERRORS),
    Number("rate", q::TARGET_RPS),
    Number("achieved", q::ACHIEVED_RPS),
    Number("lag p99", q::SCHEDULE_LAG_P99),
    Number("TTFT p50", q::TTFT_P50),
    Number("TTFT p99", q::TTFT_P99),
    Number("TPOT p50", q::TPOT_P50),
    Number("server t/s", q::SERVER_TPS),
    Verdict,
];

/// The results table, one row per cell: closed-loop cells, then (under their own header)
/// open-loop cells.
pub fn text(summaries: &[CellSummary]) -> String {
    let (open, closed): (Vec<&CellSummary>, Vec<&CellSummary>) = summaries
        .iter()
        .partition(|s| s.cell.load.request_rate.is_some());
    let with = |base: &[Column], cells: &[&CellSummary]| -> Vec<Column> {
        let mut all: Vec<Column> = base.iter().map(|&c| tail(c, cells)).collect();
        let verdict = all.pop();
        if cells.iter().any(|s| s.cell.load.max_concurrency.is_some()) {
            all.push(Number("queue p99", q::QUEUE_P99));
        }
        if cells.iter().any(|s| s.cost.is_some()) {
            all.extend_from_slice(COST_COLUMNS);
        }
        all.extend(verdict);
        all
    };
    let mut out = String::new();
    if !closed.is_empty() {
        out.push_str(&columns(&with(COLUMNS, &closed), &closed));
        out.push_str("times in ms; t/s = output tokens per second\n");
    }
    if !open.is_empty() {
        out.push_str(&columns(&with(OPEN_COLUMNS, &open), &open));
        let units = LoadInfo::rate_units(open.iter().map(|s| &s.cell.load));
        let _ = writeln!(
            out,
            "open loop: rates in {units}; TTFT from the intended send; lag = schedule lag; overloaded = arrivals outpaced the server"
        );
    }
    if summaries.iter().any(|s| s.cost.is_some()) {
        out.push_str("t/s/GPU = server output tok/s per GPU; $/M out = USD per million output tokens at the endpoint's cost_per_hour\n");
    }
    if summaries.iter().any(p99_too_few) {
        out.push_str(
            "TTFT p95 where a cell's p99 rests on fewer than 1000 requests (small_sample)\n",
        );
    }
    if summaries.iter().any(whole_response) {
        out.push_str("* stream: false: TTFT is the time to the whole response\n");
    }
    out
}

/// `summaries` under the header of `columns`, each column as wide as its widest entry (in
/// display width: comfy-table measures wide and combining characters).
fn columns(columns: &[Column], summaries: &[&CellSummary]) -> String {
    let header = |c: &Column| match c {
        Cell => "cell",
        Number(h, _) => h,
        Verdict => "verdict",
    };
    let text = |c: &Column, s: &CellSummary| match c {
        Cell => cell_label(s),
        Number(_, q) => value(q, s),
        Verdict => verdict(s),
    };
    let mut table = comfy_table::Table::new();
    table
        .load_style(comfy_table::presets::NOTHING)
        .set_header(columns.iter().map(header));
    for s in summaries {
        table.add_row(columns.iter().map(|c| text(c, s)));
    }
    for (i, column) in table.column_iter_mut().enumerate() {
        // Labels left, numbers right; two spaces between columns, none before the first.
        if i > 0 {
            column.set_cell_alignment(comfy_table::CellAlignment::Right);
        }
        column.set_padding((if i == 0 { 0 } else { GAP.len() as u16 }, 0));
    }
    let mut out = String::new();
    for line in table.lines() {
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// `q`'s value in `s` as the registry writes it, `-` when absent, and `*` after a TTFT that
/// is the time to the whole response.
fn value(q: &Quantity, s: &CellSummary) -> String {
    let v = q.text(s).unwrap_or_else(|| "-".into());
    if q.field.starts_with("ttft_ms") && whole_response(s) {
        v + "*"
    } else {
        v
    }
}

/// The TTFT tail column of a table of `cells`: p99 where every cell has the requests for
/// it, else p95 (the table prints no percentile that the samples of a row cannot carry
/// without saying so in the small_sample finding).
fn tail(c: Column, cells: &[&CellSummary]) -> Column {
    match c {
        Number(_, q) if q.field == q::TTFT_P99.field && cells.iter().any(|s| p99_too_few(s)) => {
            Number("TTFT p95", q::TTFT_P95)
        }
        other => other,
    }
}

/// Whether the cell's TTFT p99 rests on too few requests to print as a p99.
fn p99_too_few(s: &CellSummary) -> bool {
    (q::TTFT_P99.read)(s).is_some_and(|r| r.small_sample)
}

fn whole_response(s: &CellSummary) -> bool {
    s.metrics.ttft_basis == TtftBasis::WholeResponse
}

/// One cell in one line; an overloaded cell says what the server completed of what was
/// offered.
pub fn one_line(s: &CellSummary) -> String {
    let verdict = if s.metrics.steady.overloaded {
        format!(
            "overloaded: completed {} of {} req/s offered",
            value(&q::ACHIEVED_RPS, s),
            value(&q::OFFERED_RPS, s)
        )
    } else {
        verdict(s)
    };
    format!(
        "TTFT p50 {} ms, TPOT p50 {} ms, {} tok/s server, {} ok / {} err, verdict: {verdict}",
        value(&q::TTFT_P50, s),
        value(&q::TPOT_P50, s),
        value(&q::SERVER_TPS, s),
        s.metrics.requests.measured_ok,
        s.metrics.requests.measured_errors,
    )
}

/// The verdict column, under the thresholds `plateau run` checks with.
fn verdict(s: &CellSummary) -> String {
    validate::verdict(s, &Thresholds::default()).word
}

fn ms(d: Option<&Distribution>, f: fn(&Distribution) -> f64) -> String {
    d.map_or("-".into(), |d| format!("{:.1}", f(d)))
}

/// TTFT p50 by conversation turn for the multi-turn cells (empty when there are none).
pub fn turns(summaries: &[CellSummary]) -> String {
    let mut out = String::new();
    for s in summaries.iter().filter(|s| !s.metrics.turns.is_empty()) {
        let _ = write!(out, "{} TTFT p50 by turn:", cell_label(s));
        for t in s.metrics.turns.iter().take(8) {
            let _ = write!(
                out,
                "  {}: {} ms",
                t.turn,
                ms(t.ttft_ms.as_ref(), |d| d.p50)
            );
        }
        out.push('\n');
    }
    out
}

/// The server's `/tokenize` count of each scenario's prompts against plateau's: a header
/// line, then one line per endpoint and model with, per scenario (first cell that has a
/// check), the gap in the texts' counts and the chat template's tokens; empty when no
/// cell has a check, and for cells whose lengths were met in the server's tokens (the gap
/// was made up for at preparation, which said so).
pub fn token_checks(summaries: &[CellSummary]) -> String {
    let mut groups: Vec<(String, Vec<String>)> = Vec::new();
    let mut seen = std::collections::BTreeSet::new();
    for s in summaries.iter().filter(|s| s.tokenizer != SERVER) {
        let Some(c) = &s.token_check else { continue };
        let cell = &s.cell;
        if !seen.insert((
            cell.endpoint.clone(),
            cell.model.clone(),
            cell.scenario.clone(),
        )) {
            continue;
        }
        let group = format!("{}/{}", cell.endpoint, cell.model);
        let entry = match (c.rel_diff, c.template_tokens_mean()) {
            (Some(d), Some(t)) => format!("{} {:+.1}% {t:.0}", cell.scenario, d * 100.0),
            (Some(d), None) => format!("{} {:+.1}%", cell.scenario, d * 100.0),
            (None, _) => format!("{} n/a", cell.scenario),
        };
        match groups.iter_mut().find(|(g, _)| *g == group) {
            Some((_, entries)) => entries.push(entry),
            None => groups.push((group, vec![entry])),
        }
    }
    if groups.is_empty() {
        return String::new();
    }
    let mut out = String::from(
        "prompt tokens, the server's /tokenize vs plateau's tokenizer (text gap, chat template tokens):\n",
    );
    for (group, entries) in groups {
        let _ = writeln!(out, "  {group}  {}", entries.join("  "));
    }
    out
}
