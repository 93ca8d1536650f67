//! Energy over a span of the cell clock from a cell's GPU samples: the increase of the
//! energy counter (DCGM's, amd-smi's) when every GPU in every sample has it and none went
//! down (a reset or a GPU that came and went), else the trapezoid integral of the summed
//! power. The span's ends are interpolated between the samples around them and clipped to
//! the first and last sample.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{GpuReading, GpuSample};
use crate::scrape::summary::Span;

/// Where a phase's energy came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum EnergySource {
    /// The increase of every GPU's energy counter (DCGM's, amd-smi's).
    Counter,
    /// The integral of the power samples.
    PowerIntegral,
}

/// `f` summed over a sample's GPUs; `None` when no GPU has it.
pub(super) fn sum(s: &GpuSample, f: fn(&GpuReading) -> Option<f64>) -> Option<f64> {
    s.gpus.iter().filter_map(f).reduce(|a, b| a + b)
}

/// Energy over `span`: (J, where from, seconds covered); `None` when samples do not cover
/// any of it.
pub fn over(samples: &[GpuSample], span: Span) -> Option<(f64, EnergySource, f64)> {
    let counters = counter_usable(samples);
    let series: Vec<(u64, f64)> = if counters {
        // The counters summed per sample: their increase is the sum of increases.
        samples
            .iter()
            .filter_map(|s| Some((s.t_us, sum(s, |r| r.energy_j)?)))
            .collect()
    } else {
        samples
            .iter()
            .filter_map(|s| Some((s.t_us, sum(s, |r| r.power_w)?)))
            .collect()
    };
    let (first, last) = (series.first()?.0, series.last()?.0);
    let (from, to) = (span.from_us.max(first), span.to_us.min(last));
    if to <= from {
        return None;
    }
    let covered = (to - from) as f64 / 1e6;
    if counters {
        let e = at(&series, to)? - at(&series, from)?;
        return Some((e.max(0.0), EnergySource::Counter, covered));
    }
    // Trapezoids over the interpolated ends and the samples between them.
    let mut points = vec![(from, at(&series, from)?)];
    points.extend(series.iter().copied().filter(|&(t, _)| t > from && t < to));
    points.push((to, at(&series, to)?));
    let joules = points
        .windows(2)
        .map(|w| (w[0].1 + w[1].1) / 2.0 * (w[1].0 - w[0].0) as f64 / 1e6)
        .sum();
    Some((joules, EnergySource::PowerIntegral, covered))
}

/// Whether the counters can be trusted: every sample has the same GPUs, each with its
/// counter, and no GPU's counter went down from one sample to the next.
fn counter_usable(samples: &[GpuSample]) -> bool {
    let Some(first) = samples.first() else {
        return false;
    };
    let ids = |s: &GpuSample| s.gpus.iter().map(|r| r.gpu.clone()).collect::<Vec<_>>();
    let same = ids(first);
    !same.is_empty()
        && samples
            .iter()
            .all(|s| ids(s) == same && s.gpus.iter().all(|r| r.energy_j.is_some()))
        && samples.windows(2).all(|w| {
            w[0].gpus
                .iter()
                .zip(&w[1].gpus)
                .all(|(a, b)| b.energy_j >= a.energy_j)
        })
}

/// The series' value at `t`, linear between the samples around it (`t` inside the series).
fn at(series: &[(u64, f64)], t: u64) -> Option<f64> {
    let after = series.iter().position(|&(ti, _)| ti >= t)?;
    let (t1, v1) = series[after];
    if t1 == t || after == 0 {
        return Some(v1);
    }
    let (t0, v0) = series[after - 1];
    Some(v0 + (v1 - v0) * (t - t0) as f64 / (t1 - t0) as f64)
}
