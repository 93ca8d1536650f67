//! Change points in a series of runs' values: binary segmentation on the mean-shift
//! (CUSUM) statistic, each split accepted only when a permutation test finds it
//! significant. The statistic of a split after `t` of `n` values is
//! `sqrt(t (n - t) / n) |mean(before) - mean(after)|`; its largest value over the splits
//! leaving at least [`MIN_SEGMENT`] values on each side is compared with the largest
//! values of [`PERMUTATIONS`] seeded shuffles of the same values (no change: any order is
//! as likely), and the split is a change point when at most [`ALPHA`] of the shuffles reach
//! it. Each side is then searched the same way. Being a test of the whole series, not of
//! one step, it finds a slow drift whose steps are each within the gate's tolerance.

use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;

/// Fewest values on each side of a change point.
pub const MIN_SEGMENT: usize = 2;
/// Shuffles per test.
pub const PERMUTATIONS: usize = 2000;
/// Significance level of each split.
pub const ALPHA: f64 = 0.05;
/// The shuffles' seed: the same answer every time.
pub const SEED: u64 = 0x7472_656e_6473;

/// A change point: the series shifts between value `at - 1` and value `at`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ChangePoint {
    /// Index of the first value after the change.
    pub at: usize,
    /// `mean(after) / mean(before) - 1`, in percent, over the segment searched.
    pub shift_pct: f64,
    /// The permutation p-value.
    pub p: f64,
}

/// The change points of `values`, in order.
pub fn change_points(values: &[f64]) -> Vec<ChangePoint> {
    let mut rng = ChaCha8Rng::seed_from_u64(SEED);
    let mut out = Vec::new();
    segment(values, 0, &mut rng, &mut out);
    out.sort_by_key(|c| c.at);
    out
}

fn segment(values: &[f64], offset: usize, rng: &mut ChaCha8Rng, out: &mut Vec<ChangePoint>) {
    let Some((at, stat)) = best_split(values) else {
        return;
    };
    let mut shuffled = values.to_vec();
    let mut reached = 0usize;
    for _ in 0..PERMUTATIONS {
        shuffled.shuffle(rng);
        if best_split(&shuffled).is_some_and(|(_, s)| s >= stat) {
            reached += 1;
        }
    }
    let p = (1 + reached) as f64 / (1 + PERMUTATIONS) as f64;
    if p > ALPHA {
        return;
    }
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    let (before, after) = (mean(&values[..at]), mean(&values[at..]));
    out.push(ChangePoint {
        at: offset + at,
        shift_pct: if before != 0.0 {
            (after / before - 1.0) * 100.0
        } else {
            f64::NAN
        },
        p,
    });
    segment(&values[..at], offset, rng, out);
    segment(&values[at..], offset + at, rng, out);
}

/// The split with the largest statistic, `(first index after it, statistic)`; `None` when
/// the series is too short or constant.
fn best_split(values: &[f64]) -> Option<(usize, f64)> {
    let n = values.len();
    if n < 2 * MIN_SEGMENT {
        return None;
    }
    let total: f64 = values.iter().sum();
    let mut before = 0.0;
    let mut best: Option<(usize, f64)> = None;
    for t in 1..n {
        before += values[t - 1];
        if t < MIN_SEGMENT || n - t < MIN_SEGMENT {
            continue;
        }
        let (tf, nf) = (t as f64, n as f64);
        let diff = before / tf - (total - before) / (nf - tf);
        let stat = (tf * (nf - tf) / nf).sqrt() * diff.abs();
        if best.is_none_or(|(_, b)| stat > b) {
            best = Some((t, stat));
        }
    }
    best.filter(|&(_, s)| s > 0.0)
}

#[cfg(test)]
mod tests;
