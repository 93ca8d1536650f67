//! Batch means: the mean of a series with a 95% interval that accounts for correlation
//! between neighbouring values. The series is cut into blocks; the block size starts at
//! the smallest one that makes sense (a request lifetime) and doubles while the block means
//! are correlated (lag-1 autocorrelation above [`MAX_LAG1`]) and enough blocks remain. The
//! block size and the lag-1 correlation it reached are reported with the interval.

use serde::{Deserialize, Serialize};

use schemars::JsonSchema;

use super::{batches_by, mean, t_quantile, variance};

/// Lag-1 autocorrelation of the block means below which they are taken as independent.
pub const MAX_LAG1: f64 = 0.2;

/// Fewest blocks an interval is given on (and the fewest the block size may leave).
pub const MIN_BATCHES: usize = 8;

/// A batch-means estimate of a series' mean.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct BatchMeans {
    /// Block size, in the series' steps (seconds for a per-second series).
    pub block: usize,
    /// Blocks used (a last partial block is left out).
    pub blocks: usize,
    /// Lag-1 autocorrelation of the block means at this block size; above [`MAX_LAG1`]
    /// when no block size that leaves enough blocks brought it down (the interval is then
    /// too narrow); absent when the block means do not vary.
    pub lag1: Option<f64>,
    /// Mean of the block means.
    pub mean: f64,
    /// Half-width of the 95% interval of the mean: Student's t with `blocks - 1` degrees of
    /// freedom times the standard error of the block means.
    pub half_width: f64,
}

impl BatchMeans {
    /// The half-width as a share of the mean; `None` when the mean is 0.
    pub fn relative(&self) -> Option<f64> {
        (self.mean != 0.0).then(|| self.half_width / self.mean.abs())
    }
}

/// Lag-1 autocorrelation of `x`; `None` below 3 values or without spread.
pub fn lag1(x: &[f64]) -> Option<f64> {
    let m = mean(x)?;
    let denominator: f64 = x.iter().map(|v| (v - m).powi(2)).sum();
    (x.len() >= 3 && denominator > 0.0)
        .then(|| x.windows(2).map(|w| (w[0] - m) * (w[1] - m)).sum::<f64>() / denominator)
}

/// Batch means of `x` with blocks of at least `first_block` steps (see the module's
/// rule); `None` when even `first_block` leaves fewer than [`MIN_BATCHES`] blocks.
pub fn batch_means(x: &[f64], first_block: usize) -> Option<BatchMeans> {
    let (block, z) = sections(x, first_block, |c| mean(c).unwrap_or(0.0))?;
    let k = z.len();
    Some(BatchMeans {
        block,
        blocks: k,
        lag1: lag1(&z),
        mean: mean(&z)?,
        half_width: half_width(&z)?,
    })
}

/// The module's rule over any per-block statistic `stat` (the mean for batch means, a
/// quantile for batch quantiles): the block size, from `first_block`, and the statistic of
/// each block at it. The block doubles while the lag-1 autocorrelation of the block
/// statistics is above [`MAX_LAG1`] and doubling leaves at least [`MIN_BATCHES`] blocks;
/// `None` when `first_block` already leaves fewer.
pub fn sections(
    x: &[f64],
    first_block: usize,
    stat: impl Fn(&[f64]) -> f64,
) -> Option<(usize, Vec<f64>)> {
    let mut block = first_block.max(1);
    let mut z = batches_by(x, block, &stat);
    if z.len() < MIN_BATCHES {
        return None;
    }
    while lag1(&z).is_some_and(|r| r > MAX_LAG1) && x.len() / (block * 2) >= MIN_BATCHES {
        block *= 2;
        z = batches_by(x, block, &stat);
    }
    Some((block, z))
}

/// Half-width of the 95% interval from `k` block statistics `z`: Student's t with `k - 1`
/// degrees of freedom times their standard error `sd(z) / sqrt(k)`.
pub fn half_width(z: &[f64]) -> Option<f64> {
    let k = z.len() as f64;
    Some(t_quantile(k - 1.0, 0.025)? * (variance(z)? / k).sqrt())
}
