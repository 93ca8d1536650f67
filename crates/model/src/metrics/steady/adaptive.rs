//! The rules that end adaptive phases, judged on the records a running cell has so far
//! and on the same series and statistics the steady verdict uses afterwards: Stabilize
//! ends when MSER-5 (the warm-up check's truncation, `warmup.rs`) on output tokens/s and
//! TTFT since the end of Fill no longer truncates at the edge of its search (a transient
//! still running pushes the cut to the edge); Measure ends when the 95% intervals of
//! output tokens/s (batch means, as `steady.batch_means`) and of TTFT p50 (the wider of
//! the distribution-free interval of `ttft_ms.p50_ci` and the batch-quantiles one of
//! `steady.ttft_p50_batch`, which accounts for correlated neighbouring TTFTs) are within
//! the precision target.
//!
//! The records of a running cell hold only finished requests, so each rule looks at the
//! series up to the horizon ([`horizon_us`]): now less the longest request that has ended,
//! before which (nearly) every request has finished and every token is counted.

use super::stationary::{measured_ttft, tps_points, ttft_points};
use super::warmup::truncation;
use super::{Series, block_seconds, per_second_between};
use crate::metrics::distribution::Distribution;
use crate::metrics::stationarity::{MAX_LAG1, QUANTILE_FIRST_BLOCK, batch_means, batch_quantile};
use crate::phase::{Precision, TtftInterval};
use crate::sample::Sample;

/// Where the series of a running cell are complete, us since the cell's start: `now_us`
/// less the longest request (send to end) that ended after `from_us`; 0 when none has.
pub fn horizon_us(samples: &[Sample], from_us: u64, now_us: u64) -> u64 {
    samples
        .iter()
        .filter(|s| s.t_end_us >= from_us)
        .map(|s| s.t_end_us.saturating_sub(s.t_sent_us))
        .max()
        .map_or(0, |longest| now_us.saturating_sub(longest))
}

/// The block length, s, of the output series over `[from, to)`: the E2E p50 of the
/// requests that succeeded and started in it, rounded up (as the steady verdict's).
fn block_s(samples: &[Sample], from_us: u64, to_us: u64) -> u64 {
    let e2e: Vec<f64> = samples
        .iter()
        .filter(|s| s.outcome.is_ok() && (from_us..to_us).contains(&s.t_start_us()))
        .map(|s| s.t_end_us.saturating_sub(s.t_start_us()) as f64 / 1e6)
        .collect();
    block_seconds(Distribution::from_values(&e2e).map(|d| d.p50))
}

/// Whether the warm-up is over at `now_us`, judged on the series from `fill_end_us` to the
/// horizon: `Ok` with what MSER cut on each series when it no longer truncates at the edge
/// of its search (the first half of the series) on either, `Err` with why not yet.
pub fn transient_over(samples: &[Sample], fill_end_us: u64, now_us: u64) -> Result<String, String> {
    let to_us = horizon_us(samples, fill_end_us, now_us);
    if to_us <= fill_end_us {
        return Err("no request has ended since Fill".to_owned());
    }
    let block = block_s(samples, fill_end_us, to_us);
    let mut cuts = Vec::new();
    for (series, points) in [
        (
            Series::OutputTps,
            tps_points(samples, fill_end_us, to_us, block),
        ),
        (Series::TtftMs, ttft_points(samples, fill_end_us, to_us)),
    ] {
        let values: Vec<f64> = points.iter().map(|p| p.1).collect();
        let (batch, d) = truncation(series, &values)?;
        let edge = values.len() / batch / 2 * batch;
        let cut_s = if d == 0 { 0.0 } else { points[d].0 };
        if d >= edge {
            return Err(format!(
                "MSER-{batch} on {} still truncates at the edge of its search ({cut_s:.1} s of {:.1} s)",
                series.label(),
                (to_us - fill_end_us) as f64 / 1e6
            ));
        }
        cuts.push(format!(
            "{}: MSER-{batch} cuts {cut_s:.1} s",
            series.label()
        ));
    }
    Ok(cuts.join(", "))
}

/// The precision of Measure so far (`[m0_us, horizon)`) against `target`. An interval from
/// blocks (output tokens/s, TTFT p50's batch quantiles) counts only when its block
/// statistics are close to uncorrelated (lag-1 at most [`MAX_LAG1`]): with fewer blocks
/// than it takes to double the block, a correlated series would give an interval too
/// narrow. The TTFT p50's is the wider of its two intervals, known only when both are.
pub fn precision(samples: &[Sample], m0_us: u64, now_us: u64, target: f64) -> Precision {
    let to_us = horizon_us(samples, m0_us, now_us).max(m0_us);
    let block = block_s(samples, m0_us, to_us);
    let tps: Vec<f64> = per_second_between(samples, m0_us, to_us)
        .into_iter()
        .map(|p| p.1)
        .collect();
    let ttft = measured_ttft(samples, m0_us, to_us);
    let free = Distribution::from_values(&ttft).and_then(|d| {
        let [low, high] = d.p50_ci?;
        (d.p50 > 0.0).then(|| (d.p50 - low).max(high - d.p50) / d.p50)
    });
    let batch = batch_quantile(&ttft, QUANTILE_FIRST_BLOCK, 0.5)
        .filter(|b| b.lag1.is_none_or(|r| r <= MAX_LAG1))
        .and_then(|b| b.relative());
    let ttft_p50 = match (free, batch) {
        (Some(f), Some(b)) if b > f => Some((b, TtftInterval::BatchQuantiles)),
        (Some(f), Some(_)) => Some((f, TtftInterval::OrderStatistics)),
        _ => None,
    };
    Precision {
        target,
        output_tps: batch_means(&tps, block as usize)
            .filter(|b| b.lag1.is_none_or(|r| r <= MAX_LAG1))
            .and_then(|b| b.relative()),
        ttft_p50: ttft_p50.map(|t| t.0),
        ttft_p50_interval: ttft_p50.map(|t| t.1),
    }
}

#[cfg(test)]
mod tests;
