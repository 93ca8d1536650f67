//! The one [`Distribution`] every per-request metric is summarized into: moments,
//! percentiles by linear interpolation, distribution-free confidence intervals for the
//! median and p99, and flags on percentiles with too few samples behind them.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use statrs::distribution::{Binomial, DiscreteCDF};

mod small_sample;
pub use small_sample::SmallSample;

/// Summary of a set of finite values (TTFT, ITL, TPOT, E2E, throughputs, token counts).
///
/// Percentiles interpolate linearly between order statistics, as numpy's default
/// (`method="linear"`). `std` is the population standard deviation (ddof = 0, numpy's
/// default). The confidence intervals are 95%, distribution-free (see [`quantile_ci_ranks`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Distribution {
    /// Number of values.
    pub n: u64,
    /// Arithmetic mean.
    pub mean: f64,
    /// Population standard deviation: `sqrt(sum((x - mean)^2) / n)` (ddof = 0).
    pub std: f64,
    /// Smallest value.
    pub min: f64,
    /// Largest value.
    pub max: f64,
    /// Median (50th percentile).
    pub p50: f64,
    /// 90th percentile.
    pub p90: f64,
    /// 95th percentile.
    pub p95: f64,
    /// 99th percentile.
    pub p99: f64,
    /// 99.9th percentile.
    pub p999: f64,
    /// 95% confidence interval of the median, `[low, high]`; absent when too few values.
    pub p50_ci: Option<[f64; 2]>,
    /// 95% confidence interval of p99, `[low, high]`; absent when too few values
    /// (fewer than 368).
    pub p99_ci: Option<[f64; 2]>,
    /// Percentiles with fewer than 10 expected values beyond them (`n (1 - q) < 10`), by
    /// label (`"p50"`, `"p90"`, `"p95"`, `"p99"`, `"p99.9"`): read them with care.
    #[schemars(with = "Vec<String>")]
    pub small_sample: SmallSample,
}

/// The reported percentiles: label and quantile in per-mille (integers, so the
/// small-sample rule is exact arithmetic).
const PERCENTILES: [(&str, u64); 5] = [
    ("p50", 500),
    ("p90", 900),
    ("p95", 950),
    ("p99", 990),
    ("p99.9", 999),
];

/// A percentile needs at least this many expected values beyond it to be meaningful.
const MIN_TAIL: u64 = 10;

/// Probability left in each tail by the confidence intervals (two-sided 95%).
const CI_TAIL: f64 = 0.025;

impl Distribution {
    /// Summarizes `values`, in any order; `None` when there are none.
    ///
    /// Every value must be finite. Callers guarantee it at the source: the per-request
    /// metrics are built from integer microseconds and token counts, and divide only by
    /// non-zero durations and counts (see `request.rs`). A non-finite value is a bug: it
    /// fails a debug assertion and is sorted with [`f64::total_cmp`] in release builds.
    pub fn from_values(values: &[f64]) -> Option<Distribution> {
        debug_assert!(
            values.iter().all(|v| v.is_finite()),
            "Distribution::from_values takes finite values only"
        );
        let mut sorted = values.to_vec();
        sorted.sort_unstable_by(f64::total_cmp);
        let (&min, &max) = (sorted.first()?, sorted.last()?);
        let n = sorted.len() as f64;
        let mean = sorted.iter().sum::<f64>() / n;
        let var = sorted.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n;
        let p = |per_mille: u64| percentile(&sorted, per_mille as f64 / 1000.0).unwrap_or(min);
        let ci = |q: f64| {
            quantile_ci_ranks(sorted.len() as u64, q)
                .map(|(l, u)| [sorted[l as usize - 1], sorted[u as usize - 1]])
        };
        let count = sorted.len() as u64;
        let small_sample =
            SmallSample::of(|per_mille| count * (1000 - per_mille) < MIN_TAIL * 1000);
        Some(Distribution {
            n: count,
            mean,
            std: var.sqrt(),
            min,
            max,
            p50: p(500),
            p90: p(900),
            p95: p(950),
            p99: p(990),
            p999: p(999),
            p50_ci: ci(0.5),
            p99_ci: ci(0.99),
            small_sample,
        })
    }

    /// `p99 / p50`, the tail-to-median ratio (jitter when the values are ITLs); `None`
    /// when the median is 0.
    pub fn p99_over_p50(&self) -> Option<f64> {
        (self.p50 > 0.0).then(|| self.p99 / self.p50)
    }
}

/// The `q`-quantile (`q` in [0, 1], clamped) of ascending `sorted` values, numpy's
/// linear interpolation: with `h = (n - 1) q`, `x[floor h] + (h - floor h) (x[floor h + 1]
/// - x[floor h])` (0-based). `None` when `sorted` is empty.
///
/// The result is kept within `[x[floor h], x[floor h + 1]]`, so rounding can never make a
/// higher quantile smaller than a lower one.
pub fn percentile(sorted: &[f64], q: f64) -> Option<f64> {
    let last = sorted.len().checked_sub(1)?;
    let h = last as f64 * q.clamp(0.0, 1.0);
    let floor = h.floor();
    let i = (floor as usize).min(last);
    let a = sorted[i];
    let b = sorted[(i + 1).min(last)];
    Some((a + (h - floor) * (b - a)).max(a).min(b))
}

/// 1-based ranks `(l, u)` of the order statistics bracketing the `q`-quantile of `n`
/// values with 95% confidence, distribution-free: with `B ~ Binomial(n, q)` (the number of
/// values below the true quantile), `l` is the largest rank with `P(B <= l - 1) <= 0.025`
/// and `u` the smallest with `P(B >= u) <= 0.025`. The interval is `[x(l), x(u)]`.
///
/// `None` when `l < 1` or `u > n`: too few values for a 95% interval inside the data
/// (the median needs n >= 6, p99 n >= 368).
pub fn quantile_ci_ranks(n: u64, q: f64) -> Option<(u64, u64)> {
    let b = Binomial::new(q, n).ok()?;
    // Largest l in [0, n] with P(B <= l - 1) <= tail; l = 0 always qualifies.
    let (mut lo, mut hi) = (0, n);
    while lo < hi {
        let mid = lo + (hi - lo).div_ceil(2);
        if b.cdf(mid - 1) <= CI_TAIL {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    let l = lo;
    // Smallest u in [1, n + 1] with P(B >= u) = P(B > u - 1) <= tail; u = n + 1 qualifies.
    let (mut lo, mut hi) = (1, n + 1);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if b.sf(mid - 1) <= CI_TAIL {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    let u = lo;
    (l >= 1 && u <= n).then_some((l, u))
}

#[cfg(test)]
mod tests;
