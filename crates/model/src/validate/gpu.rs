//! `gpu_samples_stale`: the GPU readings changed less than once per 2 s of Measure, so the
//! source refreshes slower than plateau reads it (DCGM exporter's default
//! `--collect-interval` is 30 s) and the per-phase power and energy rest on a few values.

use crate::results::summary::CellSummary;

/// Seconds of Measure per change the readings must at least make.
pub const STALE_SECONDS_PER_CHANGE: f64 = 2.0;

/// Why the cell's GPU readings are stale, with their numbers; `None` when they moved often
/// enough, or there were none.
pub fn gpu_samples_stale(s: &CellSummary) -> Option<String> {
    let g = s.gpu.as_ref()?;
    let m = &g.measure;
    let measure_s = s.phases.m1_us.saturating_sub(s.phases.m0_us) as f64 / 1e6;
    let wanted = (measure_s / STALE_SECONDS_PER_CHANGE).floor() as u64;
    if m.samples == 0 || m.distinct_readings >= wanted {
        return None;
    }
    Some(format!(
        "the GPU readings changed {} times in {} samples over Measure's {measure_s:.1} s (fewer \
         than one change per {STALE_SECONDS_PER_CHANGE:.0} s): the source refreshes slower than \
         plateau reads it every {} ms; a DCGM exporter collects every 30 s unless started with \
         `-c 250`",
        m.distinct_readings, m.samples, g.interval_ms
    ))
}
