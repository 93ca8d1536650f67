//! Counts of durations in fixed-width buckets, shared by `overhead-mock` and
//! `overhead-floor`: cheap to add to from any thread, read as quantiles.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// Width of one bucket, us.
pub const BUCKET_US: u64 = 50;

/// Counts of durations in [`BUCKET_US`] buckets; the last holds everything longer.
pub struct Histogram(Vec<AtomicU64>);

impl Histogram {
    /// A histogram of `buckets` buckets, all empty.
    pub fn new(buckets: usize) -> Histogram {
        Histogram((0..buckets).map(|_| AtomicU64::new(0)).collect())
    }

    /// Counts `d`; returns it in us.
    pub fn add(&self, d: Duration) -> u64 {
        let us = u64::try_from(d.as_micros()).unwrap_or(u64::MAX);
        let last = self.0.len() - 1;
        let bucket = usize::try_from(us / BUCKET_US).map_or(last, |b| b.min(last));
        self.0[bucket].fetch_add(1, Ordering::Relaxed);
        us
    }

    /// Where in the bucket holding quantile `q` (`at`: 0.5 its middle, 1 its upper edge),
    /// us (0 when empty).
    pub fn quantile_us(&self, q: f64, at: f64) -> u64 {
        let counts: Vec<u64> = self.0.iter().map(|c| c.load(Ordering::Relaxed)).collect();
        let total: u64 = counts.iter().sum();
        let rank = (q * total as f64).ceil() as u64;
        let mut seen = 0;
        for (i, c) in counts.iter().enumerate() {
            seen += c;
            if total > 0 && seen >= rank.max(1) {
                return i as u64 * BUCKET_US + (BUCKET_US as f64 * at) as u64;
            }
        }
        0
    }

    /// Durations counted.
    pub fn count(&self) -> u64 {
        self.0.iter().map(|c| c.load(Ordering::Relaxed)).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_at_bucket_middles_and_an_empty_histogram_is_zero() {
        let h = Histogram::new(40_000);
        assert_eq!(h.quantile_us(0.5, 0.5), 0);
        for ms in [9.98, 10.0, 10.01, 10.02, 12.6] {
            h.add(Duration::from_secs_f64(ms / 1e3));
        }
        // 9,980 us is in [9,950, 10,000); the rest but one in [10,000, 10,050).
        assert_eq!(h.quantile_us(0.2, 0.5), 9_975);
        assert_eq!(h.quantile_us(0.5, 0.5), 10_025);
        assert_eq!(h.quantile_us(0.99, 0.5), 12_625);
        assert_eq!(h.quantile_us(0.99, 1.0), 12_650);
        assert_eq!(h.count(), 5);
    }
}
