//! Runs the warm-up and level-shift checks on a cell and adds what they find to its
//! [`Steady`] verdict, with the batch-means interval of Measure's output tokens/s (whose
//! blocks the level-shift test uses) and the batch-quantiles interval of its TTFT p50.

use super::{Series, Steady, blocks, per_second_between, shift, warmup};
use crate::config::SteadyConfig;
use crate::metrics::Window;
use crate::metrics::stationarity::{
    MIN_BATCHES, QUANTILE_FIRST_BLOCK, batch_means, batch_quantile,
};
use crate::sample::Sample;

impl Steady {
    /// Checks the series from `fill_end_us` (the end of Fill; absent: no warm-up check) to
    /// the end of Measure for warm-up, and Measure for a change of level. Their reasons
    /// are added only when `judge` is set (an overloaded cell's series rise with its queue,
    /// which says nothing about warm-up).
    pub(crate) fn check_stationarity(
        &mut self,
        samples: &[Sample],
        window: &Window,
        fill_end_us: Option<u64>,
        config: &SteadyConfig,
        judge: bool,
    ) {
        let mut reasons = Vec::new();
        if let Some(from_us) = fill_end_us.filter(|&f| f <= window.m0_us) {
            let stabilize_s = (window.m0_us - from_us) as f64 / 1e6;
            let tps = tps_points(samples, from_us, window.m1_us, self.block_s);
            let ttft = ttft_points(samples, from_us, window.m1_us);
            for (series, points) in [(Series::OutputTps, tps), (Series::TtftMs, ttft)] {
                match warmup::check(series, &points, stabilize_s, config.max_shift) {
                    Ok(w) => {
                        reasons.extend(w.reason(stabilize_s));
                        self.warmup.push(w);
                    }
                    Err(why) => self.not_judged.push(why),
                }
            }
        }
        self.batch_means = batch_means(&self.output_tps_per_second, self.block_s as usize);
        if self.batch_means.is_none() {
            self.not_judged.push(format!(
                "batch means: {} one-second buckets give fewer than {} blocks of {} s",
                self.output_tps_per_second.len(),
                MIN_BATCHES,
                self.block_s
            ));
        }
        let ttft = measured_ttft(samples, window.m0_us, window.m1_us);
        self.ttft_p50_batch = batch_quantile(&ttft, QUANTILE_FIRST_BLOCK, 0.5);
        if self.ttft_p50_batch.is_none() {
            self.not_judged.push(format!(
                "TTFT p50 batch quantiles: {} measured requests give fewer than {MIN_BATCHES} blocks of {QUANTILE_FIRST_BLOCK}",
                ttft.len()
            ));
        }
        match shift::check(
            &self.output_tps_per_second,
            self.block_s as usize,
            config.max_shift,
        ) {
            Ok(s) => {
                reasons.extend(s.reason());
                self.level_shift = Some(s);
            }
            Err(why) => self.not_judged.push(why),
        }
        if judge && !reasons.is_empty() {
            self.steady = false;
            self.reasons.extend(reasons);
        }
    }
}

/// `(block start s since from, output tokens/s)` over `[from, to)` in blocks of `block_s`
/// seconds: the output series the warm-up check judges.
pub(super) fn tps_points(
    samples: &[Sample],
    from_us: u64,
    to_us: u64,
    block_s: u64,
) -> Vec<(f64, f64)> {
    blocks(
        &per_second_between(samples, from_us, to_us),
        block_s as usize,
    )
    .into_iter()
    .map(|(centre, v)| (centre - block_s as f64 / 2.0, v))
    .collect()
}

/// `(send s since from, TTFT ms)` of every successful request started in `[from, to)`, in
/// order of send.
pub(super) fn ttft_points(samples: &[Sample], from_us: u64, to_us: u64) -> Vec<(f64, f64)> {
    let mut points: Vec<(u64, f64)> = samples
        .iter()
        .filter(|s| s.outcome.is_ok() && (from_us..to_us).contains(&s.t_start_us()))
        .filter_map(|s| Some((s.t_start_us(), s.ttft_us()? as f64 / 1e3)))
        .collect();
    points.sort_by_key(|p| p.0);
    points
        .into_iter()
        .map(|(t, v)| ((t - from_us) as f64 / 1e6, v))
        .collect()
}

/// TTFT, ms, of every successful request started in `[from, to)`, in order of start: the
/// series the TTFT p50's batch-quantiles interval is cut from.
pub(super) fn measured_ttft(samples: &[Sample], from_us: u64, to_us: u64) -> Vec<f64> {
    ttft_points(samples, from_us, to_us)
        .into_iter()
        .map(|p| p.1)
        .collect()
}
