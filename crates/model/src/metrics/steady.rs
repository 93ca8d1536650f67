//! The steady-state verdict ([`Steady`]): was the server in a steady state during the
//! measure window? Judged on the per-second output-token series (its coefficient of
//! variation and linear trend), on the achieved concurrency, on warm-up left in Measure
//! (`warmup.rs`: MSER on output tokens/s and TTFT from the end of Fill) and on a change of
//! level inside Measure (`shift.rs`: Pettitt on batch-means blocks, `stationary.rs` runs
//! both). Below six blocks the trend is judged by its size alone, since a t-test on so few
//! points cannot see a real drift.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::Window;
use super::distribution::Distribution;
use super::stationarity::{BatchMeans, BatchQuantile};
use super::throughput::output_tokens_by_bucket;
use crate::config::SteadyConfig;
use crate::sample::Sample;
use crate::threshold;

pub mod adaptive;
mod shift;
mod stationary;
mod warmup;

pub use shift::{LevelShift, SHIFT_ALPHA};
pub use warmup::{Series, WARMUP_ALPHA, Warmup};

/// One second, us: the bucket of the series.
const SECOND_US: u64 = 1_000_000;

/// Fewest blocks the series needs for a verdict.
pub const MIN_BLOCKS: usize = 3;

/// Fewest blocks for the trend's p-value to decide whether it is drift. Below this, a
/// trend is judged by its size alone: with four blocks the t-test has 2 degrees of freedom
/// and needs `|t| > 4.30` at 5%, so a 30% fall through noisy blocks (1000, 800, 900, 700
/// tok/s: p = 0.20) would pass as steady. With six blocks (4 dof, `|t| > 2.78`) the test
/// has power against the drifts `max_trend` is meant to catch.
pub const MIN_BLOCKS_FOR_SIGNIFICANCE: usize = 6;

/// How a trend above `max_trend` was judged.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TrendTest {
    /// By its size alone: fewer than [`MIN_BLOCKS_FOR_SIGNIFICANCE`] blocks, too few for
    /// the p-value to mean anything; `|trend| > max_trend` is drift.
    Size,
    /// By size and significance: drift when `|trend| > max_trend` and the slope's p-value
    /// is below [`TREND_SIGNIFICANCE`].
    Significance,
}

/// Steady-state verdict over the measure window.
///
/// The series is judged in blocks of whole seconds at least one request lifetime (E2E p50)
/// long: a closed loop whose requests move in cohorts oscillates with a period of about one
/// lifetime, which is steady over many periods though bursty from one second to the next.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Steady {
    /// Whether every criterion held: at least 3 blocks; block cv `<= max_cv`; no drift
    /// (`|trend| <= max_trend`, or, with at least 6 blocks, a slope not significant at the
    /// 5% level); mean concurrency `>= min_concurrency_ratio x N`. An open loop is judged
    /// on its blocks and on `overloaded` only: its cv and trend follow the random arrivals.
    pub steady: bool,
    /// Open loop: arrivals outpaced the server (requests outstanding rising through the
    /// window, with TTFT rising or completions short of arrivals; the first reason says by
    /// how much and what the server completed).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub overloaded: bool,
    /// Each failed criterion with its numbers (e.g. `"block cv 0.41 > 0.25"`); empty when
    /// steady.
    pub reasons: Vec<String>,
    /// Output tokens/s in each second of the window, by chunk arrival. A last partial
    /// second is scaled to a rate when at least 0.5 s long, else dropped.
    pub output_tps_per_second: Vec<f64>,
    /// Mean of the series, tokens/s.
    pub mean_tps: Option<f64>,
    /// Coefficient of variation of the per-second series (`std / mean`, ddof = 0): how
    /// bursty the output is from one second to the next; absent when the mean is 0.
    pub cv: Option<f64>,
    /// Block length in seconds: the measured requests' E2E p50 rounded up, at least 1.
    #[serde(default = "one_second")]
    pub block_s: u64,
    /// Mean output tokens/s of each block, in order: the points the trend is fitted to.
    #[serde(default)]
    pub block_means_tps: Vec<f64>,
    /// Coefficient of variation of the block means; absent with no block or a mean of 0.
    #[serde(default)]
    pub block_cv: Option<f64>,
    /// Relative change across the window of the least-squares line through the block
    /// means (`slope x window length / mean`); absent with fewer than 2 blocks.
    pub trend: Option<f64>,
    /// Two-sided p-value of that slope (t-test, blocks - 2 degrees of freedom): how likely
    /// a slope this steep is from noise alone; absent with fewer than 3 blocks.
    #[serde(default)]
    pub trend_p_value: Option<f64>,
    /// How the trend was judged: `size` below 6 blocks (the p-value is reported but not
    /// used), else `significance`; absent without a trend.
    #[serde(default)]
    pub trend_judged_by: Option<TrendTest>,
    /// The warm-up check (MSER) on each series long enough for it, from the end of Fill to
    /// the end of Measure: output tokens/s, then TTFT.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warmup: Vec<Warmup>,
    /// The most likely change of level of output tokens/s inside Measure (Pettitt on the
    /// batch-means blocks); absent with fewer than 8 blocks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub level_shift: Option<LevelShift>,
    /// Measure's mean output tokens/s with a 95% interval from batch means, the block size
    /// doubled from one request lifetime until the block means are close to uncorrelated;
    /// absent with fewer than 8 blocks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub batch_means: Option<BatchMeans>,
    /// Measure's TTFT p50 with a 95% interval from batch quantiles (sectioning): the
    /// successful requests started in Measure, in order of start, cut into blocks of 16
    /// requests doubled until the block medians are close to uncorrelated; centred on the
    /// p50 of all of them. Wider than `ttft_ms.p50_ci` when neighbouring TTFTs are
    /// correlated (as in a closed loop); absent with fewer than 8 blocks (128 requests).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttft_p50_batch: Option<BatchQuantile>,
    /// The checks that could not be made, each with why (a series too short for MSER, a
    /// window too short for 8 blocks).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub not_judged: Vec<String>,
}

fn one_second() -> u64 {
    1
}

impl Steady {
    /// Judges the window from all `samples`, the achieved mean concurrency and the
    /// request lifetime (E2E p50, s) of the measured requests.
    pub(crate) fn judge(
        samples: &[Sample],
        window: &Window,
        mean_concurrency: f64,
        lifetime_s: Option<f64>,
        config: &SteadyConfig,
    ) -> Steady {
        let series = per_second_series(samples, window);
        let values: Vec<f64> = series.iter().map(|p| p.1).collect();
        let dist = Distribution::from_values(&values);
        let mean_tps = dist.as_ref().map(|d| d.mean);
        let cv = dist
            .as_ref()
            .filter(|d| d.mean > 0.0)
            .map(|d| d.std / d.mean);

        let block_s = block_seconds(lifetime_s);
        let blocks = blocks(&series, block_s as usize);
        let block_means_tps: Vec<f64> = blocks.iter().map(|p| p.1).collect();
        let block_dist = Distribution::from_values(&block_means_tps);
        let block_cv = block_dist
            .as_ref()
            .filter(|d| d.mean > 0.0)
            .map(|d| d.std / d.mean);
        let fit = fit(&blocks);
        let trend = mean_tps
            .filter(|&m| m > 0.0)
            .and_then(|m| Some(fit?.slope * window.duration_s() / m));
        let trend_p_value = fit.and_then(|f| f.p_value);

        let mut reasons = Vec::new();
        if blocks.len() < MIN_BLOCKS {
            reasons.push(if block_s == 1 {
                format!("window too short: {} one-second buckets < {MIN_BLOCKS}", blocks.len())
            } else {
                format!(
                    "window too short: {} blocks of one request lifetime ({block_s} s, E2E p50) < {MIN_BLOCKS}; \
                     measure for at least {} s",
                    blocks.len(),
                    block_s * MIN_BLOCKS as u64
                )
            });
        }
        // An open loop's output follows its random arrivals (Poisson at 5 req/s varies by
        // 45% from one second to the next): the block cv and trend describe the offered
        // load, not the server, and are reported but not judged. Its verdict is whether the
        // server kept up (`overloaded`, judged with the load).
        let closed = window.concurrency.is_some();
        match block_cv {
            Some(cv) if closed && cv > config.max_cv => {
                reasons.push(format!(
                    "block cv {}",
                    threshold::compare(cv, ">", config.max_cv, 2)
                ));
            }
            None if !series.is_empty() && mean_tps.is_some_and(|m| m <= 0.0) => {
                reasons.push("no output tokens in the window".to_owned());
            }
            _ => {}
        }
        let trend_judged_by = trend.map(|_| {
            if blocks.len() < MIN_BLOCKS_FOR_SIGNIFICANCE {
                TrendTest::Size
            } else {
                TrendTest::Significance
            }
        });
        let p_text = trend_p_value.map_or("n/a".into(), |p| format!("{p:.3}"));
        match (trend.filter(|_| closed), trend_judged_by) {
            (Some(t), Some(TrendTest::Size)) if t.abs() > config.max_trend => {
                let (abs, max) = threshold::pair(t.abs(), config.max_trend, 2);
                reasons.push(format!(
                    "trend {t:+.digits$}, |trend| > {max}; judged by size: only {} blocks (< {MIN_BLOCKS_FOR_SIGNIFICANCE}), \
                     too few for a significance test (p = {p_text})",
                    blocks.len(),
                    digits = decimals(&abs)
                ));
            }
            (Some(t), Some(TrendTest::Significance))
                if t.abs() > config.max_trend
                    && trend_p_value.is_none_or(|p| p < TREND_SIGNIFICANCE) =>
            {
                let (abs, max) = threshold::pair(t.abs(), config.max_trend, 2);
                reasons.push(format!(
                    "trend {t:+.digits$}, |trend| > {max} (p = {p_text})",
                    digits = decimals(&abs)
                ));
            }
            _ => {}
        }
        if let Some(n) = window.concurrency {
            let wanted = config.min_concurrency_ratio * f64::from(n);
            if mean_concurrency < wanted {
                let (got, want) = threshold::pair(mean_concurrency, wanted, 2);
                reasons.push(format!(
                    "mean concurrency {got} < {:.2} x {n} = {want}",
                    config.min_concurrency_ratio
                ));
            }
        }
        Steady {
            steady: reasons.is_empty(),
            overloaded: false,
            reasons,
            output_tps_per_second: values,
            mean_tps,
            cv,
            block_s,
            block_means_tps,
            block_cv,
            trend,
            trend_p_value,
            trend_judged_by,
            warmup: Vec::new(),
            level_shift: None,
            batch_means: None,
            ttft_p50_batch: None,
            not_judged: Vec::new(),
        }
    }

    /// Marks the cell unsteady for `reason`, placed first.
    pub(crate) fn fail_first(&mut self, reason: String) {
        self.steady = false;
        self.reasons.insert(0, reason);
    }
}

/// The block length, s, for a request lifetime of `lifetime_s` (E2E p50): rounded up, at
/// least 1 (1 when unknown).
pub(crate) fn block_seconds(lifetime_s: Option<f64>) -> u64 {
    lifetime_s.map_or(1, |l| (l.ceil() as u64).max(1))
}

/// Decimals written in `number` (`"0.253"` -> 3).
fn decimals(number: &str) -> usize {
    number.split_once('.').map_or(0, |(_, f)| f.len())
}

/// Consecutive groups of `k` points as `(mean centre, mean rate)`; a last group shorter
/// than `k` is dropped (for `k = 1`, the series itself).
pub(super) fn blocks(series: &[(f64, f64)], k: usize) -> Vec<(f64, f64)> {
    series
        .chunks_exact(k.max(1))
        .map(|c| {
            let n = c.len() as f64;
            (
                c.iter().map(|p| p.0).sum::<f64>() / n,
                c.iter().map(|p| p.1).sum::<f64>() / n,
            )
        })
        .collect()
}

/// The per-second series of the window as `(bucket centre in s since m0, tokens/s)` points.
fn per_second_series(samples: &[Sample], window: &Window) -> Vec<(f64, f64)> {
    per_second_between(samples, window.m0_us, window.m1_us)
}

/// The per-second output series over `[from_us, to_us]` as `(bucket centre in s since
/// from, tokens/s)` points; a last partial second is scaled to a rate when at least 0.5 s
/// long, else dropped.
fn per_second_between(samples: &[Sample], from_us: u64, to_us: u64) -> Vec<(f64, f64)> {
    let span_us = to_us.saturating_sub(from_us);
    let buckets = output_tokens_by_bucket(samples, from_us, to_us, SECOND_US);
    buckets
        .iter()
        .enumerate()
        .filter_map(|(k, &tokens)| {
            let start_us = k as u64 * SECOND_US;
            let len_us = (span_us - start_us).min(SECOND_US);
            (len_us * 2 >= SECOND_US).then(|| {
                let centre_s = (start_us as f64 + len_us as f64 / 2.0) / SECOND_US as f64;
                (centre_s, tokens as f64 * SECOND_US as f64 / len_us as f64)
            })
        })
        .collect()
}

/// A trend must be significant at this level to count as drift.
pub const TREND_SIGNIFICANCE: f64 = 0.05;

/// A least-squares line through the series.
#[derive(Clone, Copy, Debug)]
pub(super) struct Fit {
    pub(super) slope: f64,
    /// Two-sided p-value of the slope; `None` with fewer than 3 points.
    pub(super) p_value: Option<f64>,
}

/// Least-squares fit of `y` on `x`; `None` with fewer than 2 distinct `x`.
pub(super) fn fit(points: &[(f64, f64)]) -> Option<Fit> {
    let n = points.len() as f64;
    let mean_x = points.iter().map(|p| p.0).sum::<f64>() / n;
    let mean_y = points.iter().map(|p| p.1).sum::<f64>() / n;
    let sxx: f64 = points.iter().map(|p| (p.0 - mean_x).powi(2)).sum();
    let sxy: f64 = points.iter().map(|p| (p.0 - mean_x) * (p.1 - mean_y)).sum();
    if sxx <= 0.0 {
        return None;
    }
    let slope = sxy / sxx;
    let p_value = (points.len() >= 3).then(|| {
        let intercept = mean_y - slope * mean_x;
        let sse: f64 = points
            .iter()
            .map(|p| (p.1 - intercept - slope * p.0).powi(2))
            .sum();
        let dof = n - 2.0;
        let se = (sse / dof / sxx).sqrt();
        if se == 0.0 {
            return if slope == 0.0 { 1.0 } else { 0.0 };
        }
        let t = (slope / se).abs();
        statrs::distribution::StudentsT::new(0.0, 1.0, dof)
            .map(|d| 2.0 * (1.0 - statrs::distribution::ContinuousCDF::cdf(&d, t)))
            .unwrap_or(1.0)
    });
    Some(Fit { slope, p_value })
}

#[cfg(test)]
mod tests;
