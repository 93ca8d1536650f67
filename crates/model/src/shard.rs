//! One benchmark split over K runners (`plateau run --shard i/K`): which runner this is,
//! what it splits (the matrix's cells, or every cell's load), each runner's share of a
//! load, and what `run.json` records of it so that `plateau merge` can join the K results
//! directories and refuse ones that do not belong together.

use std::fmt;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use chrono::{DateTime, Utc};

use crate::load::{Load, LoadInfo, Rate};

mod timetable;
pub use timetable::{CellTimetable, DEFAULT_GAP, PhaseOffsets, Timetable};

/// The environment variable an Indexed Kubernetes Job sets to each pod's index.
pub const INDEX_ENV: &str = "JOB_COMPLETION_INDEX";

/// What a sharded run splits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ShardBy {
    /// The matrix's cells are dealt to the K runners: cell j runs on runner j mod K.
    Cells,
    /// Every cell runs on all K runners at once, each holding its share of N (or of the
    /// rate).
    Load,
}

impl fmt::Display for ShardBy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ShardBy::Cells => "cells",
            ShardBy::Load => "load",
        })
    }
}

/// This runner's place among K (`run.json`'s `shard`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Shard {
    /// This runner, 0 to `count - 1`.
    pub index: u32,
    /// How many runners share the benchmark.
    pub count: u32,
    /// What they split.
    pub by: ShardBy,
}

/// A `--shard` value that is not `i/K` or `K` with a usable index.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum ShardError {
    /// Not a number where one was expected.
    #[error("--shard {0:?}: expected i/K (this runner's index i of K runners, 0 <= i < K) or K")]
    Syntax(String),
    /// K = 0, or i out of range.
    #[error("--shard {given:?}: index {index} is not below the {count} runners (0 <= i < K)")]
    Range {
        /// What was given (with the index from the environment when it came from there).
        given: String,
        /// The index.
        index: u32,
        /// K.
        count: u32,
    },
    /// `--shard K` without `JOB_COMPLETION_INDEX`.
    #[error("--shard {0}: no index given and {INDEX_ENV} is not set (give --shard i/K)")]
    NoIndex(String),
}

impl Shard {
    /// Parses `i/K`, or `K` with the index from `index_env` ([`INDEX_ENV`], which an
    /// Indexed Job sets), so that every pod of a Job can run the same command line.
    pub fn parse(given: &str, by: ShardBy, index_env: Option<&str>) -> Result<Shard, ShardError> {
        let number = |s: &str| {
            s.trim()
                .parse::<u32>()
                .map_err(|_| ShardError::Syntax(given.to_owned()))
        };
        let (index, count) = match given.split_once('/') {
            Some((i, k)) => (number(i)?, number(k)?),
            None => {
                let count = number(given)?;
                let index = index_env.ok_or_else(|| ShardError::NoIndex(given.to_owned()))?;
                let index = index
                    .trim()
                    .parse::<u32>()
                    .map_err(|_| ShardError::Syntax(format!("{given} ({INDEX_ENV}={index})")))?;
                (index, count)
            }
        };
        if count == 0 || index >= count {
            return Err(ShardError::Range {
                given: given.to_owned(),
                index,
                count,
            });
        }
        Ok(Shard { index, count, by })
    }

    /// Whether the cell at `position` in the plan's order is this runner's: all are under
    /// load sharding; every K-th from the index under cell sharding.
    pub fn runs(&self, position: usize) -> bool {
        match self.by {
            ShardBy::Load => true,
            ShardBy::Cells => position % self.count as usize == self.index as usize,
        }
    }

    /// This runner's share of `total` split over the K runners as evenly as integers
    /// allow: the first `total mod K` runners hold one more.
    pub fn share(&self, total: u32) -> u32 {
        total / self.count + u32::from(self.index < total % self.count)
    }

    /// This runner's part of `load`: under load sharding, its share of N, or for an open
    /// loop the rate r/K (K Poisson processes of rate r/K superpose into one of rate r)
    /// and its share of any `max_concurrency`; otherwise the load itself.
    pub fn part(&self, load: &Load) -> Load {
        if self.by == ShardBy::Cells {
            return *load;
        }
        match load {
            Load::Concurrency(n) => Load::Concurrency(self.share(*n)),
            Load::Rate(r) => Load::Rate(Rate {
                rps: r.rps / f64::from(self.count),
                arrival: r.arrival,
                max_concurrency: r.max_concurrency.map(|m| self.share(m)),
                unit: r.unit,
            }),
        }
    }
}

/// What `run.json` records of a sharded run: this runner's place and, under load
/// sharding, what it held of each load.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ShardRecord {
    /// This runner's place.
    #[serde(flatten)]
    pub shard: Shard,
    /// Under load sharding, this runner's share of each load of the matrix.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub shares: Vec<Share>,
    /// This runner's clock as it started: the kernel's sync state and, with `--start-at`,
    /// how late it began.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock: Option<ShardClock>,
    /// Under load sharding with `--start-at`: when each cell begins on every runner.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timetable: Option<Timetable>,
}

/// A runner's clock as its run began (`run.json`'s `shard.clock`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ShardClock {
    /// The kernel's clock discipline (`adjtimex`), read as the run began.
    pub sync: ClockSync,
    /// The common start instant every runner waited for (`--start-at`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_at: Option<DateTime<Utc>>,
    /// How long after `start_at` this runner's first cell began by its wall clock, us
    /// (large when it was started after the instant had passed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_offset_us: Option<u64>,
}

/// The kernel's view of how well the wall clock is synchronized (`adjtimex(2)`, read
/// only). Absent numbers carry `reason`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ClockSync {
    /// The clock is disciplined by NTP/PTP (`adjtimex` did not return `TIME_ERROR`).
    pub synchronized: bool,
    /// The kernel's estimated error, us.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub estimated_error_us: Option<i64>,
    /// The kernel's maximum error, us.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_error_us: Option<i64>,
    /// Why the numbers are absent (not Linux, or the call failed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// One runner's share of one load.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Share {
    /// The whole load, as its cell directory names it (`c64`, `r20`).
    pub load: String,
    /// What this runner held of it.
    pub held: LoadInfo,
}

impl ShardRecord {
    /// The record of `shard` over a matrix with these loads, its clock and timetable.
    pub fn new(
        shard: Shard,
        loads: &[Load],
        clock: Option<ShardClock>,
        timetable: Option<Timetable>,
    ) -> ShardRecord {
        let shares = match shard.by {
            ShardBy::Cells => Vec::new(),
            ShardBy::Load => loads
                .iter()
                .map(|l| Share {
                    load: l.dir_name(),
                    held: LoadInfo::from(&shard.part(l)),
                })
                .collect(),
        };
        ShardRecord {
            shard,
            shares,
            clock,
            timetable,
        }
    }
}

impl fmt::Display for Shard {
    /// `1/4 by load`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{} by {}", self.index, self.count, self.by)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Arrival;

    #[test]
    fn parses_index_and_count_or_takes_the_index_from_the_job() {
        let s = Shard::parse("1/4", ShardBy::Load, None).unwrap();
        assert_eq!((s.index, s.count), (1, 4));
        let s = Shard::parse("4", ShardBy::Cells, Some("3")).unwrap();
        assert_eq!((s.index, s.count), (3, 4));
        assert_eq!(
            Shard::parse("4", ShardBy::Cells, None),
            Err(ShardError::NoIndex("4".into()))
        );
        assert!(matches!(
            Shard::parse("4/4", ShardBy::Cells, None),
            Err(ShardError::Range {
                index: 4,
                count: 4,
                ..
            })
        ));
        assert!(matches!(
            Shard::parse("0/0", ShardBy::Cells, None),
            Err(ShardError::Range { .. })
        ));
        assert!(matches!(
            Shard::parse("a/4", ShardBy::Cells, None),
            Err(ShardError::Syntax(_))
        ));
        let e = Shard::parse("4", ShardBy::Cells, Some("x")).unwrap_err();
        assert!(e.to_string().contains("JOB_COMPLETION_INDEX=x"), "{e}");
    }

    #[test]
    fn shares_add_up_to_the_total_and_differ_by_at_most_one() {
        for count in 1..=7u32 {
            for total in [0u32, 1, 5, 10, 64, 1001] {
                let shares: Vec<u32> = (0..count)
                    .map(|index| {
                        Shard {
                            index,
                            count,
                            by: ShardBy::Load,
                        }
                        .share(total)
                    })
                    .collect();
                assert_eq!(shares.iter().sum::<u32>(), total, "{total} over {count}");
                let (lo, hi) = (shares.iter().min().unwrap(), shares.iter().max().unwrap());
                assert!(hi - lo <= 1, "{shares:?}");
            }
        }
        let s = |index| Shard {
            index,
            count: 4,
            by: ShardBy::Load,
        };
        assert_eq!(
            (0..4).map(|i| s(i).share(10)).collect::<Vec<_>>(),
            [3, 3, 2, 2]
        );
    }

    #[test]
    fn cells_are_dealt_once_each_and_loads_split() {
        let dealt: Vec<Vec<usize>> = (0..3)
            .map(|index| {
                let s = Shard {
                    index,
                    count: 3,
                    by: ShardBy::Cells,
                };
                (0..8).filter(|&p| s.runs(p)).collect()
            })
            .collect();
        assert_eq!(dealt, [vec![0, 3, 6], vec![1, 4, 7], vec![2, 5]]);
        let load = Shard {
            index: 3,
            count: 4,
            by: ShardBy::Load,
        };
        assert!((0..8).all(|p| load.runs(p)));
        assert_eq!(load.part(&Load::Concurrency(10)), Load::Concurrency(2));
        let rate = Load::Rate(Rate {
            rps: 10.0,
            arrival: Arrival::Poisson,
            max_concurrency: Some(10),
            unit: Default::default(),
        });
        let Load::Rate(part) = load.part(&rate) else {
            panic!("a rate stays a rate")
        };
        assert_eq!((part.rps, part.max_concurrency), (2.5, Some(2)));
        let cells = Shard {
            by: ShardBy::Cells,
            ..load
        };
        assert_eq!(cells.part(&Load::Concurrency(10)), Load::Concurrency(10));
    }
}
