//! Where Measure starts and ends in a running cell: set by the schedule (fixed phases), or
//! decided as the cell runs (adaptive phases). A request's phase is read under the lock a
//! decision is written under, with the clock read inside it, so no request sent after a
//! bound was set is labelled as if before it.

use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use plateau_http::clock::Clock;
use plateau_model::phase::{Phase, Schedule, phase_between};

/// The Measure bounds of a running cell; `None` until decided.
#[derive(Debug)]
pub(super) struct LiveBounds {
    fill: Duration,
    edges: Mutex<(Option<Duration>, Option<Duration>)>,
}

impl LiveBounds {
    /// The schedule's bounds, or none yet for the phases it decides as it runs.
    pub(super) fn new(schedule: &Schedule) -> LiveBounds {
        let edges = match schedule.adaptive {
            None => (Some(schedule.m0()), Some(schedule.m1())),
            Some(a) => {
                let m0 = a.stabilize_min.is_none().then(|| schedule.m0());
                let m1 = m0
                    .filter(|_| a.measure_min.is_none())
                    .map(|_| schedule.m1());
                (m0, m1)
            }
        };
        LiveBounds {
            fill: schedule.fill,
            edges: Mutex::new(edges),
        }
    }

    fn edges(&self) -> std::sync::MutexGuard<'_, (Option<Duration>, Option<Duration>)> {
        self.edges.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The phase at `elapsed` since the cell's start.
    pub(super) fn phase_at(&self, elapsed: Duration) -> Phase {
        let (m0, m1) = *self.edges();
        phase_between(elapsed, self.fill, m0, m1)
    }

    /// The phase now, the clock read under the lock.
    pub(super) fn phase_now(&self, clock: &Clock) -> Phase {
        let edges = self.edges();
        phase_between(clock.elapsed(), self.fill, edges.0, edges.1)
    }

    /// Start of Measure, once decided.
    pub(super) fn m0(&self) -> Option<Duration> {
        self.edges().0
    }

    /// End of Measure, once decided.
    pub(super) fn m1(&self) -> Option<Duration> {
        self.edges().1
    }

    /// Starts Measure now; with `measure` (a Measure of fixed length) its end too.
    pub(super) fn start_measure(&self, clock: &Clock, measure: Option<Duration>) -> Duration {
        let mut edges = self.edges();
        let now = clock.elapsed();
        *edges = (Some(now), measure.map(|m| now + m));
        now
    }

    /// Ends Measure now.
    pub(super) fn end_measure(&self, clock: &Clock) -> Duration {
        let mut edges = self.edges();
        let now = clock.elapsed();
        edges.1 = Some(now);
        now
    }
}
