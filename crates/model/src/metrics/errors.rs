//! Request counts and errors by kind ([`RequestCounts`]), for the measured requests and
//! for the whole cell. Requests plateau cancelled (padding at Drain's end, everything in
//! flight at Ctrl-C) are counted, but are not errors and not in the error rate. Errors are also
//! weighed by the slot-time they took: one slot failing fast for seconds is many failed
//! requests but little of the cell's time.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::Window;
use crate::sample::Sample;

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
    /// Requests plateau cancelled: padding when Drain ended, and those in flight when the
    /// run was stopped (not errors).
    pub cancelled: u64,
    /// `measured_errors / (measured - cancelled measured requests)`: the share of the
    /// measured requests that ran to an end which failed; absent when none did.
    #[serde(default)]
    pub error_rate: Option<f64>,
    /// Share of the window's slot-time (N x Measure) spent in failed requests and the waits
    /// after them (`backoff_us`), any phase, clipped to the window.
    #[serde(default)]
    pub error_time_fraction: Option<f64>,
    /// Requests the server turned away (429, 503) or that found no connection, any phase:
    /// not in flight for the achieved concurrency.
    #[serde(default)]
    pub rejected: u64,
}

impl RequestCounts {
    /// The measured failures by kind, as text: `http_429 75, timeout 2`.
    pub fn measured_error_kinds(&self) -> String {
        let kinds: Vec<String> = self
            .measured_errors_by_kind
            .iter()
            .map(|(k, n)| format!("{k} {n}"))
            .collect();
        kinds.join(", ")
    }

    /// Counts `samples` (all of the cell's requests) against `window`.
    pub(crate) fn count(samples: &[Sample], window: &Window) -> RequestCounts {
        let mut counts = RequestCounts {
            total: samples.len() as u64,
            ..RequestCounts::default()
        };
        let mut error_us: u128 = 0;
        let mut measured_cancelled = 0u64;
        for s in samples {
            let measured = window.measures(s);
            counts.rejected += u64::from(s.outcome.is_rejected());
            if s.outcome.is_error() {
                let end = s.t_end_us.saturating_add(s.backoff_us.unwrap_or(0));
                let (from, to) = (s.t_sent_us.max(window.m0_us), end.min(window.m1_us));
                error_us += u128::from(to.saturating_sub(from));
            }
            counts.measured += u64::from(measured);
            counts.cancelled += u64::from(s.outcome.is_cancelled());
            measured_cancelled += u64::from(measured && s.outcome.is_cancelled());
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
        let ran = counts.measured - measured_cancelled;
        counts.error_rate = (ran > 0).then(|| counts.measured_errors as f64 / ran as f64);
        // An open loop has no slots: its errors cost arrivals, counted by `error_rate`.
        let slot_us = u128::from(window.concurrency.unwrap_or(0))
            * u128::from(window.m1_us.saturating_sub(window.m0_us));
        counts.error_time_fraction =
            (slot_us > 0).then(|| (error_us as f64 / slot_us as f64).min(1.0));
        counts
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::fixtures::{ok, sample, window};
    use crate::sample::Outcome;

    #[test]
    fn errors_by_kind_leave_out_cancelled_padding_and_weigh_slot_time() {
        let w = window(1_000, 2_000, 4);
        let failed = |t_sent, outcome| Sample {
            outcome,
            ..sample(t_sent, &[], t_sent + 10)
        };
        let samples = [
            ok(sample(500, &[(600, 1)], 600)), // before the window: not measured
            ok(sample(1_000, &[(1_100, 1)], 1_100)), // measured, ok
            Sample {
                backoff_us: Some(500), // the slot then waited until 1,710
                ..failed(1_200, Outcome::HttpStatus { status: 503 })  // measured
            },
            failed(1_300, Outcome::HttpStatus { status: 503 }), // measured
            failed(1_400, Outcome::Timeout),                    // measured
            failed(800, Outcome::Timeout),                      // Stabilize: all phases only
            failed(2_000, Outcome::Cancelled),                  // Drain padding: not an error
            failed(2_100, Outcome::DrainTimeout),               // Drain padding, still an error
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
                error_rate: Some(0.75),
                // 510 + 10 + 10 us of failure (and waiting) in 4 slots x 1,000 us.
                error_time_fraction: Some(530.0 / 4_000.0),
                rejected: 2,
            }
        );
    }

    #[test]
    fn requests_cut_by_a_stop_are_cancelled_not_errors() {
        let w = window(1_000, 2_000, 2);
        let cut = |t_sent, outcome| Sample {
            outcome,
            ..sample(t_sent, &[], t_sent + 10)
        };
        // Ctrl-C in Measure: one request had ended well, one had failed, two were cut.
        let samples = [
            ok(sample(1_000, &[(1_100, 1)], 1_100)),
            cut(1_100, Outcome::HttpStatus { status: 500 }),
            cut(1_200, Outcome::Cancelled),
            cut(1_300, Outcome::Interrupted), // as older records say it
        ];
        let c = RequestCounts::count(&samples, &w);
        assert_eq!((c.measured, c.measured_ok, c.measured_errors), (4, 1, 1));
        assert_eq!(c.cancelled, 2);
        assert!(!c.errors_by_kind.contains_key("cancelled"), "{c:?}");
        // One failure among the two requests that ran to an end.
        assert_eq!(c.error_rate, Some(0.5));
    }
}
