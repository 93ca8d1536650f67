//! From a quantity's bootstrap differences to what the tables print, by one rule for every
//! quantity, so the verdict, the interval and the p-value cannot disagree. A cell's `m`
//! compared quantities are one family, adjusted by Bonferroni: each interval is at level
//! `1 - ALPHA / m`, the p-value is multiplied by `m`, and a difference is significant
//! exactly when that interval excludes 0, which is exactly when the adjusted p-value is
//! below [`ALPHA`] (both read the same order statistics: see [`interval`]). Holm's
//! step-down would reject a little more often, but has no intervals that match it.

/// Family-wise significance level of a cell's comparisons.
pub const ALPHA: f64 = 0.05;

/// A difference's interval and p-values.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Interval {
    /// `[low, high]` of `candidate - baseline` at `level`.
    pub ci: [f64; 2],
    /// The interval's confidence level, `1 - ALPHA / m`.
    pub level: f64,
    /// Two-sided bootstrap p-value of "no difference": twice the smaller share of
    /// resampled differences on one side of 0 (ties count on both), at most 1.
    pub p: f64,
    /// `p` times `m`, at most 1.
    pub p_adjusted: f64,
    /// The interval excludes 0 (equivalently, `p_adjusted < ALPHA`).
    pub significant: bool,
}

/// The interval of the resampled differences `diffs` (reordered) in a family of `m`:
/// with `R` differences sorted and `k = ceil(R x ALPHA / (2m)) - 1`, the interval runs from
/// the `k`-th to the `(R - 1 - k)`-th (from 0). Its low end is above 0 exactly when at most
/// `k` differences are at or below 0, its high end below 0 exactly when at most `k` are at
/// or above; the p-value's count `c` is the smaller of those two numbers, and `c <= k` is
/// `2c / R x m < ALPHA`. `None` without differences.
pub fn interval(diffs: &mut [f64], m: usize) -> Option<Interval> {
    let r = diffs.len();
    if r == 0 {
        return None;
    }
    let m = m.max(1);
    diffs.sort_unstable_by(f64::total_cmp);
    let each = ALPHA / m as f64;
    let k = (((r as f64) * each / 2.0).ceil() as usize)
        .saturating_sub(1)
        .min((r - 1) / 2);
    let at_or_below = diffs.partition_point(|&d| d <= 0.0);
    let at_or_above = r - diffs.partition_point(|&d| d < 0.0);
    let c = at_or_below.min(at_or_above);
    let p = (2.0 * c as f64 / r as f64).min(1.0);
    Some(Interval {
        ci: [diffs[k], diffs[r - 1 - k]],
        level: 1.0 - each,
        p,
        p_adjusted: (p * m as f64).min(1.0),
        significant: c <= k,
    })
}

#[cfg(test)]
mod tests;
