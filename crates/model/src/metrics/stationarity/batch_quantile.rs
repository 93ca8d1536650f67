//! Batch quantiles (sectioning): a quantile of a series in time order with a 95% interval
//! that accounts for correlation between neighbouring values, such as the TTFTs of
//! consecutive requests in a closed loop. The series is cut into blocks by the batch-means
//! rule ([`sections`]: the block doubles while the block quantiles are correlated at lag 1);
//! the interval is centred on the quantile of the whole series, with half-width
//! `t(k - 1) x sd(block quantiles) / sqrt(k)` over the `k` blocks. This is sectioning as in
//! Asmussen & Glynn, *Stochastic Simulation* (2007), III.5a, and Nakayama, "Confidence
//! intervals for quantiles using sectioning when applying variance-reduction techniques",
//! ACM TOMACS 24(4), 2014: the whole-series estimate is less biased than the mean of the
//! block quantiles, and the block quantiles carry the correlation into the spread.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{half_width, lag1, sections};
use crate::metrics::distribution::percentile;

/// The first block size, in values (requests): a block quantile of fewer values is biased
/// and its spread understates the whole-series quantile's (the median of 16 normal values
/// varies about 1.5 times as much as their mean; of 1, exactly as much).
pub const QUANTILE_FIRST_BLOCK: usize = 16;

/// A batch-quantiles (sectioning) estimate of a quantile of a series in time order.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct BatchQuantile {
    /// Block size, in values (requests, in order of start).
    pub block: usize,
    /// Blocks used (a last partial block is left out).
    pub blocks: usize,
    /// Lag-1 autocorrelation of the block quantiles at this block size; above 0.2
    /// (`MAX_LAG1`) when no block size that leaves 8 blocks brought it down (the interval
    /// is then too narrow); absent when the block quantiles do not vary.
    pub lag1: Option<f64>,
    /// The quantile of the whole series (every value, the partial block's too): the
    /// interval's centre.
    pub quantile: f64,
    /// Half-width of the 95% interval: Student's t with `blocks - 1` degrees of freedom
    /// times the standard error of the block quantiles.
    pub half_width: f64,
}

impl BatchQuantile {
    /// The half-width as a share of the quantile; `None` when the quantile is 0.
    pub fn relative(&self) -> Option<f64> {
        (self.quantile != 0.0).then(|| self.half_width / self.quantile.abs())
    }
}

/// The `q`-quantile of `x` (in time order) with its batch-quantiles interval, blocks of at
/// least `first_block` values; `None` when `first_block` leaves fewer than 8 blocks.
pub fn batch_quantile(x: &[f64], first_block: usize, q: f64) -> Option<BatchQuantile> {
    let quantile_of = |c: &[f64]| {
        let mut sorted = c.to_vec();
        sorted.sort_by(f64::total_cmp);
        percentile(&sorted, q).unwrap_or(f64::NAN)
    };
    let (block, z) = sections(x, first_block, quantile_of)?;
    Some(BatchQuantile {
        block,
        blocks: z.len(),
        lag1: lag1(&z),
        quantile: quantile_of(x),
        half_width: half_width(&z)?,
    })
}

#[cfg(test)]
mod tests;
