//! The GPUs beside a cell: power, energy, utilization and memory, sampled on the cell's clock
//! from a DCGM exporter's Prometheus page ([`dcgm`]) or `nvidia-smi`'s CSV ([`smi`]), kept
//! in the cell directory ([`GPU_METRICS_FILE`], one [`GpuSample`] per line) and summarized
//! per phase, with the energy per output token and per request over Measure ([`summary`]).

pub mod amd;
pub mod dcgm;
pub mod energy;
pub mod smi;
pub mod summary;

use std::path::Path;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::results::{self, ResultsError};
pub use energy::EnergySource;
pub use summary::{GpuMetrics, GpuPhase};

/// The samples' file in a cell directory.
pub const GPU_METRICS_FILE: &str = "gpu_metrics.jsonl.gz";

/// One GPU at one instant, as its source reports it (absent where it does not).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct GpuReading {
    /// Which GPU: its UUID (`GPU-...`), else `host/index`.
    pub gpu: String,
    /// Its model name (`NVIDIA H100 80GB HBM3`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Power draw, W.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub power_w: Option<f64>,
    /// Energy consumed since the driver loaded, J (DCGM's counter; absent from nvidia-smi).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub energy_j: Option<f64>,
    /// GPU utilization, % of time a kernel ran.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub util_pct: Option<f64>,
    /// Share of cycles the tensor pipe was active, 0..=1 (DCGM profiling metric).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tensor_active: Option<f64>,
    /// Frame-buffer memory used, MiB.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory_used_mib: Option<f64>,
}

impl GpuReading {
    /// A reading of `gpu` with nothing known yet.
    pub fn new(gpu: impl Into<String>) -> GpuReading {
        GpuReading {
            gpu: gpu.into(),
            name: None,
            power_w: None,
            energy_j: None,
            util_pct: None,
            tensor_active: None,
            memory_used_mib: None,
        }
    }
}

/// Every GPU of every source at one instant.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct GpuSample {
    /// When it was taken (sent, or its first line read), us since the cell's start.
    pub t_us: u64,
    /// The GPUs.
    pub gpus: Vec<GpuReading>,
}

/// Writes `samples` to `path` as gzipped JSON lines, atomically.
pub fn write(path: &Path, samples: &[GpuSample]) -> Result<(), ResultsError> {
    results::write_jsonl_gz(path, samples)
}

/// Reads a cell's GPU samples back.
pub fn read(path: &Path) -> Result<Vec<GpuSample>, ResultsError> {
    results::read_jsonl_gz(path)
}
