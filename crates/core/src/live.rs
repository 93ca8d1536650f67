//! Live counters a run updates and a progress display reads (core never prints).

use std::sync::atomic::{AtomicU8, AtomicU64, Ordering};

use plateau_model::phase::Phase;

/// Counters of the cell in progress; cheap atomics, read by polling.
#[derive(Debug, Default)]
pub struct Live {
    phase: AtomicU8,
    in_flight: AtomicU64,
    sent: AtomicU64,
    ok: AtomicU64,
    errors: AtomicU64,
    output_tokens: AtomicU64,
}

/// A copy of the counters at one moment.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Snapshot {
    /// Current phase, `None` before the first cell starts or after a cell ends.
    pub phase: Option<Phase>,
    /// Requests in flight.
    pub in_flight: u64,
    /// Requests sent in this cell.
    pub sent: u64,
    /// Requests completed successfully in this cell.
    pub ok: u64,
    /// Requests failed in this cell (cancelled padding not counted).
    pub errors: u64,
    /// Output tokens received in this cell.
    pub output_tokens: u64,
}

impl Live {
    /// Resets every counter for a new cell.
    pub fn reset(&self) {
        for c in [
            &self.in_flight,
            &self.sent,
            &self.ok,
            &self.errors,
            &self.output_tokens,
        ] {
            c.store(0, Ordering::Relaxed);
        }
        self.phase.store(0, Ordering::Relaxed);
    }

    /// Marks the current phase (`None`: between cells).
    pub fn set_phase(&self, phase: Option<Phase>) {
        let v = phase.map_or(0, |p| {
            Phase::ALL
                .iter()
                .position(|&q| q == p)
                .map_or(0, |i| i as u8 + 1)
        });
        self.phase.store(v, Ordering::Relaxed);
    }

    pub(crate) fn request_started(&self) {
        self.in_flight.fetch_add(1, Ordering::Relaxed);
        self.sent.fetch_add(1, Ordering::Relaxed);
    }

    pub(crate) fn request_ended(&self, ok: bool, error: bool) {
        self.in_flight.fetch_sub(1, Ordering::Relaxed);
        if ok {
            self.ok.fetch_add(1, Ordering::Relaxed);
        } else if error {
            self.errors.fetch_add(1, Ordering::Relaxed);
        }
    }

    pub(crate) fn add_tokens(&self, n: u64) {
        self.output_tokens.fetch_add(n, Ordering::Relaxed);
    }

    /// The counters now.
    pub fn snapshot(&self) -> Snapshot {
        let phase = match self.phase.load(Ordering::Relaxed) {
            0 => None,
            i => Phase::ALL.get(usize::from(i) - 1).copied(),
        };
        Snapshot {
            phase,
            in_flight: self.in_flight.load(Ordering::Relaxed),
            sent: self.sent.load(Ordering::Relaxed),
            ok: self.ok.load(Ordering::Relaxed),
            errors: self.errors.load(Ordering::Relaxed),
            output_tokens: self.output_tokens.load(Ordering::Relaxed),
        }
    }
}
