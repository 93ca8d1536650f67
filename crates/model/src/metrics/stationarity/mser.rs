//! MSER, the marginal standard error rule (White 1997), in its MSER-5 form (Spratt 1998):
//! the series is cut into batches of 5 observations and the warm-up truncation point is
//! the number of leading batches whose removal minimizes the standard error of the mean of
//! what remains, searched over the first half of the batches (past it, the statistic rests
//! on too few batches and tends to fall for noise alone).

use super::batches;

/// Observations per batch of MSER-5.
pub const MSER_BATCH: usize = 5;

/// Fewest batches MSER is run on: below this, one noisy batch decides the truncation.
pub const MIN_MSER_BATCHES: usize = 10;

/// The batch size for a series of `n` observations: [`MSER_BATCH`] when that leaves at
/// least [`MIN_MSER_BATCHES`] batches, else the largest size that does (down to single
/// observations); `None` below [`MIN_MSER_BATCHES`] observations.
pub fn mser_batch(n: usize) -> Option<usize> {
    (n >= MIN_MSER_BATCHES).then(|| (n / MIN_MSER_BATCHES).clamp(1, MSER_BATCH))
}

/// The MSER truncation point of `x` with batches of `batch` observations: how many leading
/// observations to drop (a multiple of `batch`), chosen among the first half of the batches
/// as the one minimizing `sum((z_j - mean)^2) / (k - d)^2` over the `k - d` batch means `z`
/// kept. `None` with fewer than [`MIN_MSER_BATCHES`] batches.
pub fn mser(x: &[f64], batch: usize) -> Option<usize> {
    let z = batches(x, batch);
    let k = z.len();
    if k < MIN_MSER_BATCHES {
        return None;
    }
    // Suffix sums of the batch means, centred on their overall mean to keep the sum of
    // squares accurate.
    let centre = z.iter().sum::<f64>() / k as f64;
    let (mut sum, mut squares) = (vec![0.0; k + 1], vec![0.0; k + 1]);
    for j in (0..k).rev() {
        let v = z[j] - centre;
        sum[j] = sum[j + 1] + v;
        squares[j] = squares[j + 1] + v * v;
    }
    let mut best = (f64::INFINITY, 0);
    for d in 0..=k / 2 {
        let n = (k - d) as f64;
        let spread = (squares[d] - sum[d] * sum[d] / n).max(0.0);
        let statistic = spread / (n * n);
        if statistic < best.0 {
            best = (statistic, d);
        }
    }
    Some(best.1 * batch.max(1))
}
