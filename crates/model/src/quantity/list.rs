//! What plateau measured, one constant per quantity (the cell's load, requests and
//! throughput; latency is in `latency.rs`), and the lists that order quantities for a
//! purpose ([`HEADLINES`]). Each constant's closure is the one place its value is read.

use super::latency::*;
use super::{Quantity, Reading, mean, p50, p99};
use crate::metrics::LoadMetrics;
use crate::results::summary::CellSummary;

pub(super) fn plain(v: f64) -> Option<Reading> {
    Some(Reading::plain(v))
}

fn load(s: &CellSummary) -> Option<&LoadMetrics> {
    s.metrics.load.as_deref()
}

// The cell's load.
quantity!(
    CONCURRENCY,
    "cell.concurrency",
    "concurrency",
    "N",
    "",
    Count,
    Neither,
    |s| s
        .cell
        .load
        .concurrency
        .map(|n| Reading::plain(f64::from(n)))
);
quantity!(
    TARGET_RPS,
    "cell.request_rate",
    "request_rate",
    "target rate",
    "req/s",
    Measure,
    Neither,
    |s| s.cell.load.request_rate.map(Reading::plain)
);
quantity!(
    OFFERED_RPS,
    "load.offered_rps",
    "offered_rps",
    "offered",
    "req/s",
    Measure,
    Neither,
    |s| { load(s).and_then(|l| plain(l.offered_rps)) }
);
quantity!(
    ACHIEVED_RPS,
    "load.achieved_rps",
    "achieved_rps",
    "achieved",
    "req/s",
    Measure,
    Neither,
    |s| { load(s).and_then(|l| plain(l.achieved_rps)) }
);
quantity!(
    SCHEDULE_LAG_P99,
    "load.schedule_lag_ms.p99",
    "schedule_lag_ms_p99",
    "schedule lag p99",
    "ms",
    Measure,
    Lower,
    |s| { p99(load(s).map_or(&None, |l| &l.schedule_lag_ms)) }
);
quantity!(
    QUEUE_P99,
    "load.queue_ms.p99",
    "queue_ms_p99",
    "queue p99",
    "ms",
    Measure,
    Lower,
    |s| { p99(load(s).map_or(&None, |l| &l.queue_ms)) }
);
quantity!(
    TTFT_FROM_SEND_P99,
    "load.from_send.ttft_ms.p99",
    "ttft_from_send_ms_p99",
    "TTFT p99 from the send",
    "ms",
    Measure,
    Lower,
    |s| {
        p99(load(s)
            .and_then(|l| l.from_send.as_ref())
            .map_or(&None, |f| &f.ttft_ms))
    }
);
quantity!(
    CONCURRENCY_MEAN,
    "concurrency.mean",
    "concurrency_mean",
    "concurrency, mean",
    "",
    Measure,
    Neither,
    |s| { plain(s.metrics.concurrency.mean) }
);

// Requests.
quantity!(
    MEASURED,
    "requests.measured",
    "measured",
    "measured",
    "",
    Count,
    Neither,
    |s| { plain(s.metrics.requests.measured as f64) }
);
quantity!(
    OK,
    "requests.measured_ok",
    "ok",
    "ok",
    "",
    Count,
    Neither,
    |s| { plain(s.metrics.requests.measured_ok as f64) }
);
quantity!(
    ERRORS,
    "requests.measured_errors",
    "errors",
    "errors",
    "",
    Count,
    Lower,
    |s| { plain(s.metrics.requests.measured_errors as f64) }
);
quantity!(
    ERROR_RATE,
    "requests.error_rate",
    "error_rate",
    "error rate",
    "",
    Measure,
    Lower,
    |s| s.metrics.requests.error_rate.map(Reading::plain)
);
quantity!(
    ERROR_TIME_FRACTION,
    "requests.error_time_fraction",
    "error_time_fraction",
    "slot-time in errors",
    "",
    Measure,
    Lower,
    |s| s.metrics.requests.error_time_fraction.map(Reading::plain)
);

// Throughput.
quantity!(
    USER_TPS,
    "user_throughput_tps.mean",
    "user_throughput_tps_mean",
    "user throughput, mean",
    "tok/s",
    Measure,
    Higher,
    |s| { mean(&s.metrics.user_throughput_tps) }
);
quantity!(
    USER_TPS_P50,
    "user_throughput_tps.p50",
    "user_throughput_tps_p50",
    "user throughput, p50",
    "tok/s",
    Measure,
    Higher,
    |s| { p50(&s.metrics.user_throughput_tps) }
);
quantity!(
    GENERATION_TPS,
    "generation_throughput_tps.mean",
    "generation_throughput_tps_mean",
    "generation throughput, mean",
    "tok/s",
    Measure,
    Higher,
    |s| { mean(&s.metrics.generation_throughput_tps) }
);
quantity!(
    SERVER_TPS,
    "throughput.server_direct_tps",
    "server_direct_tps",
    "server throughput",
    "tok/s",
    Measure,
    Higher,
    |s| { plain(s.metrics.throughput.server_direct_tps) }
);
quantity!(
    SERVER_DERIVED_TPS,
    "throughput.server_derived_tps",
    "server_derived_tps",
    "server throughput, derived (mean user × N)",
    "tok/s",
    Measure,
    Higher,
    |s| s.metrics.throughput.server_derived_tps.map(Reading::plain)
);
quantity!(
    REQUEST_RPS,
    "throughput.request_rps",
    "request_rps",
    "request rate",
    "req/s",
    Measure,
    Higher,
    |s| { plain(s.metrics.throughput.request_rps) }
);
quantity!(
    INPUT_TPS,
    "throughput.input_tps",
    "input_tps",
    "input throughput",
    "tok/s",
    Measure,
    Higher,
    |s| s.metrics.throughput.input_tps.map(Reading::plain)
);
quantity!(
    GOODPUT_RPS,
    "goodput.rate_rps",
    "goodput_rps",
    "goodput",
    "req/s",
    Measure,
    Higher,
    |s| s
        .metrics
        .goodput
        .as_ref()
        .map(|g| Reading::plain(g.rate_rps))
);
quantity!(
    GOODPUT_FRACTION,
    "goodput.fraction",
    "goodput_fraction",
    "goodput share",
    "",
    Measure,
    Higher,
    |s| s
        .metrics
        .goodput
        .as_ref()
        .and_then(|g| g.fraction)
        .map(Reading::plain)
);

/// The headline numbers of a cell, in the order tables show them: the few a reader
/// compares between runs. Across-run spreads (`repeats.json`) are computed for these.
pub const HEADLINES: &[Quantity] = &[
    TTFT_P50,
    TTFT_P99,
    TPOT_P50,
    TPOT_P99,
    ITL_TOKEN_P99,
    E2E_P50,
    E2E_P99,
    SERVER_TPS,
    REQUEST_RPS,
    USER_TPS_P50,
    GOODPUT_RPS,
    ERROR_RATE,
];
