//! The four phases of a cell (Fill, Stabilize, Measure, Drain) and the pure schedule that
//! places slots and phase boundaries in time.

use std::time::Duration;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Where a cell is in its life. Every sample is labelled with the phase it was sent in.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// Slots start one at a time, evenly spaced; nothing is measured.
    Fill,
    /// All slots busy; caches, queues and JIT settle; nothing is measured.
    Stabilize,
    /// The measure window `[m0, m1)`: the only requests whose latencies are reported.
    Measure,
    /// Load held at N until every measured request has finished; sends here are padding.
    Drain,
}

impl Phase {
    /// All phases in order.
    pub const ALL: [Phase; 4] = [Phase::Fill, Phase::Stabilize, Phase::Measure, Phase::Drain];

    /// The name used in JSON, figures and docs.
    pub fn name(self) -> &'static str {
        match self {
            Phase::Fill => "Fill",
            Phase::Stabilize => "Stabilize",
            Phase::Measure => "Measure",
            Phase::Drain => "Drain",
        }
    }
}

/// Phase lengths of one cell and its slot count: a pure function of elapsed time.
///
/// Offsets are durations since the cell's start. The end of Drain is not part of the
/// schedule: it comes when the last measured request ends, or at [`Schedule::drain_deadline`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Schedule {
    /// Number of slots (the target concurrency N).
    pub slots: u32,
    /// Length of Fill.
    pub fill: Duration,
    /// Length of Stabilize.
    pub stabilize: Duration,
    /// Length of Measure.
    pub measure: Duration,
    /// Longest wait in Drain for measured requests to finish.
    pub drain_max: Duration,
}

impl Schedule {
    /// When slot `slot` (0-based) sends its first request: slots are spread evenly over
    /// Fill, slot 0 at once, so no two start together and none starts after Fill ends.
    pub fn slot_start(&self, slot: u32) -> Duration {
        debug_assert!(slot < self.slots.max(1));
        let n = u128::from(self.slots.max(1));
        let nanos = self.fill.as_nanos() * u128::from(slot) / n;
        Duration::from_nanos(u64::try_from(nanos).unwrap_or(u64::MAX))
    }

    /// Start of Measure (`m0`).
    pub fn m0(&self) -> Duration {
        self.fill + self.stabilize
    }

    /// End of Measure (`m1`), start of Drain.
    pub fn m1(&self) -> Duration {
        self.m0() + self.measure
    }

    /// The latest moment Drain may end.
    pub fn drain_deadline(&self) -> Duration {
        self.m1() + self.drain_max
    }

    /// The phase at `elapsed` since the cell's start (Drain from `m1` on).
    pub fn phase_at(&self, elapsed: Duration) -> Phase {
        if elapsed < self.fill {
            Phase::Fill
        } else if elapsed < self.m0() {
            Phase::Stabilize
        } else if elapsed < self.m1() {
            Phase::Measure
        } else {
            Phase::Drain
        }
    }

    /// The longest a cell can run: Fill + Stabilize + Measure + the Drain limit.
    pub fn max_duration(&self) -> Duration {
        self.drain_deadline()
    }
}

#[cfg(test)]
impl Schedule {
    /// `slots` with Fill, Stabilize, Measure and the Drain limit in whole seconds.
    pub(crate) fn secs(slots: u32, [fill, stabilize, measure, drain]: [u64; 4]) -> Schedule {
        Schedule {
            slots,
            fill: Duration::from_secs(fill),
            stabilize: Duration::from_secs(stabilize),
            measure: Duration::from_secs(measure),
            drain_max: Duration::from_secs(drain),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slot_starts_are_evenly_spaced_within_fill() {
        // (slots, fill_s, slot, expected start in ms)
        let rows: &[(u32, u64, u32, u64)] = &[
            (1, 30, 0, 0),
            (2, 30, 0, 0),
            (2, 30, 1, 15_000),
            (4, 2, 3, 1_500),
            (30, 30, 29, 29_000),
            (256, 32, 1, 125),
            (256, 32, 255, 31_875),
            (3, 0, 2, 0),
        ];
        for &(slots, fill, slot, want_ms) in rows {
            let got = Schedule::secs(slots, [fill, 1, 1, 1]).slot_start(slot);
            assert_eq!(
                got,
                Duration::from_millis(want_ms),
                "slots={slots} slot={slot}"
            );
        }
    }

    #[test]
    fn no_more_than_one_start_per_second_when_n_at_most_fill() {
        for n in 1..=30u32 {
            let sched = Schedule::secs(n, [30, 1, 1, 1]);
            for i in 1..n {
                let gap = sched.slot_start(i) - sched.slot_start(i - 1);
                assert!(gap >= Duration::from_secs(1), "n={n} i={i} gap={gap:?}");
            }
        }
    }

    #[test]
    fn phase_at_follows_the_boundaries() {
        let sched = Schedule::secs(8, [30, 60, 120, 30]);
        // (elapsed seconds, expected phase)
        let rows: &[(f64, Phase)] = &[
            (0.0, Phase::Fill),
            (29.999, Phase::Fill),
            (30.0, Phase::Stabilize),
            (89.999, Phase::Stabilize),
            (90.0, Phase::Measure),
            (209.999, Phase::Measure),
            (210.0, Phase::Drain),
            (10_000.0, Phase::Drain),
        ];
        for &(t, want) in rows {
            assert_eq!(sched.phase_at(Duration::from_secs_f64(t)), want, "t={t}");
        }
        assert_eq!(sched.m0(), Duration::from_secs(90));
        assert_eq!(sched.m1(), Duration::from_secs(210));
        assert_eq!(sched.drain_deadline(), Duration::from_secs(240));
    }

    #[test]
    fn zero_length_phases_are_skipped() {
        let sched = Schedule::secs(4, [0, 0, 5, 1]);
        assert_eq!(sched.phase_at(Duration::ZERO), Phase::Measure);
    }
}
