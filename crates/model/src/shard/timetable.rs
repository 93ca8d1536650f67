//! The common timetable of load-sharded runners (`--shard-by load --start-at`): cell `k`
//! of the matrix begins at `start_at + gap + k x period` on every runner, where the period
//! is the cell's Fill, Stabilize, Measure and Drain limit plus the gap, so no runner waits
//! on another over the network; each runner records, per cell, how far from the timetable
//! it began each phase by its wall clock.

use std::time::Duration;

use chrono::{DateTime, Utc};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The pause after a cell's Drain limit before the next cell's start, by default: time
/// for a runner to write the cell's results and ask the next scenario's token check.
pub const DEFAULT_GAP: Duration = Duration::from_secs(5);

/// When each cell begins on every runner (`run.json`'s `shard.timetable`).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Timetable {
    /// The common start instant (`--start-at`).
    pub start_at: DateTime<Utc>,
    /// The pause before the first cell and after each cell's Drain limit, us.
    pub gap_us: u64,
    /// Fill + Stabilize + Measure + the Drain limit, us.
    pub cell_us: u64,
}

impl Timetable {
    /// The timetable from `start_at` for cells of `cell` (Fill to the Drain limit) apart
    /// by `gap`.
    pub fn new(start_at: DateTime<Utc>, cell: Duration, gap: Duration) -> Timetable {
        Timetable {
            start_at,
            gap_us: micros(gap),
            cell_us: micros(cell),
        }
    }

    /// When the cell at `position` in the matrix's order begins.
    pub fn cell_start(&self, position: usize) -> DateTime<Utc> {
        let us = self.gap_us + (self.gap_us + self.cell_us) * position as u64;
        self.start_at + chrono::Duration::microseconds(i64::try_from(us).unwrap_or(i64::MAX))
    }
}

/// How far from the timetable a runner began one cell's phases, by its wall clock
/// (`summary.json`'s `timetable`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CellTimetable {
    /// When the cell was to begin.
    pub scheduled_start: DateTime<Utc>,
    /// Each phase's actual start minus its scheduled start, us (positive: late).
    pub offsets_us: PhaseOffsets,
}

/// A signed offset per phase start, us; a phase the cell never reached (it was stopped)
/// is absent.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct PhaseOffsets {
    /// Fill (the cell's start).
    pub fill: i64,
    /// Stabilize.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stabilize: Option<i64>,
    /// Measure.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub measure: Option<i64>,
    /// Drain.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub drain: Option<i64>,
}

impl PhaseOffsets {
    /// The phase furthest from the timetable and its offset.
    pub fn worst(&self) -> (&'static str, i64) {
        [
            ("stabilize", self.stabilize),
            ("measure", self.measure),
            ("drain", self.drain),
        ]
        .into_iter()
        .filter_map(|(name, v)| v.map(|v| (name, v)))
        .fold(("fill", self.fill), |worst, next| {
            if next.1.unsigned_abs() > worst.1.unsigned_abs() {
                next
            } else {
                worst
            }
        })
    }
}

fn micros(d: Duration) -> u64 {
    u64::try_from(d.as_micros()).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_begin_a_gap_after_the_previous_drain_limit() {
        let start: DateTime<Utc> = "2026-11-27T10:00:00Z".parse().unwrap();
        let t = Timetable::new(start, Duration::from_millis(12_500), DEFAULT_GAP);
        assert_eq!(t.cell_start(0).to_rfc3339(), "2026-11-27T10:00:05+00:00");
        assert_eq!(t.cell_start(2).to_rfc3339(), "2026-11-27T10:00:40+00:00");
        let o = PhaseOffsets {
            fill: 120,
            stabilize: Some(-900),
            measure: Some(400),
            drain: None,
        };
        assert_eq!(o.worst(), ("stabilize", -900));
        let only_fill = PhaseOffsets {
            fill: -3,
            ..PhaseOffsets::default()
        };
        assert_eq!(only_fill.worst(), ("fill", -3));
    }
}
