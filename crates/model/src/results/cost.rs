//! A cell's per-GPU throughput and cost per token, from the hardware the user states for
//! its endpoint and the cell's server output throughput (`throughput.server_direct_tps`,
//! output tokens per second of the measure window). The one place these are defined.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::config::HardwareConfig;

/// Seconds in an hour.
const HOUR_S: f64 = 3600.0;

/// Per-GPU throughput and cost of one cell; each number only where the hardware block
/// gives what it needs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Cost {
    /// Accelerators serving the endpoint (`hardware.gpu_count`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gpu_count: Option<u32>,
    /// Server output throughput per accelerator, tokens/s: `server_direct_tps / gpu_count`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_tps_per_gpu: Option<f64>,
    /// What the whole endpoint costs, USD per hour (`hardware.cost_per_hour`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_per_hour: Option<f64>,
    /// USD per million output tokens at this cell's throughput:
    /// `cost_per_hour / (server_direct_tps * 3600) * 1e6`; absent when no token came out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usd_per_million_output_tokens: Option<f64>,
}

impl Cost {
    /// The cost block of a cell whose server produced `output_tps` output tokens per second
    /// on `hardware`; `None` when the hardware gives neither a GPU count nor a price.
    pub fn of(hardware: Option<&HardwareConfig>, output_tps: f64) -> Option<Cost> {
        let h = hardware?;
        if h.gpu_count.is_none() && h.cost_per_hour.is_none() {
            return None;
        }
        let producing = output_tps.is_finite() && output_tps > 0.0;
        Some(Cost {
            gpu_count: h.gpu_count,
            output_tps_per_gpu: h
                .gpu_count
                .filter(|&n| n > 0 && output_tps.is_finite())
                .map(|n| output_tps / f64::from(n)),
            cost_per_hour: h.cost_per_hour,
            usd_per_million_output_tokens: h
                .cost_per_hour
                .filter(|_| producing)
                .map(|usd| usd / (output_tps * HOUR_S) * 1e6),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hw(gpu_count: Option<u32>, cost_per_hour: Option<f64>) -> HardwareConfig {
        HardwareConfig {
            gpu: Some("H100 80GB".into()),
            gpu_count,
            cost_per_hour,
        }
    }

    #[test]
    fn per_gpu_and_per_million_tokens() {
        // 2 GPUs at 8 USD/h producing 2000 tok/s: 1000 tok/s per GPU; 7.2e6 tokens an
        // hour cost 8 USD, so a million cost 8 / 7.2 = 1.1111... USD.
        let c = Cost::of(Some(&hw(Some(2), Some(8.0))), 2000.0).expect("cost");
        assert_eq!(c.gpu_count, Some(2));
        assert_eq!(c.output_tps_per_gpu, Some(1000.0));
        assert_eq!(c.cost_per_hour, Some(8.0));
        let usd = c.usd_per_million_output_tokens.expect("usd");
        assert!((usd - 8.0 / 7.2).abs() < 1e-12, "{usd}");
        // 3.6 USD/h at 1000 tok/s: 3.6e6 tokens an hour for 3.6 USD, exactly 1 USD/M.
        let c = Cost::of(Some(&hw(None, Some(3.6))), 1000.0).expect("cost");
        assert_eq!(c.usd_per_million_output_tokens, Some(1.0));
        assert_eq!(c.output_tps_per_gpu, None);
    }

    #[test]
    fn only_what_is_given() {
        let c = Cost::of(Some(&hw(Some(4), None)), 100.0).expect("cost");
        assert_eq!(c.output_tps_per_gpu, Some(25.0));
        assert_eq!(c.cost_per_hour, None);
        assert_eq!(c.usd_per_million_output_tokens, None);
        assert_eq!(Cost::of(Some(&hw(None, None)), 100.0), None);
        assert_eq!(Cost::of(None, 100.0), None);
    }

    #[test]
    fn no_tokens_no_price_per_token() {
        let c = Cost::of(Some(&hw(Some(1), Some(2.5))), 0.0).expect("cost");
        assert_eq!(c.usd_per_million_output_tokens, None);
        assert_eq!(c.output_tps_per_gpu, Some(0.0));
        assert_eq!(c.cost_per_hour, Some(2.5));
        // A free endpoint costs nothing per token.
        let c = Cost::of(Some(&hw(Some(1), Some(0.0))), 50.0).expect("cost");
        assert_eq!(c.usd_per_million_output_tokens, Some(0.0));
    }
}
