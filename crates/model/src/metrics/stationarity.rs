//! Rules that judge whether a series of measurements is stationary, each a pure function
//! of the series: the MSER warm-up truncation point ([`mser`]), Pettitt's test for one
//! change of level ([`pettitt`]), batch means with a block size chosen so the block means
//! are close to uncorrelated ([`batch_means`]), and the same for a quantile of a series
//! in time order ([`batch_quantile`]: sectioning). The steady verdict (`steady.rs`) applies them to a cell;
//! `docs/src/internals/statistics.md` gives their false-alarm rates on stationary series.

mod batch_means;
mod batch_quantile;
mod mser;
mod pettitt;

#[cfg(test)]
mod tests;

pub use batch_means::{BatchMeans, MAX_LAG1, MIN_BATCHES, batch_means, half_width, lag1, sections};
pub use batch_quantile::{BatchQuantile, QUANTILE_FIRST_BLOCK, batch_quantile};
pub use mser::{MIN_MSER_BATCHES, MSER_BATCH, mser, mser_batch};
pub use pettitt::{PETTITT_MIN_VALUES, Pettitt, pettitt, pettitt_blocks};

use statrs::distribution::{ContinuousCDF, StudentsT};

/// Mean of `x`; `None` when empty.
pub fn mean(x: &[f64]) -> Option<f64> {
    (!x.is_empty()).then(|| x.iter().sum::<f64>() / x.len() as f64)
}

/// Sample variance (n - 1) of `x`; `None` below two values.
pub fn variance(x: &[f64]) -> Option<f64> {
    let m = mean(x)?;
    (x.len() >= 2).then(|| x.iter().map(|v| (v - m).powi(2)).sum::<f64>() / (x.len() - 1) as f64)
}

/// The `1 - tail` quantile of Student's t with `dof` degrees of freedom (1.96 for a large
/// `dof` and `tail` 0.025); `None` for `dof <= 0`.
pub fn t_quantile(dof: f64, tail: f64) -> Option<f64> {
    let t = StudentsT::new(0.0, 1.0, dof).ok()?;
    Some(t.inverse_cdf(1.0 - tail))
}

/// Means of consecutive groups of `size` values; a last shorter group is dropped.
pub fn batches(x: &[f64], size: usize) -> Vec<f64> {
    batches_by(x, size, |c| c.iter().sum::<f64>() / c.len() as f64)
}

/// `stat` of consecutive groups of `size` values; a last shorter group is dropped.
pub fn batches_by(x: &[f64], size: usize, stat: impl Fn(&[f64]) -> f64) -> Vec<f64> {
    x.chunks_exact(size.max(1)).map(stat).collect()
}
