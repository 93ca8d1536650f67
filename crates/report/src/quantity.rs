//! The quantities the report shows and where each is read in a `summary.json`: one table
//! shared by figures, report.html and summary.md, so a label always means the same field.
//! Reading only: every value was computed by the core's metrics.

use plateau_model::metrics::Distribution;
pub use plateau_model::results::headline::Better;
use plateau_model::results::summary::CellSummary;

/// A value read from a summary, with its 95% confidence interval when the summary has one.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Reading {
    /// The value.
    pub value: f64,
    /// 95% confidence interval `[low, high]`.
    pub ci: Option<[f64; 2]>,
    /// The percentile rests on too few samples (the summary's `small_sample` flag).
    pub small_sample: bool,
}

impl Reading {
    fn plain(value: f64) -> Reading {
        Reading {
            value,
            ci: None,
            small_sample: false,
        }
    }
}

/// How a quantity is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A count: no decimals.
    Count,
    /// A measurement: three significant digits ([`crate::style::number`]).
    Measure,
}

/// A quantity: its field path in `summary.json`, its label and unit, and how to read it.
#[derive(Clone, Copy, Debug)]
pub struct Quantity {
    /// Where it lives in `summary.json` (`ttft_ms.p50`).
    pub field: &'static str,
    /// Short label (`TTFT p50`).
    pub label: &'static str,
    /// Unit (`ms`, `tok/s`), empty for ratios and counts.
    pub unit: &'static str,
    /// Count or measurement.
    pub kind: Kind,
    /// The value in a summary; `None` when the summary has none.
    pub read: fn(&CellSummary) -> Option<Reading>,
    /// Which way it improves.
    pub better: Better,
}

impl Quantity {
    /// The value in `s`, written for a table (`None` when the summary has none).
    pub fn text(&self, s: &CellSummary) -> Option<String> {
        let r = (self.read)(s)?;
        Some(match self.kind {
            Kind::Count => format!("{:.0}", r.value),
            Kind::Measure => crate::style::number(r.value),
        })
    }

    /// `TTFT p99 (ms)`.
    pub fn axis_label(&self) -> String {
        if self.unit.is_empty() {
            self.label.to_owned()
        } else {
            format!("{} ({})", self.label, self.unit)
        }
    }
}

fn p50(d: &Option<Distribution>) -> Option<Reading> {
    d.as_ref().map(|d| Reading {
        value: d.p50,
        ci: d.p50_ci,
        small_sample: d.small_sample.iter().any(|p| p == "p50"),
    })
}

fn p99(d: &Option<Distribution>) -> Option<Reading> {
    d.as_ref().map(|d| Reading {
        value: d.p99,
        ci: d.p99_ci,
        small_sample: d.small_sample.iter().any(|p| p == "p99"),
    })
}

fn mean(d: &Option<Distribution>) -> Option<Reading> {
    d.as_ref().map(|d| Reading::plain(d.mean))
}

macro_rules! quantity {
    ($name:ident, $field:literal, $label:literal, $unit:literal, $kind:ident, $read:expr) => {
        quantity!($name, $field, $label, $unit, $kind, $read, Neither);
    };
    ($name:ident, $field:literal, $label:literal, $unit:literal, $kind:ident, $read:expr, $better:ident) => {
        #[doc = concat!("`", $field, "`: ", $label, ".")]
        pub const $name: Quantity = Quantity {
            field: $field,
            label: $label,
            unit: $unit,
            kind: Kind::$kind,
            read: $read,
            better: Better::$better,
        };
    };
}

quantity!(CONCURRENCY, "cell.concurrency", "N", "", Count, |s| s
    .cell
    .load
    .concurrency
    .map(|n| Reading::plain(f64::from(n))));
quantity!(
    TARGET_RPS,
    "cell.request_rate",
    "target rate",
    "req/s",
    Measure,
    |s| s.cell.load.request_rate.map(Reading::plain)
);
quantity!(
    OFFERED_RPS,
    "load.offered_rps",
    "offered",
    "req/s",
    Measure,
    |s| s
        .metrics
        .load
        .as_ref()
        .map(|l| Reading::plain(l.offered_rps))
);
quantity!(
    ACHIEVED_RPS,
    "load.achieved_rps",
    "achieved",
    "req/s",
    Measure,
    |s| s
        .metrics
        .load
        .as_ref()
        .map(|l| Reading::plain(l.achieved_rps))
);
quantity!(
    SCHEDULE_LAG_P99,
    "load.schedule_lag_ms.p99",
    "schedule lag p99",
    "ms",
    Measure,
    |s| p99(s
        .metrics
        .load
        .as_ref()
        .map_or(&None, |l| &l.schedule_lag_ms))
);
quantity!(
    QUEUE_P99,
    "load.queue_ms.p99",
    "queue p99",
    "ms",
    Measure,
    |s| p99(s.metrics.load.as_ref().map_or(&None, |l| &l.queue_ms))
);
quantity!(
    GOODPUT_RPS,
    "goodput.rate_rps",
    "goodput",
    "req/s",
    Measure,
    |s| s
        .metrics
        .goodput
        .as_ref()
        .map(|g| Reading::plain(g.rate_rps)),
    Higher
);
quantity!(
    TPS_PER_GPU,
    "cost.output_tps_per_gpu",
    "output per GPU",
    "tok/s",
    Measure,
    |s| s.cost.as_ref()?.output_tps_per_gpu.map(Reading::plain),
    Higher
);
quantity!(
    USD_PER_MILLION,
    "cost.usd_per_million_output_tokens",
    "cost",
    "USD/M out tok",
    Measure,
    |s| s
        .cost
        .as_ref()?
        .usd_per_million_output_tokens
        .map(Reading::plain),
    Lower
);
quantity!(OK, "requests.measured_ok", "ok", "", Count, |s| Some(
    Reading::plain(s.metrics.requests.measured_ok as f64)
));
quantity!(
    ERRORS,
    "requests.measured_errors",
    "errors",
    "",
    Count,
    |s| Some(Reading::plain(s.metrics.requests.measured_errors as f64)),
    Lower
);
quantity!(
    TTFT_P50,
    "ttft_ms.p50",
    "TTFT p50",
    "ms",
    Measure,
    |s| p50(&s.metrics.ttft_ms),
    Lower
);
quantity!(
    TTFT_P99,
    "ttft_ms.p99",
    "TTFT p99",
    "ms",
    Measure,
    |s| p99(&s.metrics.ttft_ms),
    Lower
);
quantity!(
    TPOT_P50,
    "tpot_ms.p50",
    "TPOT p50",
    "ms",
    Measure,
    |s| p50(&s.metrics.tpot_ms),
    Lower
);
quantity!(
    TPOT_P99,
    "tpot_ms.p99",
    "TPOT p99",
    "ms",
    Measure,
    |s| p99(&s.metrics.tpot_ms),
    Lower
);
quantity!(
    ITL_P50,
    "itl_chunk_ms.p50",
    "ITL p50",
    "ms",
    Measure,
    |s| { p50(&s.metrics.itl_chunk_ms) },
    Lower
);
quantity!(
    ITL_P99,
    "itl_chunk_ms.p99",
    "ITL p99",
    "ms",
    Measure,
    |s| { p99(&s.metrics.itl_chunk_ms) },
    Lower
);
quantity!(
    E2E_P50,
    "e2e_ms.p50",
    "E2E p50",
    "ms",
    Measure,
    |s| p50(&s.metrics.e2e_ms),
    Lower
);
quantity!(
    E2E_P99,
    "e2e_ms.p99",
    "E2E p99",
    "ms",
    Measure,
    |s| p99(&s.metrics.e2e_ms),
    Lower
);
quantity!(JITTER_CHUNK, "jitter.chunk", "jitter", "", Measure, |s| s
    .metrics
    .jitter
    .chunk
    .map(Reading::plain));
quantity!(
    JITTER_TOKEN,
    "jitter.token",
    "jitter per token",
    "",
    Measure,
    |s| s.metrics.jitter.token.map(Reading::plain)
);
quantity!(
    USER_TPS,
    "user_throughput_tps.mean",
    "user throughput, mean",
    "tok/s",
    Measure,
    |s| mean(&s.metrics.user_throughput_tps),
    Higher
);
quantity!(
    USER_TPS_P50,
    "user_throughput_tps.p50",
    "user throughput, p50",
    "tok/s",
    Measure,
    |s| p50(&s.metrics.user_throughput_tps),
    Higher
);
quantity!(
    SERVER_TPS,
    "throughput.server_direct_tps",
    "server throughput",
    "tok/s",
    Measure,
    |s| Some(Reading::plain(s.metrics.throughput.server_direct_tps)),
    Higher
);
quantity!(
    SERVER_DERIVED_TPS,
    "throughput.server_derived_tps",
    "server throughput, derived (mean user × N)",
    "tok/s",
    Measure,
    |s| s.metrics.throughput.server_derived_tps.map(Reading::plain),
    Higher
);
quantity!(
    REQUEST_RPS,
    "throughput.request_rps",
    "requests/s",
    "",
    Measure,
    |s| Some(Reading::plain(s.metrics.throughput.request_rps)),
    Higher
);
quantity!(
    CONCURRENCY_MEAN,
    "concurrency.mean",
    "concurrency, mean",
    "",
    Measure,
    |s| Some(Reading::plain(s.metrics.concurrency.mean))
);
quantity!(
    ERROR_RATE,
    "requests.error_rate",
    "error rate",
    "",
    Measure,
    |s| s.metrics.requests.error_rate.map(Reading::plain),
    Lower
);
quantity!(
    GOODPUT_FRACTION,
    "goodput.fraction",
    "goodput share",
    "",
    Measure,
    |s| s
        .metrics
        .goodput
        .as_ref()
        .and_then(|g| g.fraction)
        .map(Reading::plain),
    Higher
);
