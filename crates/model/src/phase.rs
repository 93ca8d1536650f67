//! The four phases of a cell (Fill, Stabilize, Measure, Drain), the pure schedule that
//! places slots and phase boundaries in time, and the Drain limit ([`DrainLimit`]): set by
//! the user, or derived at `m1` from how long the cell's requests have been taking; with
//! adaptive phases ([`Adaptive`]) `m0` and `m1` are decided as the cell runs, and
//! [`PhaseEnds`] records why.

use std::fmt;
use std::time::Duration;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

mod ends;

pub use ends::{EndRule, PhaseEnd, PhaseEnds, Precision, TtftInterval};

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
/// schedule: it comes when the last measured request ends, or when the Drain limit
/// ([`DrainLimit::decide`], decided at `m1`) passes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Schedule {
    /// Number of slots (the target concurrency N).
    pub slots: u32,
    /// Length of Fill.
    pub fill: Duration,
    /// Length of Stabilize.
    pub stabilize: Duration,
    /// Length of Measure.
    pub measure: Duration,
    /// Longest wait in Drain for measured requests to finish, or how to derive it.
    pub drain: DrainLimit,
    /// Adaptive phases: `stabilize` and `measure` are then the longest each may last.
    pub adaptive: Option<Adaptive>,
}

/// Adaptive phase ends of a [`Schedule`] (`"phases": "adaptive"`): a phase with a minimum
/// ends at the first check past it where the data says so, at its schedule length at the
/// latest. Where `m0` and `m1` fall is known only as the cell runs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Adaptive {
    /// Shortest Stabilize; `None`: Stabilize has its fixed length.
    pub stabilize_min: Option<Duration>,
    /// Shortest Measure; `None`: Measure has its fixed length (a capacity probe, whose
    /// window is derived from its rate).
    pub measure_min: Option<Duration>,
    /// Largest relative half-width of the 95% intervals that ends Measure.
    pub precision: f64,
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

    /// The phase at `elapsed` since the cell's start (Drain from `m1` on).
    pub fn phase_at(&self, elapsed: Duration) -> Phase {
        phase_between(elapsed, self.fill, Some(self.m0()), Some(self.m1()))
    }

    /// The longest a cell can run: Fill + Stabilize + Measure + the longest Drain limit.
    pub fn max_duration(&self) -> Duration {
        self.m1() + self.drain.max()
    }
}

/// The phase at `elapsed` with Fill ending at `fill` and Measure at `[m0, m1)`; a bound
/// not decided yet (adaptive phases) lies in the future.
pub fn phase_between(
    elapsed: Duration,
    fill: Duration,
    m0: Option<Duration>,
    m1: Option<Duration>,
) -> Phase {
    let before = |bound: Option<Duration>| bound.is_none_or(|b| elapsed < b);
    if elapsed < fill {
        Phase::Fill
    } else if before(m0) {
        Phase::Stabilize
    } else if before(m1) {
        Phase::Measure
    } else {
        Phase::Drain
    }
}

/// Shortest derived Drain limit: the old fixed default, ample for replies of a few seconds.
pub const DRAIN_FLOOR: Duration = Duration::from_secs(30);

/// A derived Drain limit allows this many times the longest request seen at full load.
///
/// A request sent just before `m1` needs about one lifetime after it. The longest of those
/// seen before `m1` is a sample maximum, not the tail, and queues may still be growing;
/// twice it covers a lifetime that stretches by up to 100% before the cell is cut, while a
/// cell whose requests double in length is already unsteady.
pub const DRAIN_FACTOR: u32 = 2;

/// How long Drain may wait for measured requests to finish.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DrainLimit {
    /// `drain_seconds`, as the user set it.
    Configured(Duration),
    /// Derived at `m1`: `max(30 s, 2 x the longest request that succeeded and ended at
    /// full load before m1)`, at most `ceiling` (the request timeout, past which no request
    /// runs); `ceiling` itself when no request has ended yet.
    Derived {
        /// The request timeout.
        ceiling: Duration,
    },
}

impl DrainLimit {
    /// The limit for a cell whose longest request (send to end) among those that succeeded
    /// and ended at full load before `m1` took `longest`.
    pub fn decide(self, longest: Option<Duration>) -> Duration {
        match (self, longest) {
            (DrainLimit::Configured(limit), _) => limit,
            (DrainLimit::Derived { ceiling }, None) => ceiling,
            (DrainLimit::Derived { ceiling }, Some(longest)) => {
                (longest * DRAIN_FACTOR).max(DRAIN_FLOOR).min(ceiling)
            }
        }
    }

    /// The longest the limit can be.
    pub fn max(self) -> Duration {
        match self {
            DrainLimit::Configured(limit) | DrainLimit::Derived { ceiling: limit } => limit,
        }
    }

    /// A typical limit, for wall-time estimates: the configured one, or the derived floor
    /// (what a cell whose requests take up to 15 s gets).
    pub fn typical(self) -> Duration {
        match self {
            DrainLimit::Configured(limit) => limit,
            DrainLimit::Derived { ceiling } => DRAIN_FLOOR.min(ceiling),
        }
    }
}

impl fmt::Display for DrainLimit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DrainLimit::Configured(limit) => write!(f, "{limit:?}"),
            DrainLimit::Derived { ceiling } => write!(
                f,
                "max({} s, {DRAIN_FACTOR} x longest request before m1), at most {} s",
                DRAIN_FLOOR.as_secs(),
                ceiling.as_secs_f64()
            ),
        }
    }
}

/// Where a cell's Drain limit came from, as written in `summary.json`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "source", rename_all = "snake_case")]
pub enum DrainSource {
    /// `drain_seconds` from the configuration.
    #[default]
    Configured,
    /// No `drain_seconds`: `max(30 s, 2 x longest_request_ms)`, at most
    /// `request_timeout_seconds` (all of it when no request had ended).
    Derived {
        /// The longest request, send to end, among those that succeeded and ended after
        /// Fill and before `m1` (all N slots busy), ms; absent when none had.
        longest_request_ms: Option<f64>,
        /// How many requests that maximum was taken over.
        requests: u64,
    },
}

impl Schedule {
    /// `slots` with Fill, Stabilize, Measure and the Drain limit in whole seconds (for
    /// tests and examples).
    pub fn secs(slots: u32, [fill, stabilize, measure, drain]: [u64; 4]) -> Schedule {
        Schedule {
            slots,
            fill: Duration::from_secs(fill),
            stabilize: Duration::from_secs(stabilize),
            measure: Duration::from_secs(measure),
            drain: DrainLimit::Configured(Duration::from_secs(drain)),
            adaptive: None,
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
        assert_eq!(sched.max_duration(), Duration::from_secs(240));
    }

    #[test]
    fn the_drain_limit_fits_the_requests() {
        let s = Duration::from_secs_f64;
        let derived = DrainLimit::Derived { ceiling: s(600.0) };
        // (limit, longest request before m1 in s, expected limit in s)
        let rows: &[(DrainLimit, Option<f64>, f64)] = &[
            // Configured: whatever the requests did.
            (DrainLimit::Configured(s(30.0)), Some(41.0), 30.0),
            (DrainLimit::Configured(s(5.0)), None, 5.0),
            // Short requests: the 30 s floor.
            (derived, Some(0.4), 30.0),
            (derived, Some(15.0), 30.0),
            // The cell: N = 256, 512 tokens at 80 ms TPOT is a ~41 s E2E.
            (derived, Some(41.0), 82.0),
            // Bounded by the request timeout, past which no request runs.
            (derived, Some(400.0), 600.0),
            (DrainLimit::Derived { ceiling: s(10.0) }, Some(0.4), 10.0),
            // Nothing ended before m1: wait as long as a request may run.
            (derived, None, 600.0),
        ];
        for &(limit, longest, want) in rows {
            assert_eq!(
                limit.decide(longest.map(s)),
                s(want),
                "{limit:?} {longest:?}"
            );
        }
        assert_eq!((derived.max(), derived.typical()), (s(600.0), s(30.0)));
        assert_eq!(
            derived.to_string(),
            "max(30 s, 2 x longest request before m1), at most 600 s"
        );
        assert_eq!(DrainLimit::Configured(s(30.0)).to_string(), "30s");
    }

    #[test]
    fn zero_length_phases_are_skipped() {
        let sched = Schedule::secs(4, [0, 0, 5, 1]);
        assert_eq!(sched.phase_at(Duration::ZERO), Phase::Measure);
    }
}
