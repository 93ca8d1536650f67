//! Metrics: every number plateau reports, each defined exactly once, from the raw
//! samples of one cell.
//!
//! [`Distribution`] (`distribution.rs`) summarizes a set of values: moments, numpy-style
//! percentiles, confidence intervals.

mod distribution;

pub use distribution::{Distribution, percentile, quantile_ci_ranks};
