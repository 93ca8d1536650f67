//! The cell clock: one monotonic origin (`tokio::time::Instant`, so paused-time tests see
//! virtual time), and every instant as microseconds since it.

use std::time::Duration;

use tokio::time::Instant;

/// Origin of a cell's timestamps.
#[derive(Clone, Copy, Debug)]
pub struct Clock {
    origin: Instant,
}

impl Clock {
    /// A clock whose origin is now.
    pub fn start() -> Self {
        Clock {
            origin: Instant::now(),
        }
    }

    /// Time since the origin.
    pub fn elapsed(&self) -> Duration {
        self.origin.elapsed()
    }

    /// Microseconds since the origin.
    pub fn now_us(&self) -> u64 {
        micros(self.elapsed())
    }

    /// The instant `offset` after the origin.
    pub fn at(&self, offset: Duration) -> Instant {
        self.origin + offset
    }
}

/// A duration in whole microseconds (saturating).
pub fn micros(d: Duration) -> u64 {
    u64::try_from(d.as_micros()).unwrap_or(u64::MAX)
}
