//! A DCGM exporter page (NVIDIA/dcgm-exporter@b54068a `etc/default-counters.csv`,
//! `internal/pkg/rendermetrics/render_metrics.go`@1f7abdb) into one [`GpuReading`] per GPU. Each
//! series is labelled `gpu` (index), `UUID` (or `uuid` with `--use-old-namespace` off),
//! `pci_bus_id`, `device`, `modelName` and, with `-H`/Kubernetes, `Hostname` (`hostname`
//! from the next release); MIG instances add `GPU_I_ID`, and are left out here (their
//! power and energy are the whole GPU's, counted once from the GPU's own series).
//!
//! | field | unit | reading |
//! |---|---|---|
//! | `DCGM_FI_DEV_POWER_USAGE` | W (gauge) | `power_w` |
//! | `DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION` | mJ since boot (counter) | `energy_j` (/ 1000) |
//! | `DCGM_FI_DEV_GPU_UTIL` | % (gauge) | `util_pct` |
//! | `DCGM_FI_PROF_PIPE_TENSOR_ACTIVE` | ratio of cycles (gauge; not in the default counters, only with `-f etc/dcp-metrics-included.csv`) | `tensor_active` |
//! | `DCGM_FI_DEV_FB_USED` | MiB (gauge) | `memory_used_mib` |

use super::GpuReading;
use crate::scrape::prom::Sample;

/// Power draw, W.
pub const POWER: &str = "DCGM_FI_DEV_POWER_USAGE";
/// Energy since boot, mJ.
pub const ENERGY: &str = "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION";
/// Utilization, %.
pub const UTIL: &str = "DCGM_FI_DEV_GPU_UTIL";
/// Tensor pipe active, ratio.
pub const TENSOR: &str = "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE";
/// Frame buffer used, MiB.
pub const FB_USED: &str = "DCGM_FI_DEV_FB_USED";

/// Whether `name` is a metric plateau reads from a DCGM page.
pub fn wanted(name: &str) -> bool {
    [POWER, ENERGY, UTIL, TENSOR, FB_USED].contains(&name)
}

/// The GPUs of one page's `samples`, in the order first seen; `None` when the page has none
/// of the fields plateau reads (not a DCGM exporter).
pub fn readings(samples: &[Sample]) -> Option<Vec<GpuReading>> {
    let mut out: Vec<GpuReading> = Vec::new();
    for s in samples.iter().filter(|s| wanted(&s.name)) {
        if s.label("GPU_I_ID").is_some() || !s.value.is_finite() {
            continue;
        }
        let Some(id) = gpu_id(s) else { continue };
        let at = match out.iter().position(|r| r.gpu == id) {
            Some(i) => i,
            None => {
                out.push(GpuReading::new(id));
                out.len() - 1
            }
        };
        let r = &mut out[at];
        if r.name.is_none() {
            r.name = s.label("modelName").map(str::to_owned);
        }
        let v = s.value;
        match s.name.as_str() {
            POWER => r.power_w = Some(v),
            ENERGY => r.energy_j = Some(v / 1000.0),
            UTIL => r.util_pct = Some(v),
            TENSOR => r.tensor_active = Some(v),
            _ => r.memory_used_mib = Some(v),
        }
    }
    (!out.is_empty()).then_some(out)
}

/// A GPU's key: its UUID, else its host and index.
fn gpu_id(s: &Sample) -> Option<String> {
    if let Some(uuid) = s.label("UUID").or_else(|| s.label("uuid")) {
        return Some(uuid.to_owned());
    }
    let index = s.label("gpu")?;
    let host = s
        .label("Hostname")
        .or_else(|| s.label("hostname"))
        .unwrap_or("");
    Some(format!("{host}/{index}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scrape::prom;

    /// Two H100s as dcgm-exporter renders them with `-H` (Hostname) and the default
    /// counters (no tensor pipe), plus a MIG instance's series.
    const PAGE: &str = include_str!("fixtures/dcgm-exporter.txt");
    /// One of them with `-f etc/dcp-metrics-included.csv`: the tensor pipe, and the driver
    /// version as a label.
    const DCP: &str = include_str!("fixtures/dcgm-exporter-dcp.txt");

    #[test]
    fn a_dcgm_page_gives_each_gpu_in_watts_joules_percent_and_mib() {
        let samples = prom::parse(PAGE).expect("Prometheus text");
        let r = readings(&samples).expect("GPUs");
        assert_eq!(r.len(), 2, "the MIG instance's series is not a third GPU");
        let a = &r[0];
        assert_eq!(a.gpu, "GPU-604ac76c-d9cf-fef3-62e9-d92044ab6e52");
        assert_eq!(a.name.as_deref(), Some("NVIDIA H100 80GB HBM3"));
        assert_eq!(a.power_w, Some(312.456));
        // 4185523412345 mJ since boot.
        assert_eq!(a.energy_j, Some(4_185_523_412.345));
        assert_eq!(a.util_pct, Some(97.0));
        assert_eq!(
            a.memory_used_mib,
            Some(71_234.0),
            "not the MIG instance's 512"
        );
        assert_eq!(r[1].power_w, Some(298.1));
        assert_eq!(r[1].energy_j, Some(4_020_113_004.511));
        assert!(
            r.iter().all(|g| g.tensor_active.is_none()),
            "not a default counter"
        );
    }

    #[test]
    fn the_dcp_counters_give_the_tensor_pipe() {
        let r = readings(&prom::parse(DCP).expect("text")).expect("a GPU");
        assert_eq!(r.len(), 1);
        assert_eq!(r[0].tensor_active, Some(0.412));
        assert_eq!(r[0].power_w, Some(312.456));
    }

    #[test]
    fn a_page_without_dcgm_fields_is_not_a_dcgm_page() {
        let samples = prom::parse("vllm:num_requests_running 3\n").expect("text");
        assert_eq!(readings(&samples), None);
        let by_index =
            prom::parse("DCGM_FI_DEV_POWER_USAGE{gpu=\"1\",Hostname=\"n1\"} 100\n").expect("text");
        assert_eq!(readings(&by_index).expect("a GPU")[0].gpu, "n1/1");
    }
}
