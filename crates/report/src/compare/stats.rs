//! The statistics behind `plateau compare`, each a pure function of two samples: the
//! Mann-Whitney U test (normal approximation with tie and continuity correction), a seeded
//! bootstrap confidence interval of a percentile difference, Welch's t-test, a
//! two-proportion z-test, and Holm's adjustment for testing many metrics at once.

use plateau_model::metrics::percentile;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use statrs::distribution::{ContinuousCDF, Normal, StudentsT};

/// Two-sided 95%: the probability left in each tail.
const TAIL: f64 = 0.025;

/// A difference `b - a` with its 95% confidence interval and two-sided p-value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Test {
    /// `b - a` as the test sees it (a difference of means or proportions).
    pub diff: f64,
    /// 95% confidence interval of `diff`, `[low, high]`.
    pub ci: [f64; 2],
    /// Two-sided p-value of "no difference".
    pub p: f64,
}

/// The standard normal distribution.
fn normal() -> Normal {
    Normal::standard()
}

/// Two-sided p-value of a standard normal statistic `z`.
fn two_sided(z: f64) -> f64 {
    (2.0 * (1.0 - normal().cdf(z.abs()))).clamp(0.0, 1.0)
}

/// Mann-Whitney U of `a` against `b`: `(U_a, p)`, where `U_a` counts the pairs in which the
/// value of `a` is larger (ties count one half) and `p` is two-sided, from the normal
/// approximation with the tie-corrected variance and a continuity correction of 0.5 (what
/// `scipy.stats.mannwhitneyu(a, b, method="asymptotic")` computes). `None` when either
/// sample is empty.
pub fn mann_whitney(a: &[f64], b: &[f64]) -> Option<(f64, f64)> {
    if a.is_empty() || b.is_empty() {
        return None;
    }
    let mut all: Vec<(f64, bool)> = a
        .iter()
        .map(|&x| (x, true))
        .chain(b.iter().map(|&x| (x, false)))
        .collect();
    all.sort_unstable_by(|x, y| x.0.total_cmp(&y.0));
    let n = all.len() as f64;
    let (mut rank_sum_a, mut ties) = (0.0, 0.0);
    let mut i = 0;
    while i < all.len() {
        let j = i + all[i..].iter().take_while(|x| x.0 == all[i].0).count();
        let t = (j - i) as f64;
        let rank = (i + j + 1) as f64 / 2.0;
        rank_sum_a += rank * all[i..j].iter().filter(|x| x.1).count() as f64;
        ties += t * t * t - t;
        i = j;
    }
    let (na, nb) = (a.len() as f64, b.len() as f64);
    let u = rank_sum_a - na * (na + 1.0) / 2.0;
    let mean = na * nb / 2.0;
    let var = na * nb / 12.0 * ((n + 1.0) - ties / (n * (n - 1.0)).max(1.0));
    if var <= 0.0 {
        return Some((u, 1.0));
    }
    let z = ((u - mean).abs() - 0.5).max(0.0) / var.sqrt();
    Some((u, two_sided(z)))
}

/// 95% percentile-bootstrap confidence interval of `percentile(b, q) - percentile(a, q)`:
/// `resamples` times, both samples are drawn again with replacement (one random stream
/// seeded with `seed`, so the interval is the same on every run) and the difference of
/// their `q`-quantiles (numpy's linear interpolation, as the summaries) taken; the interval
/// is the 2.5% and 97.5% quantiles of those differences. `None` when either sample is
/// empty or `resamples` is 0.
pub fn bootstrap_percentile_diff(
    a: &[f64],
    b: &[f64],
    q: f64,
    resamples: usize,
    seed: u64,
) -> Option<[f64; 2]> {
    if a.is_empty() || b.is_empty() || resamples == 0 {
        return None;
    }
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut scratch = Vec::with_capacity(a.len().max(b.len()));
    let mut quantile = |from: &[f64], rng: &mut ChaCha8Rng| {
        scratch.clear();
        scratch.extend((0..from.len()).map(|_| from[rng.random_range(0..from.len())]));
        select_percentile(&mut scratch, q)
    };
    let mut diffs: Vec<f64> = (0..resamples)
        .map(|_| {
            let qa = quantile(a, &mut rng);
            quantile(b, &mut rng) - qa
        })
        .collect();
    diffs.sort_unstable_by(f64::total_cmp);
    Some([percentile(&diffs, TAIL)?, percentile(&diffs, 1.0 - TAIL)?])
}

/// The `q`-quantile of `values` (reordered in place) with numpy's linear interpolation, in
/// linear time: the two order statistics around `h = (n - 1) q` are selected, not sorted.
fn select_percentile(values: &mut [f64], q: f64) -> f64 {
    let last = values.len() - 1;
    let h = last as f64 * q.clamp(0.0, 1.0);
    let i = (h.floor() as usize).min(last);
    let (_, &mut lo, above) = values.select_nth_unstable_by(i, f64::total_cmp);
    let hi = above.iter().copied().min_by(f64::total_cmp).unwrap_or(lo);
    percentile(&[lo, hi], h - h.floor()).unwrap_or(lo)
}

/// Welch's t-test of `mean(b) - mean(a)` (unequal variances, Welch-Satterthwaite degrees
/// of freedom) with its 95% confidence interval. `None` with fewer than two values on a
/// side. Two samples without spread give p = 1 when their means are equal, else p = 0.
pub fn welch(a: &[f64], b: &[f64]) -> Option<Test> {
    let (ma, va, na) = moments(a)?;
    let (mb, vb, nb) = moments(b)?;
    let diff = mb - ma;
    let (sa, sb) = (va / na, vb / nb);
    let se = (sa + sb).sqrt();
    if se == 0.0 {
        let p = if diff == 0.0 { 1.0 } else { 0.0 };
        return Some(Test {
            diff,
            ci: [diff, diff],
            p,
        });
    }
    let df = (sa + sb).powi(2) / (sa * sa / (na - 1.0) + sb * sb / (nb - 1.0));
    let t = StudentsT::new(0.0, 1.0, df).ok()?;
    let half = t.inverse_cdf(1.0 - TAIL) * se;
    let p = (2.0 * (1.0 - t.cdf((diff / se).abs()))).clamp(0.0, 1.0);
    Some(Test {
        diff,
        ci: [diff - half, diff + half],
        p,
    })
}

/// Mean, sample variance (n - 1) and count; `None` below two values.
fn moments(x: &[f64]) -> Option<(f64, f64, f64)> {
    if x.len() < 2 {
        return None;
    }
    let n = x.len() as f64;
    let mean = x.iter().sum::<f64>() / n;
    let var = x.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0);
    Some((mean, var, n))
}

/// Two-proportion z-test of `xb / nb - xa / na` (pooled variance for the p-value, Wald
/// interval for the 95% CI). `None` when a side has no trials. Equal proportions of 0 or 1
/// on both sides give p = 1.
pub fn proportions(xa: u64, na: u64, xb: u64, nb: u64) -> Option<Test> {
    if na == 0 || nb == 0 {
        return None;
    }
    let (na, nb) = (na as f64, nb as f64);
    let (pa, pb) = (xa as f64 / na, xb as f64 / nb);
    let diff = pb - pa;
    let pooled = (xa + xb) as f64 / (na + nb);
    let se0 = (pooled * (1.0 - pooled) * (1.0 / na + 1.0 / nb)).sqrt();
    let p = if se0 == 0.0 {
        1.0
    } else {
        two_sided(diff / se0)
    };
    let se = (pa * (1.0 - pa) / na + pb * (1.0 - pb) / nb).sqrt();
    let half = normal().inverse_cdf(1.0 - TAIL) * se;
    Some(Test {
        diff,
        ci: [diff - half, diff + half],
        p,
    })
}

/// Holm's step-down adjustment of `p` (the absent ones are skipped and stay absent): the
/// i-th smallest of m p-values becomes `max over j <= i of min(1, (m - j + 1) p_(j))`.
/// Rejecting where the adjusted value is below alpha keeps the chance of any false
/// "significant" among the m tests at most alpha.
pub fn holm(p: &[Option<f64>]) -> Vec<Option<f64>> {
    let mut order: Vec<(usize, f64)> = p
        .iter()
        .enumerate()
        .filter_map(|(i, p)| p.map(|p| (i, p)))
        .collect();
    order.sort_by(|x, y| x.1.total_cmp(&y.1));
    let m = order.len() as f64;
    let mut out = vec![None; p.len()];
    let mut running: f64 = 0.0;
    for (rank, (i, p)) in order.into_iter().enumerate() {
        running = running.max(((m - rank as f64) * p).min(1.0));
        out[i] = Some(running);
    }
    out
}

#[cfg(test)]
mod tests;
