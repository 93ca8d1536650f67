//! The headline numbers of a cell: the few a reader compares between runs (latency
//! percentiles, throughput, errors), each with where it is read in a summary and which
//! direction is better. Across-run spreads (`repeats.json`) are computed for these.

use crate::results::summary::CellSummary;

/// Which way a number improves: what `plateau compare` calls better.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Better {
    /// Latencies, error rates: smaller is better.
    Lower,
    /// Throughputs, goodput: larger is better.
    Higher,
    /// Neither way (coordinates, counts, ratios shown for context).
    Neither,
}

/// One headline number of a cell summary.
#[derive(Clone, Copy, Debug)]
pub struct Headline {
    /// Its path in `summary.json` (`ttft_ms.p50`), also its key in `repeats.json`.
    pub key: &'static str,
    /// Unit (`ms`, `tok/s`, `req/s`), empty for fractions.
    pub unit: &'static str,
    /// Which way it improves.
    pub better: Better,
    /// The value in a summary; `None` when the summary has none.
    pub read: fn(&CellSummary) -> Option<f64>,
}

/// The headline numbers, in the order tables show them.
pub const HEADLINES: &[Headline] = &[
    Headline {
        key: "ttft_ms.p50",
        unit: "ms",
        better: Better::Lower,
        read: |s| s.metrics.ttft_ms.as_ref().map(|d| d.p50),
    },
    Headline {
        key: "ttft_ms.p99",
        unit: "ms",
        better: Better::Lower,
        read: |s| s.metrics.ttft_ms.as_ref().map(|d| d.p99),
    },
    Headline {
        key: "tpot_ms.p50",
        unit: "ms",
        better: Better::Lower,
        read: |s| s.metrics.tpot_ms.as_ref().map(|d| d.p50),
    },
    Headline {
        key: "tpot_ms.p99",
        unit: "ms",
        better: Better::Lower,
        read: |s| s.metrics.tpot_ms.as_ref().map(|d| d.p99),
    },
    Headline {
        key: "itl_token_ms.p99",
        unit: "ms",
        better: Better::Lower,
        read: |s| s.metrics.itl_token_ms.as_ref().map(|d| d.p99),
    },
    Headline {
        key: "e2e_ms.p50",
        unit: "ms",
        better: Better::Lower,
        read: |s| s.metrics.e2e_ms.as_ref().map(|d| d.p50),
    },
    Headline {
        key: "e2e_ms.p99",
        unit: "ms",
        better: Better::Lower,
        read: |s| s.metrics.e2e_ms.as_ref().map(|d| d.p99),
    },
    Headline {
        key: "throughput.server_direct_tps",
        unit: "tok/s",
        better: Better::Higher,
        read: |s| Some(s.metrics.throughput.server_direct_tps),
    },
    Headline {
        key: "throughput.request_rps",
        unit: "req/s",
        better: Better::Higher,
        read: |s| Some(s.metrics.throughput.request_rps),
    },
    Headline {
        key: "user_throughput_tps.p50",
        unit: "tok/s",
        better: Better::Higher,
        read: |s| s.metrics.user_throughput_tps.as_ref().map(|d| d.p50),
    },
    Headline {
        key: "goodput.rate_rps",
        unit: "req/s",
        better: Better::Higher,
        read: |s| s.metrics.goodput.as_ref().map(|g| g.rate_rps),
    },
    Headline {
        key: "requests.error_rate",
        unit: "",
        better: Better::Lower,
        read: |s| s.metrics.requests.error_rate,
    },
];
