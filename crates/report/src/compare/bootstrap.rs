//! The block bootstrap behind every comparison: each resample draws, on each side, as many
//! blocks as the side has, with replacement, and every quantity (percentiles, means,
//! rates, shares) is computed from that same draw, so all of a cell's intervals come from
//! one resampling. A percentile over the drawn blocks is found without merging them: the
//! rank is searched over the side's sorted values, counting in each drawn block by binary
//! search, so a resample costs the number of blocks, not the number of requests. A side
//! of two independent runs or more (the gate's pooled baseline) is drawn in two stages:
//! runs with replacement, then blocks within each drawn run, so the spread between runs
//! is in its intervals, not only the spread within one.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::blocks::Side;
use super::metric::{How, Metric, Rate, Share, Values};

/// A draw of one side: each drawn block's index with how many times it was drawn.
pub type Draw = Vec<(usize, u32)>;

/// Every block once: the data itself.
pub fn whole(side: &Side) -> Draw {
    (0..side.blocks.len()).map(|b| (b, 1)).collect()
}

/// `metric` on `side` as drawn; `None` when the draw has nothing to compute it from.
pub fn value(side: &Side, draw: &Draw, metric: &Metric) -> Option<f64> {
    let sum =
        |f: &dyn Fn(usize) -> f64| -> f64 { draw.iter().map(|&(b, w)| f64::from(w) * f(b)).sum() };
    match metric.how {
        How::Percentile { q, values } => quantile(side, draw, values, q),
        How::Mean(values) => {
            let k = values.index();
            let n = sum(&|b| side.blocks[b].values[k].len() as f64);
            (n > 0.0).then(|| sum(&|b| side.blocks[b].sums[k]) / n)
        }
        How::Rate(rate) => {
            let blocks = sum(&|_| 1.0);
            let count = match rate {
                Rate::Tokens => sum(&|b| side.blocks[b].tokens),
                Rate::Completions => sum(&|b| side.blocks[b].completions),
            };
            (blocks > 0.0).then(|| count / (blocks * side.block_s))
        }
        How::Share(share) => {
            let measured = sum(&|b| side.blocks[b].measured);
            let hits = match share {
                Share::Errors => sum(&|b| side.blocks[b].errors),
                Share::Goodput if side.goodput => sum(&|b| side.blocks[b].good),
                Share::Goodput => return None,
            };
            (measured > 0.0).then(|| hits / measured)
        }
    }
}

/// The `q`-quantile (numpy's linear interpolation) of the drawn blocks' values of `kind`.
fn quantile(side: &Side, draw: &Draw, kind: Values, q: f64) -> Option<f64> {
    let k = kind.index();
    let n: usize = draw
        .iter()
        .map(|&(b, w)| w as usize * side.blocks[b].values[k].len())
        .sum();
    if n == 0 {
        return None;
    }
    let h = (n - 1) as f64 * q.clamp(0.0, 1.0);
    let below = h.floor() as usize;
    let lo = kth(side, draw, k, below);
    let frac = h - h.floor();
    let hi = if frac > 0.0 {
        kth(side, draw, k, below + 1)
    } else {
        lo
    };
    Some(lo + frac * (hi - lo))
}

/// The `rank`-th smallest (from 0) of the drawn blocks' values of kind `k`: the smallest
/// of the side's sorted values with more than `rank` drawn values at or below it.
fn kth(side: &Side, draw: &Draw, k: usize, rank: usize) -> f64 {
    let all = &side.sorted[k];
    let at_or_below = |v: f64| -> usize {
        draw.iter()
            .map(|&(b, w)| w as usize * side.blocks[b].values[k].partition_point(|&x| x <= v))
            .sum()
    };
    let (mut lo, mut hi) = (0, all.len() - 1);
    while lo < hi {
        let mid = (lo + hi) / 2;
        if at_or_below(all[mid]) > rank {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    all[lo]
}

/// A resample of `side`: as many blocks as it has, with replacement; with two runs or
/// more, as many runs as it has first, then each drawn run's blocks from that run.
fn draw(rng: &mut ChaCha8Rng, side: &Side) -> Draw {
    let n = side.blocks.len();
    if n == 0 {
        return Vec::new();
    }
    let mut counts = vec![0u32; n];
    if side.runs.len() < 2 {
        for _ in 0..n {
            counts[rng.random_range(0..n)] += 1;
        }
    } else {
        for _ in 0..side.runs.len() {
            let run = &side.runs[rng.random_range(0..side.runs.len())];
            for _ in run.clone() {
                counts[rng.random_range(run.clone())] += 1;
            }
        }
    }
    counts
        .into_iter()
        .enumerate()
        .filter(|&(_, w)| w > 0)
        .collect()
}

/// `resamples` bootstrap differences `candidate - baseline` of each metric, from one
/// random stream seeded with `seed` (the same on every run). A metric is `None` when some
/// resample had nothing to compute it from on a side.
pub fn differences(
    base: &Side,
    cand: &Side,
    metrics: &[Metric],
    resamples: usize,
    seed: u64,
) -> Vec<Option<Vec<f64>>> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut out: Vec<Option<Vec<f64>>> = metrics
        .iter()
        .map(|_| Some(Vec::with_capacity(resamples)))
        .collect();
    for _ in 0..resamples {
        let (db, dc) = (draw(&mut rng, base), draw(&mut rng, cand));
        for (m, diffs) in metrics.iter().zip(&mut out) {
            let Some(list) = diffs else { continue };
            match (value(base, &db, m), value(cand, &dc, m)) {
                (Some(b), Some(c)) => list.push(c - b),
                _ => *diffs = None,
            }
        }
    }
    out
}
