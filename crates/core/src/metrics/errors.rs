//! Request counts and errors by kind ([`RequestCounts`]), for the measured requests and
//! for the whole cell. Cancelled padding is counted, but is not an error.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::Window;
use crate::sample::{Outcome, Sample};

/// How many requests there were and how they failed.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RequestCounts {
    /// Requests sent in the cell, any phase and outcome.
    pub total: u64,
    /// Requests started in the measure window `[m0, m1)`, any outcome.
    pub measured: u64,
    /// Measured requests that succeeded: the population of every per-request
    /// distribution.
    pub measured_ok: u64,
    /// Measured requests that failed.
    pub measured_errors: u64,
    /// Failures among the measured requests by kind (`Outcome::key`: `http_503`,
    /// `timeout`, ...).
    pub measured_errors_by_kind: BTreeMap<String, u64>,
    /// Failures in every phase by kind.
    pub errors_by_kind: BTreeMap<String, u64>,
    /// Padding requests cancelled when Drain ended (not errors).
    pub cancelled: u64,
}

impl RequestCounts {
    /// Counts `samples` (all of the cell's requests) against `window`.
    pub(crate) fn count(samples: &[Sample], window: &Window) -> RequestCounts {
        let mut counts = RequestCounts {
            total: samples.len() as u64,
            ..RequestCounts::default()
        };
        for s in samples {
            let measured = window.measures(s);
            counts.measured += u64::from(measured);
            counts.cancelled += u64::from(s.outcome == Outcome::Cancelled);
            if s.outcome.is_ok() {
                counts.measured_ok += u64::from(measured);
            } else if s.outcome.is_error() {
                *counts.errors_by_kind.entry(s.outcome.key()).or_default() += 1;
                if measured {
                    counts.measured_errors += 1;
                    *counts
                        .measured_errors_by_kind
                        .entry(s.outcome.key())
                        .or_default() += 1;
                }
            }
        }
        counts
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::fixtures::{ok, sample, window};

    #[test]
    fn errors_by_kind_leave_out_cancelled_padding() {
        let w = window(1_000, 2_000, 4);
        let failed = |t_sent, outcome| Sample {
            outcome,
            ..sample(t_sent, &[], t_sent + 10)
        };
        let samples = [
            ok(sample(500, &[(600, 1)], 600)), // before the window: not measured
            ok(sample(1_000, &[(1_100, 1)], 1_100)), // measured, ok
            failed(1_200, Outcome::HttpStatus { status: 503 }), // measured
            failed(1_300, Outcome::HttpStatus { status: 503 }), // measured
            failed(1_400, Outcome::Timeout),   // measured
            failed(800, Outcome::Timeout),     // Stabilize: all phases only
            failed(2_000, Outcome::Cancelled), // Drain padding: not an error
            failed(2_100, Outcome::DrainTimeout), // Drain padding, still an error
        ];
        let c = RequestCounts::count(&samples, &w);
        let map = |pairs: &[(&str, u64)]| -> BTreeMap<String, u64> {
            pairs.iter().map(|&(k, v)| (k.to_owned(), v)).collect()
        };
        assert_eq!(
            c,
            RequestCounts {
                total: 8,
                measured: 4,
                measured_ok: 1,
                measured_errors: 3,
                measured_errors_by_kind: map(&[("http_503", 2), ("timeout", 1)]),
                errors_by_kind: map(&[("drain_timeout", 1), ("http_503", 2), ("timeout", 2)]),
                cancelled: 1,
            }
        );
    }
}
