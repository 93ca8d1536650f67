//! The steady-state verdict ([`Steady`]): was the server in a steady state during the
//! measure window? Judged on the per-second output-token series (its coefficient of
//! variation and linear trend) and on the achieved concurrency.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::Window;
use super::distribution::Distribution;
use super::throughput::output_tokens_by_bucket;
use crate::config::SteadyConfig;
use crate::sample::Sample;

/// One second, us: the bucket of the series.
const SECOND_US: u64 = 1_000_000;

/// Fewest blocks the series needs for a verdict.
pub const MIN_BLOCKS: usize = 3;

/// Steady-state verdict over the measure window.
///
/// The series is judged in blocks of whole seconds at least one request lifetime (E2E p50)
/// long: a closed loop whose requests move in cohorts oscillates with a period of about one
/// lifetime, which is steady over many periods though bursty from one second to the next.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Steady {
    /// Whether every criterion held: at least 3 blocks; block cv `<= max_cv`; no drift
    /// (`|trend| <= max_trend`, or a slope not significant at the 5% level); mean
    /// concurrency `>= min_concurrency_ratio x N`.
    pub steady: bool,
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

        let block_s = lifetime_s.map_or(1, |l| (l.ceil() as u64).max(1));
        let blocks = blocks(&series, block_s as usize);
        let block_dist = Distribution::from_values(&blocks.iter().map(|p| p.1).collect::<Vec<_>>());
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
        match block_cv {
            Some(cv) if cv > config.max_cv => {
                reasons.push(format!("block cv {cv:.2} > {:.2}", config.max_cv));
            }
            None if !series.is_empty() && mean_tps.is_some_and(|m| m <= 0.0) => {
                reasons.push("no output tokens in the window".to_owned());
            }
            _ => {}
        }
        let significant = trend_p_value.is_none_or(|p| p < TREND_SIGNIFICANCE);
        if let Some(trend) = trend.filter(|t| t.abs() > config.max_trend && significant) {
            reasons.push(format!(
                "trend {trend:+.2}, |trend| > {:.2} (p = {})",
                config.max_trend,
                trend_p_value.map_or("n/a".into(), |p| format!("{p:.3}"))
            ));
        }
        let wanted = config.min_concurrency_ratio * f64::from(window.concurrency);
        if mean_concurrency < wanted {
            reasons.push(format!(
                "mean concurrency {mean_concurrency:.2} < {:.2} x {} = {wanted:.2}",
                config.min_concurrency_ratio, window.concurrency
            ));
        }
        Steady {
            steady: reasons.is_empty(),
            reasons,
            output_tps_per_second: values,
            mean_tps,
            cv,
            block_s,
            block_cv,
            trend,
            trend_p_value,
        }
    }
}

/// Consecutive groups of `k` points as `(mean centre, mean rate)`; a last group shorter
/// than `k` is dropped (for `k = 1`, the series itself).
fn blocks(series: &[(f64, f64)], k: usize) -> Vec<(f64, f64)> {
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

/// The per-second series as `(bucket centre in s since m0, tokens/s)` points.
fn per_second_series(samples: &[Sample], window: &Window) -> Vec<(f64, f64)> {
    let span_us = window.m1_us.saturating_sub(window.m0_us);
    let buckets = output_tokens_by_bucket(samples, window.m0_us, window.m1_us, SECOND_US);
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
struct Fit {
    slope: f64,
    /// Two-sided p-value of the slope; `None` with fewer than 3 points.
    p_value: Option<f64>,
}

/// Least-squares fit of `y` on `x`; `None` with fewer than 2 distinct `x`.
fn fit(points: &[(f64, f64)]) -> Option<Fit> {
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
