//! Pettitt's test (Pettitt 1979) for one change of level in a series: the rank statistic
//! `U_t = sum over i <= t < j of sign(x_j - x_i)` is largest in size at the most likely
//! change point, and `K = max |U_t|` has the approximate two-sided p-value
//! `2 exp(-6 K^2 / (n^3 + n^2))`. Distribution-free, so a skewed series does not fool it;
//! it assumes independent values, so it is run on block means chosen to be close to
//! uncorrelated.

use super::batch_means::{MAX_LAG1, MIN_BATCHES};
use super::{batches, mean};

/// Fewest values on which Pettitt's p-value can fall below 0.01: with `n` values `K` is
/// at most `(n / 2)^2`, so `p >= 2 exp(-6 (n/2)^4 / (n^3 + n^2))`, which first drops below
/// 0.01 at 16 values (0.0070; 15 give 0.0107).
pub const PETTITT_MIN_VALUES: usize = 16;

/// The most likely change of level in a series.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pettitt {
    /// How many values come before the change (the first value after it has this index).
    pub at: usize,
    /// `K = max |U_t|`.
    pub k: f64,
    /// Approximate two-sided p-value of "no change".
    pub p: f64,
    /// Mean of the values before the change.
    pub before: f64,
    /// Mean of the values after it.
    pub after: f64,
}

/// Pettitt's test on `x`; `None` with fewer than 3 values.
pub fn pettitt(x: &[f64]) -> Option<Pettitt> {
    let n = x.len();
    if n < 3 {
        return None;
    }
    let sign = |d: f64| {
        if d > 0.0 {
            1.0
        } else if d < 0.0 {
            -1.0
        } else {
            0.0
        }
    };
    // U_t = U_{t-1} + sum_j sign(x_j - x_t) over every j: the pairs (t, j > t) join and
    // the pairs (i < t, t) leave.
    let (mut u, mut best) = (0.0_f64, (0.0_f64, 0usize));
    for t in 0..n - 1 {
        u += x.iter().map(|&xj| sign(xj - x[t])).sum::<f64>();
        if u.abs() > best.0 {
            best = (u.abs(), t);
        }
    }
    let (k, t) = best;
    let nf = n as f64;
    let p = (2.0 * (-6.0 * k * k / (nf.powi(3) + nf.powi(2))).exp()).min(1.0);
    Some(Pettitt {
        at: t + 1,
        k,
        p,
        before: mean(&x[..=t])?,
        after: mean(&x[t + 1..])?,
    })
}

/// Pettitt's test on `x` in blocks of at least `first` steps, the block size doubled while
/// the block means, less the two levels the test finds, are correlated (lag-1 above
/// [`MAX_LAG1`]) and the doubled size still leaves [`MIN_BATCHES`] blocks: the test
/// assumes independent values, and a change of level alone must not count as correlation.
/// Below [`PETTITT_MIN_VALUES`] blocks the test cannot reach 1%, so a series whose blocks
/// stay correlated ends up reported but unable to fire. Returns the block size and the
/// test; `None` below 3 blocks.
pub fn pettitt_blocks(x: &[f64], first: usize) -> Option<(usize, Pettitt)> {
    let mut block = first.max(1);
    loop {
        let z = batches(x, block);
        let p = pettitt(&z)?;
        // Residuals around the two levels, away from the change: values within two blocks
        // of it may sit on the wrong side of a change the test placed a step off.
        let residuals = |range: std::ops::Range<usize>| -> Vec<f64> {
            let level = if range.start < p.at {
                p.before
            } else {
                p.after
            };
            z[range].iter().map(|v| v - level).collect()
        };
        let (left, right) = (
            residuals(0..p.at.saturating_sub(2)),
            residuals((p.at + 2).min(z.len())..z.len()),
        );
        let correlated = pooled_lag1(&left, &right).is_some_and(|r| r > MAX_LAG1);
        if !correlated || x.len() / (block * 2) < MIN_BATCHES {
            return Some((block, p));
        }
        block *= 2;
    }
}

/// Lag-1 autocorrelation of two stretches of residuals (each about mean 0) taken
/// together, pairs never crossing from one to the other; `None` without spread or pairs.
fn pooled_lag1(a: &[f64], b: &[f64]) -> Option<f64> {
    let pairs = |x: &[f64]| x.windows(2).map(|w| w[0] * w[1]).sum::<f64>();
    let squares = |x: &[f64]| x.iter().map(|v| v * v).sum::<f64>();
    let denominator = squares(a) + squares(b);
    (denominator > 0.0 && a.len() + b.len() >= 4).then(|| (pairs(a) + pairs(b)) / denominator)
}
