//! The quantities `plateau compare` tests and where each comes from: latency percentiles
//! and means over the per-request values (the model's `Sample` methods, measured successful
//! requests), throughputs over the window's time blocks, error rate and goodput share as
//! shares of the measured requests. Every one is tested the same way, by the block
//! bootstrap in `bootstrap.rs`, so each has its own interval and p-value.

use plateau_model::quantity::{self as q, Quantity};
use plateau_model::sample::Sample;

/// Per-request values a quantity reads (ms), from a measured successful request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Values {
    /// TTFT.
    Ttft,
    /// TPOT (requests with at least two tokens).
    Tpot,
    /// Every inter-chunk gap (ITL per chunk).
    Itl,
    /// E2E.
    E2e,
}

impl Values {
    /// Every kind, in the order blocks keep them.
    pub const ALL: [Values; 4] = [Values::Ttft, Values::Tpot, Values::Itl, Values::E2e];

    /// Appends the request's values of this kind, ms.
    pub fn push(self, s: &Sample, out: &mut Vec<f64>) {
        let ms = |us: f64| us / 1e3;
        match self {
            Values::Ttft => out.extend(s.ttft_us().map(|us| ms(us as f64))),
            Values::Tpot => out.extend(s.tpot_us().map(ms)),
            Values::Itl => out.extend(s.itl_chunk_us().map(ms)),
            Values::E2e => out.extend(s.e2e_us().map(|us| ms(us as f64))),
        }
    }

    /// Index in [`Values::ALL`].
    pub fn index(self) -> usize {
        self as usize
    }
}

/// A rate over the window.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rate {
    /// Output tokens arriving, per second (server throughput, direct).
    Tokens,
    /// Successful requests completing, per second.
    Completions,
}

/// A share of the measured requests.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Share {
    /// Failed / measured.
    Errors,
    /// Meeting every SLO / measured (the run's `slo`).
    Goodput,
}

/// How a quantity is computed from a (resampled) side.
#[derive(Clone, Copy, Debug)]
pub enum How {
    /// The `q`-quantile of per-request values (numpy's linear interpolation).
    Percentile {
        /// The quantile (0.5, 0.99).
        q: f64,
        /// Of which values.
        values: Values,
    },
    /// The mean of per-request values.
    Mean(Values),
    /// A rate over the window.
    Rate(Rate),
    /// A share of the measured requests.
    Share(Share),
}

/// A compared quantity: what it is (label, unit, direction, where the summary keeps it)
/// and how it is computed.
#[derive(Clone, Copy, Debug)]
pub struct Metric {
    /// What it is.
    pub q: Quantity,
    /// How it is computed.
    pub how: How,
}

const fn pct(q: Quantity, at: f64, values: Values) -> Metric {
    Metric {
        q,
        how: How::Percentile { q: at, values },
    }
}

/// Every compared quantity, in the order the tables list them.
pub const METRICS: [Metric; 14] = [
    pct(q::TTFT_P50, 0.5, Values::Ttft),
    pct(q::TTFT_P99, 0.99, Values::Ttft),
    Metric {
        q: q::TTFT_MEAN,
        how: How::Mean(Values::Ttft),
    },
    pct(q::TPOT_P50, 0.5, Values::Tpot),
    pct(q::TPOT_P99, 0.99, Values::Tpot),
    Metric {
        q: q::TPOT_MEAN,
        how: How::Mean(Values::Tpot),
    },
    pct(q::ITL_P99, 0.99, Values::Itl),
    pct(q::E2E_P50, 0.5, Values::E2e),
    pct(q::E2E_P99, 0.99, Values::E2e),
    Metric {
        q: q::E2E_MEAN,
        how: How::Mean(Values::E2e),
    },
    Metric {
        q: q::SERVER_TPS,
        how: How::Rate(Rate::Tokens),
    },
    Metric {
        q: q::REQUEST_RPS,
        how: How::Rate(Rate::Completions),
    },
    Metric {
        q: q::GOODPUT_FRACTION,
        how: How::Share(Share::Goodput),
    },
    Metric {
        q: q::ERROR_RATE,
        how: How::Share(Share::Errors),
    },
];

/// The quantities the per-scenario summary tables show, one column each.
pub const HEADLINE: [Quantity; 5] = [
    q::SERVER_TPS,
    q::TTFT_P50,
    q::TTFT_P99,
    q::TPOT_P50,
    q::E2E_P99,
];
