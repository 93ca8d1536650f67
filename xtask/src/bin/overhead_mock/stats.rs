//! What `overhead-mock` counts about itself, served as JSON by `GET /stats`.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use xtask_support::histogram::Histogram;

/// Buckets of the lateness histogram; the last holds everything later.
const BUCKETS: usize = 200;
/// Buckets of the on-the-wire TTFT and ITL histograms (up to 2 s).
const WIRE_BUCKETS: usize = 40_000;

/// Counters since the start.
pub(crate) struct Stats {
    pub(crate) posts: AtomicU64,
    pub(crate) active: AtomicU64,
    pub(crate) events: AtomicU64,
    /// Unix us of the first request of any kind but `/stats`, and of the first reply longer
    /// than one token (a cell's request, not the preflight's); 0 before.
    pub(crate) first_any_unix_us: AtomicU64,
    pub(crate) first_long_unix_us: AtomicU64,
    /// The same instant, ns after the mock started, plus one (0 before).
    pub(crate) first_long_ns: AtomicU64,
    pub(crate) late: Histogram,
    pub(crate) late_max_us: AtomicU64,
    /// Of the replies in the window: request read to first write returned, and write to
    /// write, as they went out.
    pub(crate) wire_ttft: Histogram,
    pub(crate) wire_itl: Histogram,
}

impl Stats {
    pub(crate) fn new() -> Stats {
        Stats {
            posts: AtomicU64::new(0),
            active: AtomicU64::new(0),
            events: AtomicU64::new(0),
            first_any_unix_us: AtomicU64::new(0),
            first_long_unix_us: AtomicU64::new(0),
            first_long_ns: AtomicU64::new(0),
            late: Histogram::new(BUCKETS),
            late_max_us: AtomicU64::new(0),
            wire_ttft: Histogram::new(WIRE_BUCKETS),
            wire_itl: Histogram::new(WIRE_BUCKETS),
        }
    }

    pub(crate) fn late_by(&self, late: Duration) {
        let us = self.late.add(late);
        self.late_max_us.fetch_max(us, Ordering::Relaxed);
        self.events.fetch_add(1, Ordering::Relaxed);
    }

    pub(crate) fn json(&self) -> String {
        format!(
            "{{\"posts\":{},\"active\":{},\"events\":{},\"first_any_unix_us\":{},\
             \"first_long_unix_us\":{},\"late_p50_us\":{},\"late_p99_us\":{},\"late_max_us\":{},\
             \"wire_ttft_p50_us\":{},\"wire_itl_p99_us\":{},\"wire_gaps\":{}}}",
            self.posts.load(Ordering::Relaxed),
            self.active.load(Ordering::Relaxed),
            self.events.load(Ordering::Relaxed),
            self.first_any_unix_us.load(Ordering::Relaxed),
            self.first_long_unix_us.load(Ordering::Relaxed),
            self.late.quantile_us(0.5, 1.0),
            self.late.quantile_us(0.99, 1.0),
            self.late_max_us.load(Ordering::Relaxed),
            self.wire_ttft.quantile_us(0.5, 0.5),
            self.wire_itl.quantile_us(0.99, 0.5),
            self.wire_itl.count(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use xtask_support::histogram::BUCKET_US;

    #[test]
    fn lateness_quantiles_are_bucket_upper_edges() {
        let stats = Stats::new();
        for us in [10, 20, 30, 40, 60, 70, 80, 90, 120, 15_000] {
            stats.late_by(Duration::from_micros(us));
        }
        // 4 of 10 in [0, 50), 4 in [50, 100), 1 in [100, 150), 1 past the last bucket.
        assert_eq!(stats.late.quantile_us(0.4, 1.0), 50);
        assert_eq!(stats.late.quantile_us(0.5, 1.0), 100);
        assert_eq!(stats.late.quantile_us(0.9, 1.0), 150);
        assert_eq!(
            stats.late.quantile_us(0.99, 1.0),
            BUCKET_US * BUCKETS as u64
        );
        assert_eq!(stats.late_max_us.load(Ordering::Relaxed), 15_000);
        assert_eq!(stats.events.load(Ordering::Relaxed), 10);
    }
}
