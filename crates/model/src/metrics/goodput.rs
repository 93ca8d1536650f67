//! Goodput ([`Goodput`]): the measured requests that met every configured SLO, failures
//! counted as misses.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::Window;
use crate::config::SloConfig;
use crate::sample::Sample;

/// Requests meeting the SLOs among those started in the measure window.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Goodput {
    /// Measured requests that succeeded and met every SLO set
    /// (see [`Sample::meets_slo`]).
    pub good: u64,
    /// Measured requests, any outcome (failures are misses).
    pub total: u64,
    /// `good / total`; absent without measured requests.
    pub fraction: Option<f64>,
    /// `good / window length`, requests/s.
    pub rate_rps: f64,
}

impl Goodput {
    /// Goodput of the `measured` requests; `None` when no SLO threshold is set.
    pub(crate) fn judge<'a>(
        measured: impl Iterator<Item = &'a Sample>,
        slo: &SloConfig,
        window: &Window,
    ) -> Option<Goodput> {
        if slo.ttft_ms.is_none() && slo.tpot_ms.is_none() && slo.e2e_ms.is_none() {
            return None;
        }
        let (good, total) = measured.fold((0u64, 0u64), |(good, total), s| {
            (good + u64::from(s.meets_slo(slo)), total + 1)
        });
        Some(Goodput {
            good,
            total,
            fraction: (total > 0).then(|| good as f64 / total as f64),
            rate_rps: good as f64 / window.duration_s(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::fixtures::{ok, sample, window};
    use crate::sample::Outcome;

    #[test]
    fn slos_and_errors_as_misses() {
        // Window of 2 s. SLOs: TTFT <= 100 ms, TPOT <= 20 ms; E2E unset.
        let w = window(0, 2_000_000, 4);
        let slo = SloConfig {
            ttft_ms: Some(100.0),
            tpot_ms: Some(20.0),
            e2e_ms: None,
        };
        let measured = [
            // TTFT 50 ms, TPOT (250 - 50) ms / 10 = 20 ms: good (limits are inclusive).
            ok(sample(0, &[(50_000, 1), (250_000, 10)], 250_000)),
            // TTFT 150 ms: miss.
            ok(sample(0, &[(150_000, 1), (250_000, 10)], 250_000)),
            // TTFT 10 ms, TPOT (1010 - 10) ms / 10 = 100 ms: miss.
            ok(sample(0, &[(10_000, 1), (1_010_000, 10)], 1_010_000)),
            // One token, TTFT 90 ms: no TPOT to violate: good. E2E 5 s is not limited.
            ok(sample(0, &[(90_000, 1)], 5_000_000)),
            // Failed: a miss whatever its timings.
            Sample {
                outcome: Outcome::Stream,
                ..sample(0, &[(10_000, 1), (20_000, 1)], 20_000)
            },
        ];
        let g = Goodput::judge(measured.iter(), &slo, &w).expect("SLOs are set");
        assert_eq!(
            g,
            Goodput {
                good: 2,
                total: 5,
                fraction: Some(0.4),
                rate_rps: 1.0, // 2 good / 2 s
            }
        );
    }

    #[test]
    fn no_threshold_means_no_goodput() {
        let w = window(0, 1_000_000, 1);
        assert_eq!(Goodput::judge([].iter(), &SloConfig::default(), &w), None);
    }
}
