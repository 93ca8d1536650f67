//! Plain-text tables for the terminal: the per-cell results table (closed-loop cells, then
//! open-loop cells with their load columns), a one-line result per cell, and the dry-run
//! plan. Formatting only.

use std::fmt::Write;

use plateau_model::load::format_rps;
use plateau_model::metrics::{Distribution, LoadMetrics, TtftBasis};
use plateau_model::results::summary::{CellStatus, CellSummary};
use plateau_model::validate::cell_label;

/// One column: header, width and how to read the value.
type Column = (&'static str, usize, fn(&CellSummary) -> String);

const COLUMNS: &[Column] = &[
    ("cell", 0, cell_label),
    ("ok", 6, |s| s.metrics.requests.measured_ok.to_string()),
    ("err", 4, |s| s.metrics.requests.measured_errors.to_string()),
    ("TTFT p50", 9, |s| ttft(s, |d| d.p50)),
    ("TTFT p99", 9, |s| ttft(s, |d| d.p99)),
    ("TPOT p50", 9, |s| ms(s.metrics.tpot_ms.as_ref(), |d| d.p50)),
    ("ITL p50", 8, |s| {
        ms(s.metrics.itl_chunk_ms.as_ref(), |d| d.p50)
    }),
    ("jitter", 7, |s| {
        s.metrics
            .jitter
            .chunk
            .map_or("-".into(), |j| format!("{j:.2}"))
    }),
    ("user t/s", 9, |s| {
        num(s.metrics.user_throughput_tps.as_ref().map(|d| d.mean))
    }),
    ("server t/s", 11, |s| {
        num(Some(s.metrics.throughput.server_direct_tps))
    }),
    ("req/s", 7, |s| {
        format!("{:.2}", s.metrics.throughput.request_rps)
    }),
    ("conc", 7, |s| format!("{:.1}", s.metrics.concurrency.mean)),
    ("steady", 7, |s| verdict(s).into()),
];

/// Per-GPU throughput and cost, added after the numbers when any cell has a cost block.
const COST_COLUMNS: &[Column] = &[
    ("t/s/GPU", 8, |s| {
        num(s.cost.as_ref().and_then(|c| c.output_tps_per_gpu))
    }),
    ("$/M out", 8, |s| {
        s.cost
            .as_ref()
            .and_then(|c| c.usd_per_million_output_tokens)
            .map_or("-".into(), |usd| format!("{usd:.3}"))
    }),
];

/// The columns of open-loop cells.
const OPEN_COLUMNS: &[Column] = &[
    ("cell", 0, cell_label),
    ("ok", 6, |s| s.metrics.requests.measured_ok.to_string()),
    ("err", 4, |s| s.metrics.requests.measured_errors.to_string()),
    ("rate", 7, |s| {
        s.cell.load.request_rate.map_or("-".into(), format_rps)
    }),
    ("offered", 8, |s| rps(s, |l| l.offered_rps)),
    ("achieved", 9, |s| rps(s, |l| l.achieved_rps)),
    ("lag p99", 8, |s| {
        ms(load(s).and_then(|l| l.schedule_lag_ms.as_ref()), |d| d.p99)
    }),
    ("queue p99", 10, |s| {
        ms(load(s).and_then(|l| l.queue_ms.as_ref()), |d| d.p99)
    }),
    ("TTFT p50", 9, |s| ttft(s, |d| d.p50)),
    ("TTFT p99", 9, |s| ttft(s, |d| d.p99)),
    ("TPOT p50", 9, |s| ms(s.metrics.tpot_ms.as_ref(), |d| d.p50)),
    ("server t/s", 11, |s| {
        num(Some(s.metrics.throughput.server_direct_tps))
    }),
    ("steady", 7, |s| verdict(s).into()),
];

fn load(s: &CellSummary) -> Option<&LoadMetrics> {
    s.metrics.load.as_ref()
}

fn rps(s: &CellSummary, f: fn(&LoadMetrics) -> f64) -> String {
    load(s).map_or("-".into(), |l| format!("{:.2}", f(l)))
}

/// The results table, one row per cell: closed-loop cells, then (under their own header)
/// open-loop cells.
pub fn text(summaries: &[CellSummary]) -> String {
    let (open, closed): (Vec<&CellSummary>, Vec<&CellSummary>) = summaries
        .iter()
        .partition(|s| s.cell.load.request_rate.is_some());
    let with_cost = |base: &[Column], cells: &[&CellSummary]| -> Vec<Column> {
        let mut all = base.to_vec();
        if cells.iter().any(|s| s.cost.is_some()) {
            all.extend_from_slice(COST_COLUMNS);
        }
        all
    };
    let mut out = String::new();
    if !closed.is_empty() {
        out.push_str(&columns(&with_cost(COLUMNS, &closed), &closed));
        out.push_str("times in ms; t/s = output tokens per second; conc = mean achieved concurrency in Measure\n");
    }
    if !open.is_empty() {
        out.push_str(&columns(&with_cost(OPEN_COLUMNS, &open), &open));
        out.push_str("open loop: rates in req/s; TTFT from the intended send; lag = schedule lag; OVERL. = overloaded (arrivals outpaced the server)\n");
    }
    if summaries.iter().any(|s| s.cost.is_some()) {
        out.push_str("t/s/GPU = server output tok/s per GPU; $/M out = USD per million output tokens at the endpoint's cost_per_hour\n");
    }
    if summaries.iter().any(whole_response) {
        out.push_str("* stream: false: TTFT is the time to the whole response\n");
    }
    out
}

/// `summaries` under the header of `columns`.
fn columns(columns: &[Column], summaries: &[&CellSummary]) -> String {
    let first = summaries
        .iter()
        .map(|s| cell_label(s).len())
        .max()
        .unwrap_or(4)
        .max(4);
    let mut out = String::new();
    for (i, (h, w, _)) in columns.iter().enumerate() {
        let _ = if i == 0 {
            write!(out, "{h:<first$}")
        } else {
            write!(out, " {h:>w$}")
        };
    }
    out.push('\n');
    for s in summaries {
        for (i, (_, w, get)) in columns.iter().enumerate() {
            let v = get(s);
            let _ = if i == 0 {
                write!(out, "{v:<first$}")
            } else {
                write!(out, " {v:>w$}")
            };
        }
        out.push('\n');
    }
    out
}

fn whole_response(s: &CellSummary) -> bool {
    s.metrics.ttft_basis == TtftBasis::WholeResponse
}

/// A TTFT value, marked `*` where it is the time to the whole response.
fn ttft(s: &CellSummary, f: fn(&Distribution) -> f64) -> String {
    let v = ms(s.metrics.ttft_ms.as_ref(), f);
    if whole_response(s) { v + "*" } else { v }
}

/// One cell in one line.
pub fn one_line(s: &CellSummary) -> String {
    format!(
        "TTFT p50 {} ms, TPOT p50 {} ms, {} tok/s server, {} ok / {} err, {}",
        ttft(s, |d| d.p50),
        ms(s.metrics.tpot_ms.as_ref(), |d| d.p50),
        num(Some(s.metrics.throughput.server_direct_tps)),
        s.metrics.requests.measured_ok,
        s.metrics.requests.measured_errors,
        verdict(s)
    )
}

fn verdict(s: &CellSummary) -> &'static str {
    match (s.status, s.metrics.steady.steady) {
        (CellStatus::Interrupted, _) => "interr.",
        (CellStatus::Failed, _) => "FAILED",
        _ if s.metrics.steady.overloaded => "OVERL.",
        (_, true) => "yes",
        (_, false) => "NO",
    }
}

fn ms(d: Option<&Distribution>, f: fn(&Distribution) -> f64) -> String {
    d.map_or("-".into(), |d| format!("{:.1}", f(d)))
}

fn num(v: Option<f64>) -> String {
    v.map_or("-".into(), |x| format!("{x:.0}"))
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
