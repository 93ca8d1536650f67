//! Per-phase summary of a cell's GPU samples ([`GpuMetrics`] in `summary.json`) and the
//! energy per output token over Measure. Power is the sum over the GPUs at each sample;
//! energy over a span is the increase of DCGM's energy counter, read at the span's ends by
//! linear interpolation between the samples around them, when every GPU has the counter,
//! else the integral of the summed power (trapezoids, the ends interpolated likewise). A
//! span is only counted where samples cover it: its ends are clipped to the first and last
//! sample, and `covered_s` says how much of it that left.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::energy::{EnergySource, sum};
use super::{GpuReading, GpuSample};
use crate::metrics::Throughput;
use crate::results::summary::PhaseBounds;
use crate::scrape::summary::{Gauge, Span, gauge, spans};

/// The GPUs over one phase.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct GpuPhase {
    /// Samples taken inside the phase.
    pub samples: u64,
    /// Power of all GPUs together, W: mean and max over the phase's samples.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub power_w: Option<Gauge>,
    /// Energy of all GPUs together over the phase, J.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub energy_j: Option<f64>,
    /// Where `energy_j` came from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub energy_source: Option<EnergySource>,
    /// Seconds of the phase the samples cover (what `energy_j` is over).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub covered_s: Option<f64>,
    /// GPU utilization, %, mean over GPUs and samples.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gpu_util_pct: Option<f64>,
    /// Tensor pipe active, 0..=1, mean over GPUs and samples.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tensor_active: Option<f64>,
    /// Memory used by all GPUs together, MiB: mean and max.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory_used_mib: Option<Gauge>,
    /// Samples in the phase whose power or energy differs from the sample before: far
    /// fewer than `samples` means the source refreshes slower than it is read (DCGM
    /// exporter's default `--collect-interval` is 30 s).
    #[serde(default)]
    pub distinct_readings: u64,
}

/// One GPU seen over the cell.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct GpuInfo {
    /// Its UUID, else `host/index`.
    pub gpu: String,
    /// Its model name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

/// The GPUs over one cell, and the energy the cell's output cost.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct GpuMetrics {
    /// The sources sampled (URLs with credentials masked, or `nvidia-smi`).
    pub sources: Vec<String>,
    /// The raw samples' file in the cell directory.
    pub file: String,
    /// Time between samples, ms.
    pub interval_ms: u64,
    /// Samples taken.
    pub samples: u64,
    /// Samples that failed (a source did not answer in time, or answered nonsense).
    pub failed_samples: u64,
    /// The GPUs seen.
    pub gpus: Vec<GpuInfo>,
    /// Fill.
    pub fill: GpuPhase,
    /// Stabilize.
    pub stabilize: GpuPhase,
    /// Measure.
    pub measure: GpuPhase,
    /// Drain.
    pub drain: GpuPhase,
    /// Measure's energy over the output tokens that arrived in Measure
    /// (`throughput.output_tokens`, the same window), J per token.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub joules_per_output_token: Option<f64>,
    /// Output tokens per J over Measure (the inverse).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_tokens_per_joule: Option<f64>,
    /// Measure's energy over the requests completed in Measure, J per request.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub joules_per_request: Option<f64>,
    /// Output tokens per second per GPU over Measure (`server_direct_tps / GPUs seen`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_tps_per_gpu: Option<f64>,
    /// Numbers that could not be given, each with the reason.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub unmeasured: BTreeMap<String, String>,
}

/// What a cell's GPU samples are summarized with, besides the samples.
#[derive(Clone, Copy, Debug)]
pub struct Context<'a> {
    /// The cell's phase bounds.
    pub bounds: &'a PhaseBounds,
    /// The cell's throughput over Measure.
    pub throughput: &'a Throughput,
    /// Samples that failed.
    pub failed: u64,
    /// Time between samples, ms.
    pub interval_ms: u64,
}

impl GpuMetrics {
    /// The summary of `samples` (sorted by time) from `sources`.
    pub fn measure(samples: &[GpuSample], sources: Vec<String>, ctx: Context<'_>) -> GpuMetrics {
        let [fill, stabilize, measure, drain] = spans(ctx.bounds);
        let phase = |span| phase(samples, span);
        let measure = phase(measure);
        let mut gpus: Vec<GpuInfo> = Vec::new();
        for r in samples.iter().flat_map(|s| &s.gpus) {
            if !gpus.iter().any(|g| g.gpu == r.gpu) {
                gpus.push(GpuInfo {
                    gpu: r.gpu.clone(),
                    name: r.name.clone(),
                });
            }
        }
        let t = ctx.throughput;
        let energy = measure.energy_j.filter(|e| *e > 0.0);
        let mut unmeasured = BTreeMap::new();
        if energy.is_none() {
            unmeasured.insert(
                "joules_per_output_token".into(),
                "no energy over Measure: no sample covered it with a power draw or an energy \
                 counter"
                    .into(),
            );
        } else if t.output_tokens == 0 {
            unmeasured.insert(
                "joules_per_output_token".into(),
                "no output token arrived in Measure".into(),
            );
        }
        if measure.tensor_active.is_none() {
            unmeasured.insert("tensor_active".into(), tensor_reason(&sources).into());
        }
        let tokens = (t.output_tokens > 0).then_some(t.output_tokens as f64);
        let requests = (t.requests_completed > 0).then_some(t.requests_completed as f64);
        GpuMetrics {
            sources,
            file: super::GPU_METRICS_FILE.into(),
            interval_ms: ctx.interval_ms,
            samples: samples.len() as u64,
            failed_samples: ctx.failed,
            fill: phase(fill),
            stabilize: phase(stabilize),
            drain: phase(drain),
            joules_per_output_token: energy.zip(tokens).map(|(e, n)| e / n),
            output_tokens_per_joule: energy.zip(tokens).map(|(e, n)| n / e),
            joules_per_request: energy.zip(requests).map(|(e, n)| e / n),
            output_tps_per_gpu: (!gpus.is_empty()).then(|| t.server_direct_tps / gpus.len() as f64),
            measure,
            gpus,
            unmeasured,
        }
    }
}

/// Why no sample had the tensor pipe's activity.
fn tensor_reason(sources: &[String]) -> &'static str {
    if sources.iter().any(|s| s.starts_with("http")) {
        "the DCGM exporter did not export DCGM_FI_PROF_PIPE_TENSOR_ACTIVE: it is not in its \
         default counters; run it with `-f /etc/dcgm-exporter/dcp-metrics-included.csv`"
    } else {
        "nvidia-smi and amd-smi do not report the tensor pipe's activity; read a DCGM exporter \
         with the profiling counters for it"
    }
}

/// One phase of `samples` over `span`.
pub fn phase(samples: &[GpuSample], span: Span) -> GpuPhase {
    let inside: Vec<&GpuSample> = samples
        .iter()
        .filter(|s| s.t_us >= span.from_us && s.t_us < span.to_us)
        .collect();
    let total = |f: fn(&GpuReading) -> Option<f64>| gauge(inside.iter().filter_map(|s| sum(s, f)));
    let each = |f: fn(&GpuReading) -> Option<f64>| {
        gauge(inside.iter().flat_map(|s| s.gpus.iter().filter_map(f))).map(|g| g.mean)
    };
    let (energy_j, energy_source, covered_s) = match super::energy::over(samples, span) {
        Some((e, src, s)) => (Some(e), Some(src), Some(s)),
        None => (None, None, None),
    };
    GpuPhase {
        samples: inside.len() as u64,
        power_w: total(|r| r.power_w),
        energy_j,
        energy_source,
        covered_s,
        gpu_util_pct: each(|r| r.util_pct),
        tensor_active: each(|r| r.tensor_active),
        memory_used_mib: total(|r| r.memory_used_mib),
        distinct_readings: distinct(&inside),
    }
}

/// Samples whose readings differ from the sample before them (the first counts): an
/// exporter that refreshes every 30 s gives one per 30 s however often it is read.
fn distinct(inside: &[&GpuSample]) -> u64 {
    let key = |s: &GpuSample| -> Vec<(Option<f64>, Option<f64>)> {
        s.gpus.iter().map(|r| (r.power_w, r.energy_j)).collect()
    };
    let mut n = 0;
    let mut last = None;
    for s in inside {
        let k = key(s);
        if last.as_ref() != Some(&k) {
            n += 1;
        }
        last = Some(k);
    }
    n
}

#[cfg(test)]
mod tests;
