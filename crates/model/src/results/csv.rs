//! `summary.csv`: one row per cell, the headline numbers of each `summary.json` (no metric
//! is computed here; every value is read from the summary). The hardware and cost columns
//! are always there, empty where the endpoint states no hardware, so that every run's CSV
//! has the same columns.

use std::path::Path;

use crate::metrics::{Distribution, LoadMetrics};
use crate::results::cost::Cost;
use crate::results::summary::{CellStatus, CellSummary};
use crate::results::{ResultsError, write_atomic};

type Column = (&'static str, fn(&CellSummary) -> String);

/// The columns, in order: header and how to read the value from a summary.
pub const COLUMNS: &[Column] = &[
    ("endpoint", |s| s.cell.endpoint.clone()),
    ("engine", |s| s.cell.engine.as_str().into()),
    ("model", |s| s.cell.model.clone()),
    ("model_name", |s| s.cell.model_name.clone()),
    ("scenario", |s| s.cell.scenario.clone()),
    ("concurrency", |s| opt(s.cell.load.concurrency)),
    ("request_rate", |s| opt(s.cell.load.request_rate)),
    ("arrival", |s| {
        s.cell.load.arrival.map(|a| a.label()).unwrap_or_default()
    }),
    ("max_concurrency", |s| opt(s.cell.load.max_concurrency)),
    ("repeat", |s| s.cell.repeat.to_string()),
    ("status", |s| status(s.status).into()),
    ("steady", |s| s.metrics.steady.steady.to_string()),
    ("measured", |s| s.metrics.requests.measured.to_string()),
    ("ok", |s| s.metrics.requests.measured_ok.to_string()),
    ("errors", |s| s.metrics.requests.measured_errors.to_string()),
    ("error_rate", |s| opt(s.metrics.requests.error_rate)),
    ("error_time_fraction", |s| {
        opt(s.metrics.requests.error_time_fraction)
    }),
    ("ttft_ms_p50", |s| dist(&s.metrics.ttft_ms, |d| d.p50)),
    ("ttft_ms_p90", |s| dist(&s.metrics.ttft_ms, |d| d.p90)),
    ("ttft_ms_p99", |s| dist(&s.metrics.ttft_ms, |d| d.p99)),
    ("tpot_ms_p50", |s| dist(&s.metrics.tpot_ms, |d| d.p50)),
    ("tpot_ms_p99", |s| dist(&s.metrics.tpot_ms, |d| d.p99)),
    ("itl_chunk_ms_p50", |s| {
        dist(&s.metrics.itl_chunk_ms, |d| d.p50)
    }),
    ("itl_chunk_ms_p99", |s| {
        dist(&s.metrics.itl_chunk_ms, |d| d.p99)
    }),
    ("e2e_ms_p50", |s| dist(&s.metrics.e2e_ms, |d| d.p50)),
    ("e2e_ms_p99", |s| dist(&s.metrics.e2e_ms, |d| d.p99)),
    ("jitter_chunk", |s| opt(s.metrics.jitter.chunk)),
    ("jitter_token", |s| opt(s.metrics.jitter.token)),
    ("user_throughput_tps_mean", |s| {
        dist(&s.metrics.user_throughput_tps, |d| d.mean)
    }),
    ("generation_throughput_tps_mean", |s| {
        dist(&s.metrics.generation_throughput_tps, |d| d.mean)
    }),
    ("server_direct_tps", |s| {
        s.metrics.throughput.server_direct_tps.to_string()
    }),
    ("server_derived_tps", |s| {
        opt(s.metrics.throughput.server_derived_tps)
    }),
    ("request_rps", |s| {
        s.metrics.throughput.request_rps.to_string()
    }),
    ("input_tps", |s| opt(s.metrics.throughput.input_tps)),
    ("goodput_fraction", |s| {
        opt(s.metrics.goodput.as_ref().and_then(|g| g.fraction))
    }),
    ("concurrency_mean", |s| {
        s.metrics.concurrency.mean.to_string()
    }),
    ("offered_rps", |s| load(s, |l| Some(l.offered_rps))),
    ("achieved_rps", |s| load(s, |l| Some(l.achieved_rps))),
    ("schedule_lag_ms_p99", |s| {
        load(s, |l| l.schedule_lag_ms.as_ref().map(|d| d.p99))
    }),
    ("queue_ms_p99", |s| {
        load(s, |l| l.queue_ms.as_ref().map(|d| d.p99))
    }),
    ("ttft_from_send_ms_p99", |s| {
        load(s, |l| {
            l.from_send
                .as_ref()
                .and_then(|f| f.ttft_ms.as_ref())
                .map(|d| d.p99)
        })
    }),
    ("overloaded", |s| s.metrics.steady.overloaded.to_string()),
    ("synthetic_data", |s| s.workload.synthetic.to_string()),
    ("labels", |s| {
        s.cell
            .labels
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(";")
    }),
    ("gpu", |s| {
        opt(s.cell.hardware.as_ref().and_then(|h| h.gpu.clone()))
    }),
    ("gpu_count", |s| opt(cost(s, |c| c.gpu_count))),
    ("output_tps_per_gpu", |s| {
        opt(cost(s, |c| c.output_tps_per_gpu))
    }),
    ("cost_per_hour", |s| opt(cost(s, |c| c.cost_per_hour))),
    ("usd_per_million_output_tokens", |s| {
        opt(cost(s, |c| c.usd_per_million_output_tokens))
    }),
];

/// The CSV text for `summaries`.
pub fn render(summaries: &[CellSummary]) -> String {
    let mut out = COLUMNS
        .iter()
        .map(|(h, _)| *h)
        .collect::<Vec<_>>()
        .join(",");
    out.push('\n');
    for s in summaries {
        let row: Vec<String> = COLUMNS.iter().map(|(_, get)| quote(&get(s))).collect();
        out.push_str(&row.join(","));
        out.push('\n');
    }
    out
}

/// Writes `summary.csv` atomically.
pub fn write(path: &Path, summaries: &[CellSummary]) -> Result<(), ResultsError> {
    write_atomic(path, render(summaries).as_bytes())
}

fn status(s: CellStatus) -> &'static str {
    match s {
        CellStatus::Complete => "complete",
        CellStatus::Interrupted => "interrupted",
        CellStatus::Failed => "failed",
    }
}

fn dist(d: &Option<Distribution>, f: fn(&Distribution) -> f64) -> String {
    opt(d.as_ref().map(f))
}

fn opt<T: ToString>(v: Option<T>) -> String {
    v.map(|x| x.to_string()).unwrap_or_default()
}

/// A value of the summary's `load` block (absent in summaries from before open loops).
fn load(s: &CellSummary, f: fn(&LoadMetrics) -> Option<f64>) -> String {
    opt(s.metrics.load.as_ref().and_then(f))
}

/// A value of the summary's `cost` block (absent where the endpoint states no hardware).
fn cost<T>(s: &CellSummary, f: fn(&Cost) -> Option<T>) -> Option<T> {
    s.cost.as_ref().and_then(f)
}

/// RFC 4180 quoting where needed.
fn quote(field: &str) -> String {
    if field.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", field.replace('"', "\"\""))
    } else {
        field.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting() {
        assert_eq!(quote("a,b"), "\"a,b\"");
        assert_eq!(quote("say \"hi\""), "\"say \"\"hi\"\"\"");
        assert_eq!(quote("plain/x"), "plain/x");
    }
}
