//! Achieved concurrency, exact from request intervals: the in-flight step function
//! ([`InFlight`], an event sweep over sorted sends and ends) and its [`Concurrency`]
//! summary over the measure window.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::Window;
use crate::sample::Sample;

/// Achieved concurrency over the measure window `[m0, m1]`, from the intervals
/// `[t_sent_us, t_end_us]` of the requests the server took up (any phase and outcome, but
/// not those it turned away with 429/503 or that found no connection: a slot waiting to
/// retry is not in flight).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Concurrency {
    /// Target concurrency N; absent for an open loop (which has a rate instead).
    pub target: Option<u32>,
    /// Time-weighted mean of requests in flight.
    pub mean: f64,
    /// Fewest requests in flight for any positive length of time.
    pub min: u32,
    /// Most requests in flight for any positive length of time.
    pub max: u32,
    /// Fraction of the window's time with at least N requests in flight; absent for an
    /// open loop.
    pub at_target_fraction: Option<f64>,
}

/// Requests in flight over time: a step function built once from all samples.
///
/// A request is in flight on `[t_sent_us, t_end_us)`; the end is open so a slot that
/// sends again in the microsecond its previous request ended never counts twice.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InFlight {
    /// `(t_us, level)`: from `t_us` on (until the next step), `level` requests are in
    /// flight. Times strictly increase; before the first step nothing is in flight.
    steps: Vec<(u64, u32)>,
}

/// A piece of an [`InFlight`] span where the level is constant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Segment {
    /// Length, us (always > 0).
    pub us: u64,
    /// Requests in flight throughout.
    pub level: u32,
}

impl InFlight {
    /// The step function of `samples` (O(n log n)). Requests with `t_end_us <= t_sent_us`
    /// are never in flight.
    pub fn from_samples<'a>(samples: impl IntoIterator<Item = &'a Sample>) -> InFlight {
        InFlight::from_spans(samples.into_iter().map(|s| (s.t_sent_us, s.t_end_us)))
    }

    /// The step function of half-open spans `[from_us, to_us)`; empty spans never count.
    pub fn from_spans(spans: impl IntoIterator<Item = (u64, u64)>) -> InFlight {
        let mut events: Vec<(u64, i64)> = spans
            .into_iter()
            .filter(|&(from, to)| to > from)
            .flat_map(|(from, to)| [(from, 1), (to, -1)])
            .collect();
        events.sort_unstable();
        let mut steps: Vec<(u64, u32)> = Vec::new();
        let mut level: i64 = 0;
        for group in events.chunk_by(|a, b| a.0 == b.0) {
            level += group.iter().map(|e| e.1).sum::<i64>();
            // Every end follows its own send, so the level never drops below 0.
            let level = u32::try_from(level.max(0)).unwrap_or(u32::MAX);
            if steps.last().is_none_or(|&(_, last)| last != level) {
                steps.push((group[0].0, level));
            }
        }
        InFlight { steps }
    }

    /// The constant-level pieces covering `[from_us, to_us)`, in order; empty when
    /// `to_us <= from_us`.
    pub fn segments(&self, from_us: u64, to_us: u64) -> impl Iterator<Item = Segment> + '_ {
        // Index of the first step after `from_us`; the step before it holds at `from_us`.
        let next = self.steps.partition_point(|&(t, _)| t <= from_us);
        let level_at_from = next.checked_sub(1).map_or(0, |i| self.steps[i].1);
        let starts = std::iter::once((from_us, level_at_from)).chain(
            self.steps[next..]
                .iter()
                .copied()
                .take_while(move |&(t, _)| t < to_us),
        );
        let ends = self.steps[next..]
            .iter()
            .map(|&(t, _)| t)
            .take_while(move |&t| t < to_us)
            .chain(std::iter::once(to_us));
        starts
            .zip(ends)
            .filter(|&((t, _), end)| end > t)
            .map(|((t, level), end)| Segment { us: end - t, level })
    }

    /// The highest level ever reached (0 when nothing was in flight).
    pub fn peak(&self) -> u32 {
        self.steps
            .iter()
            .map(|&(_, level)| level)
            .max()
            .unwrap_or(0)
    }

    /// Time-weighted mean level over `[from_us, to_us)`; `None` when the span is empty.
    pub fn mean(&self, from_us: u64, to_us: u64) -> Option<f64> {
        let (area, len) = self
            .segments(from_us, to_us)
            .fold((0u128, 0u64), |(area, len), s| {
                (area + u128::from(s.us) * u128::from(s.level), len + s.us)
            });
        (len > 0).then(|| area as f64 / len as f64)
    }
}

impl Concurrency {
    /// Concurrency over the measure window. A window of zero length reports nothing in
    /// flight.
    pub(crate) fn over(in_flight: &InFlight, window: &Window) -> Concurrency {
        let (m0, m1) = (window.m0_us, window.m1_us);
        let (mut min, mut max, mut at_target_us, mut len) = (u32::MAX, 0, 0, 0);
        for s in in_flight.segments(m0, m1) {
            min = min.min(s.level);
            max = max.max(s.level);
            len += s.us;
            if window.concurrency.is_some_and(|n| s.level >= n) {
                at_target_us += s.us;
            }
        }
        Concurrency {
            target: window.concurrency,
            mean: in_flight.mean(m0, m1).unwrap_or(0.0),
            min: if len > 0 { min } else { 0 },
            max,
            at_target_fraction: window.concurrency.map(|_| {
                if len > 0 {
                    at_target_us as f64 / len as f64
                } else {
                    0.0
                }
            }),
        }
    }
}

#[cfg(test)]
mod tests;
