//! The per-cell timeline behind the report's timeline figure: output tokens/s and
//! requests in flight in consecutive buckets over the whole cell ([`timeline`]).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::concurrency::InFlight;
use super::throughput::output_tokens_by_bucket;
use crate::sample::Sample;

/// One bucket of the timeline.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TimelinePoint {
    /// Start of the bucket, seconds since the cell's start.
    pub t_s: f64,
    /// Output tokens arriving in the bucket per second of its length.
    pub output_tps: f64,
    /// Time-weighted mean of requests in flight during the bucket.
    pub in_flight: f64,
}

/// The timeline of a cell from 0 to `end_us` in buckets of `bucket_us` (the last one may
/// be shorter; its rate is over its own length). Every request counts, whatever its phase
/// or outcome; tokens arriving after `end_us` are left out. Empty when `bucket_us` or
/// `end_us` is 0.
pub fn timeline(samples: &[Sample], end_us: u64, bucket_us: u64) -> Vec<TimelinePoint> {
    let in_flight = InFlight::from_samples(samples);
    output_tokens_by_bucket(samples, 0, end_us, bucket_us)
        .into_iter()
        .enumerate()
        .map(|(k, tokens)| {
            let start_us = k as u64 * bucket_us;
            let stop_us = (start_us + bucket_us).min(end_us);
            let len_s = (stop_us - start_us) as f64 / 1e6;
            TimelinePoint {
                t_s: start_us as f64 / 1e6,
                output_tps: tokens as f64 / len_s,
                in_flight: in_flight.mean(start_us, stop_us).unwrap_or(0.0),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::fixtures::{ok, sample};

    #[test]
    fn buckets_tokens_and_in_flight_over_the_cell() {
        // Cell of 2.5 s in 1 s buckets: [0, 1), [1, 2), [2, 2.5].
        // A: sent 0.0 s, chunks 0.5 s (2 tok), 1.5 s (3 tok), ends 1.5 s.
        // B: sent 1.0 s, chunks 2.5 s (4 tok, at end_us: last bucket), 3.0 s (7 tok, after
        //    the end: left out), ends 3.0 s.
        let a = ok(sample(0, &[(500_000, 2), (1_500_000, 3)], 1_500_000));
        let b = ok(sample(
            1_000_000,
            &[(2_500_000, 4), (3_000_000, 7)],
            3_000_000,
        ));
        let points = timeline(&[a, b], 2_500_000, 1_000_000);
        // Bucket 0: 2 tok / 1 s; A in flight all of it -> 1.
        // Bucket 1: 3 tok / 1 s; A for 0.5 s, B for 1 s -> 1.5.
        // Bucket 2: 4 tok / 0.5 s = 8; B only -> 1.
        let want = [(0.0, 2.0, 1.0), (1.0, 3.0, 1.5), (2.0, 8.0, 1.0)];
        let got: Vec<_> = points
            .iter()
            .map(|p| (p.t_s, p.output_tps, p.in_flight))
            .collect();
        assert_eq!(got, want);
    }

    #[test]
    fn zero_bucket_or_end_gives_nothing() {
        let a = ok(sample(0, &[(10, 1)], 10));
        assert!(timeline(std::slice::from_ref(&a), 0, 1_000).is_empty());
        assert!(timeline(&[a], 1_000, 0).is_empty());
    }
}
