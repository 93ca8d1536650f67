//! The headline metrics `plateau compare` tests and how each is tested: latency percentiles
//! on the per-request values (the core's `Sample` methods, measured successful requests),
//! throughputs on per-second counts inside the measure window (or on the repeats' summary
//! values), error rate and goodput share as proportions of the measured requests.

use plateau_model::metrics::{Window, output_tokens_by_bucket, us_to_ms};
use plateau_model::results::summary::CellSummary;
use plateau_model::sample::Sample;

use crate::quantity::{self as q, Quantity};

/// Blocks of the per-second throughput series, us.
const SECOND_US: u64 = 1_000_000;

/// How a metric's difference is tested.
#[derive(Clone, Copy, Debug)]
pub enum How {
    /// The `q`-quantile of per-request values: Mann-Whitney U on the values, a bootstrap
    /// interval of the quantile difference.
    Percentile {
        /// The quantile (0.5, 0.99).
        q: f64,
        /// Appends a measured successful request's values (ms).
        values: fn(&Sample, &mut Vec<f64>),
    },
    /// A rate over the measure window: Welch's t-test on the repeats' summary values when
    /// both sides have two or more repeats, else on the per-second series.
    Rate(fn(&[Sample], &Window) -> Vec<f64>),
    /// A share of the measured requests, `(hits, trials)` read from a summary: the
    /// two-proportion z-test.
    Proportion(fn(&CellSummary) -> Option<(u64, u64)>),
}

/// A headline metric: the quantity (label, unit, direction, where the summary keeps it)
/// and its test.
#[derive(Clone, Copy, Debug)]
pub struct Metric {
    /// What it is.
    pub q: Quantity,
    /// How it is tested.
    pub how: How,
}

fn ttft(s: &Sample, out: &mut Vec<f64>) {
    out.extend(s.ttft_us().map(|us| us_to_ms(us as f64)));
}

fn tpot(s: &Sample, out: &mut Vec<f64>) {
    out.extend(s.tpot_us().map(us_to_ms));
}

fn itl(s: &Sample, out: &mut Vec<f64>) {
    out.extend(s.itl_chunk_us().map(us_to_ms));
}

fn e2e(s: &Sample, out: &mut Vec<f64>) {
    out.extend(s.e2e_us().map(|us| us_to_ms(us as f64)));
}

/// Whole seconds of the window: `[m0 + k s, m0 + (k + 1) s)` for each k below the
/// window's length in whole seconds (a partial last second would be an outlier).
fn seconds(w: &Window) -> u64 {
    w.duration_us() / SECOND_US
}

/// Output tokens arriving in each whole second of the window (the core's bucketing, as
/// the direct server throughput counts them).
pub fn tokens_per_second(samples: &[Sample], w: &Window) -> Vec<f64> {
    let k = seconds(w);
    if k == 0 {
        return Vec::new();
    }
    output_tokens_by_bucket(samples, w.m0_us, w.m0_us + k * SECOND_US, SECOND_US)
        .into_iter()
        .take(usize::try_from(k).unwrap_or(usize::MAX))
        .map(|n| n as f64)
        .collect()
}

/// Successful requests completing in each whole second of the window (completion as the
/// core's request throughput counts it: a successful request's end).
pub fn requests_per_second(samples: &[Sample], w: &Window) -> Vec<f64> {
    let k = usize::try_from(seconds(w)).unwrap_or(usize::MAX);
    let mut out = vec![0.0; k];
    for s in samples.iter().filter(|s| s.outcome.is_ok()) {
        if let Some(t) = s.t_end_us.checked_sub(w.m0_us)
            && let Some(slot) = usize::try_from(t / SECOND_US)
                .ok()
                .and_then(|i| out.get_mut(i))
        {
            *slot += 1.0;
        }
    }
    out
}

fn errors(s: &CellSummary) -> Option<(u64, u64)> {
    let r = &s.metrics.requests;
    (r.measured > 0).then_some((r.measured_errors, r.measured))
}

fn goodput(s: &CellSummary) -> Option<(u64, u64)> {
    let g = s.metrics.goodput.as_ref()?;
    (g.total > 0).then_some((g.good, g.total))
}

/// Every headline metric, in the order the tables list them.
pub const METRICS: [Metric; 11] = [
    Metric {
        q: q::TTFT_P50,
        how: How::Percentile {
            q: 0.5,
            values: ttft,
        },
    },
    Metric {
        q: q::TTFT_P99,
        how: How::Percentile {
            q: 0.99,
            values: ttft,
        },
    },
    Metric {
        q: q::TPOT_P50,
        how: How::Percentile {
            q: 0.5,
            values: tpot,
        },
    },
    Metric {
        q: q::TPOT_P99,
        how: How::Percentile {
            q: 0.99,
            values: tpot,
        },
    },
    Metric {
        q: q::ITL_P99,
        how: How::Percentile {
            q: 0.99,
            values: itl,
        },
    },
    Metric {
        q: q::E2E_P50,
        how: How::Percentile {
            q: 0.5,
            values: e2e,
        },
    },
    Metric {
        q: q::E2E_P99,
        how: How::Percentile {
            q: 0.99,
            values: e2e,
        },
    },
    Metric {
        q: q::SERVER_TPS,
        how: How::Rate(tokens_per_second),
    },
    Metric {
        q: q::REQUEST_RPS,
        how: How::Rate(requests_per_second),
    },
    Metric {
        q: q::GOODPUT_FRACTION,
        how: How::Proportion(goodput),
    },
    Metric {
        q: q::ERROR_RATE,
        how: How::Proportion(errors),
    },
];
