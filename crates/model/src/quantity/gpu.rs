//! The GPUs' energy over Measure (only where `gpu_metrics` sampled them), one constant per
//! quantity.

use super::{Quantity, Reading};
use crate::gpu::GpuMetrics;
use crate::results::summary::CellSummary;

fn gpu(s: &CellSummary, f: fn(&GpuMetrics) -> Option<f64>) -> Option<Reading> {
    s.gpu.as_deref().and_then(f).map(Reading::plain)
}

quantity!(
    GPU_JOULES_PER_TOKEN,
    "gpu.joules_per_output_token",
    "gpu_joules_per_output_token",
    "energy per output token",
    "J/tok",
    Measure,
    Lower,
    |s| gpu(s, |g| g.joules_per_output_token)
);
quantity!(
    GPU_TOKENS_PER_JOULE,
    "gpu.output_tokens_per_joule",
    "gpu_output_tokens_per_joule",
    "output tokens per joule",
    "tok/J",
    Measure,
    Higher,
    |s| gpu(s, |g| g.output_tokens_per_joule)
);
quantity!(
    GPU_JOULES_PER_REQUEST,
    "gpu.joules_per_request",
    "gpu_joules_per_request",
    "energy per request",
    "J/req",
    Measure,
    Lower,
    |s| gpu(s, |g| g.joules_per_request)
);
quantity!(
    GPU_POWER_MEAN,
    "gpu.measure.power_w.mean",
    "gpu_power_w_mean",
    "GPU power, mean",
    "W",
    Measure,
    Neither,
    |s| gpu(s, |g| g.measure.power_w.map(|p| p.mean))
);
quantity!(
    GPU_ENERGY,
    "gpu.measure.energy_j",
    "gpu_energy_j",
    "GPU energy in Measure",
    "J",
    Measure,
    Lower,
    |s| gpu(s, |g| g.measure.energy_j)
);
quantity!(
    GPU_UTIL,
    "gpu.measure.gpu_util_pct",
    "gpu_util_pct",
    "GPU utilization",
    "%",
    Measure,
    Neither,
    |s| gpu(s, |g| g.measure.gpu_util_pct)
);
