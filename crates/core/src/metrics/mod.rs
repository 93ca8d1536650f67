//! Metrics: every number plateau reports, each defined exactly once, from the raw
//! [`Sample`]s of one cell.
//!
//! - per-request metrics are methods on [`Sample`] (`request.rs`: [`Sample::ttft_us`],
//!   [`Sample::tpot_us`], [`Sample::itl_gaps`], ...), each summarized into a
//!   [`Distribution`] (`distribution.rs`: moments, numpy-style percentiles, confidence
//!   intervals);
//! - [`Throughput`] counts tokens **arriving** in `[m0, m1]` from every request
//!   (`throughput.rs`, whose [`output_tokens_by_bucket`] also feeds the [`timeline`]);
//! - [`Concurrency`] is exact from request intervals (`concurrency.rs`);
//! - [`timeline`] gives the report's per-cell figure its series over the whole cell.

mod concurrency;
mod distribution;
mod request;
mod throughput;
mod timeline;

#[cfg(test)]
mod fixtures;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub use concurrency::Concurrency;
pub use distribution::{Distribution, percentile, quantile_ci_ranks};
pub use request::{Gap, us_to_ms};
pub use throughput::{Throughput, output_tokens_by_bucket};
pub use timeline::{TimelinePoint, timeline};

use crate::sample::Sample;

/// The measure window of a cell and its target concurrency.
///
/// `m1_us` must be above `m0_us` (the plan requires a positive `measure_seconds`); a
/// degenerate window is taken as 1 us long for rates, so they stay finite.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Window {
    /// Start of Measure (`m0`), us since the cell's start.
    pub m0_us: u64,
    /// End of Measure (`m1`), us since the cell's start.
    pub m1_us: u64,
    /// Target concurrency N.
    pub concurrency: u32,
}

impl Window {
    /// Whether `sample` is measured: sent in `[m0, m1)`, whatever its phase label or
    /// outcome.
    pub fn measures(&self, sample: &Sample) -> bool {
        (self.m0_us..self.m1_us).contains(&sample.t_sent_us)
    }

    /// Whether the instant `t_us` is inside `[m0, m1]` (for arrivals and completions).
    pub fn contains(&self, t_us: u64) -> bool {
        (self.m0_us..=self.m1_us).contains(&t_us)
    }

    /// `m1 - m0` in us, at least 1.
    pub fn duration_us(&self) -> u64 {
        self.m1_us.saturating_sub(self.m0_us).max(1)
    }

    /// `m1 - m0` in seconds, above 0.
    pub fn duration_s(&self) -> f64 {
        self.duration_us() as f64 / 1e6
    }
}
