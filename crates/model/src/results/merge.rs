//! `plateau merge`: K results directories of one sharded benchmark (`run --shard i/K`)
//! joined into one that every reader takes like any other. Before anything is written,
//! the shards must belong together: each one's `run.json` names its place, every index
//! 0..K is there once, and their configs (output directory aside), seeds and plateau
//! versions are the same; the first difference is refused naming the shard and the field.
//! Cell shards are joined by copying (`cells`); load shards by concatenating every
//! cell's records and computing its summary again from them (`load`); `run` writes
//! the merged `run.json` and `summary.csv`.

mod cells;
mod load;
mod run;

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::results::run_info::RunInfo;
use crate::results::{self, RUN_FILE, ResultsError};
use crate::shard::{ShardBy, ShardRecord};

/// Why shards were not merged.
#[derive(Debug, thiserror::Error)]
pub enum MergeError {
    /// A result file could not be read or written.
    #[error(transparent)]
    Results(#[from] ResultsError),
    /// A directory's `run.json` records no shard.
    #[error("{dir}: not a shard: its run.json has no `shard` (run it with --shard i/K)")]
    NotShard {
        /// The directory.
        dir: PathBuf,
    },
    /// A shard differs from shard 0 in a field that must be the same.
    #[error("{dir}: shard {index} differs from shard 0 in `{field}`: {got} against {expected}")]
    Differs {
        /// The shard's directory.
        dir: PathBuf,
        /// Its index.
        index: u32,
        /// The field (`config.seed`, `plateau_version`, `shard.count` ...).
        field: String,
        /// Shard 0's value.
        expected: String,
        /// This shard's.
        got: String,
    },
    /// An index of 0..K has no directory.
    #[error("shard {index} of {count} is missing (give all {count} shard directories)")]
    Missing {
        /// The index.
        index: u32,
        /// K.
        count: u32,
    },
    /// Two directories claim one index.
    #[error("{second}: shard {index} twice (also {first})")]
    Duplicate {
        /// The index.
        index: u32,
        /// The first directory.
        first: PathBuf,
        /// The second.
        second: PathBuf,
    },
    /// A load shard's clock was off by more than the bound.
    #[error(
        "{dir}: shard {index}'s {what} is {value_ms:.3} ms, over the bound of {bound_ms:.3} ms (`{field}` in its run.json)"
    )]
    Clock {
        /// The shard's directory.
        dir: PathBuf,
        /// Its index.
        index: u32,
        /// What was off (its clock's maximum error, its start after --start-at).
        what: &'static str,
        /// The field in `run.json`.
        field: &'static str,
        /// The value, ms.
        value_ms: f64,
        /// The bound, ms.
        bound_ms: f64,
    },
    /// A load shard began a cell's phase too far from the common timetable.
    #[error(
        "{dir}: shard {index} began {phase} of {cell} {offset_ms:+.3} ms off the common timetable, over the bound of {bound_ms:.3} ms (`timetable.offsets_us` in its summary.json)"
    )]
    OffSchedule {
        /// The shard's directory.
        dir: PathBuf,
        /// Its index.
        index: u32,
        /// The cell's path.
        cell: String,
        /// The phase.
        phase: &'static str,
        /// Its offset, ms (positive: late).
        offset_ms: f64,
        /// The bound, ms.
        bound_ms: f64,
    },
    /// The output directory holds files already.
    #[error("{0}: not empty; merge into a new directory")]
    OutNotEmpty(PathBuf),
}

impl MergeError {
    /// Whether this is the input's fault (exit 2), not a failed read or write.
    pub fn is_bad_input(&self) -> bool {
        !matches!(self, MergeError::Results(ResultsError::Io { .. }))
    }
}

/// One shard directory and its `run.json`.
#[derive(Debug)]
pub struct ShardDir {
    /// The directory, as given.
    pub dir: PathBuf,
    /// Its `run.json`.
    pub info: RunInfo,
    /// Its place, from `run.json`.
    pub record: ShardRecord,
}

/// What a merge wrote.
#[derive(Debug)]
pub struct Merged {
    /// What the shards split.
    pub by: ShardBy,
    /// The shards, by index.
    pub shards: usize,
    /// The merged cells (their paths under the output directory).
    pub cells: Vec<String>,
    /// Cells that are not complete, each with why.
    pub incomplete: Vec<(String, String)>,
}

/// The default bound on a load shard's clock error and start lateness, us.
pub const MAX_CLOCK_ERROR_US: u64 = 5_000;

/// Merges the shard directories `dirs` into the new directory `out`; load shards whose
/// clock's maximum error, whose start after `--start-at`, or whose start of any cell's phase
/// off the common timetable exceeds `max_clock_error_us`
/// are refused.
pub fn merge(dirs: &[PathBuf], out: &Path, max_clock_error_us: u64) -> Result<Merged, MergeError> {
    let shards = read(dirs)?;
    check(&shards)?;
    if shards[0].record.shard.by == ShardBy::Load {
        shards
            .iter()
            .try_for_each(|s| clock(s, max_clock_error_us))?;
    }
    if out.exists()
        && std::fs::read_dir(out)
            .map_err(|e| ResultsError::io(out, e))?
            .next()
            .is_some()
    {
        return Err(MergeError::OutNotEmpty(out.to_owned()));
    }
    std::fs::create_dir_all(out).map_err(|e| ResultsError::io(out, e))?;
    let by = shards[0].record.shard.by;
    let summaries = match by {
        ShardBy::Cells => cells::join(&shards, out)?,
        ShardBy::Load => load::join(&shards, out, max_clock_error_us)?,
    };
    run::write(&shards, out, &summaries)
}

/// Every directory's `run.json`, sorted by shard index.
fn read(dirs: &[PathBuf]) -> Result<Vec<ShardDir>, MergeError> {
    let mut shards = Vec::with_capacity(dirs.len());
    for dir in dirs {
        let info: RunInfo = results::read_json(&dir.join(RUN_FILE))?;
        let record = info
            .shard
            .clone()
            .ok_or_else(|| MergeError::NotShard { dir: dir.clone() })?;
        shards.push(ShardDir {
            dir: dir.clone(),
            info,
            record,
        });
    }
    shards.sort_by_key(|s| s.record.shard.index);
    Ok(shards)
}

/// Refuses shards that do not make one benchmark: a duplicate or missing index, or any
/// difference from shard 0 in K, what is split, the plateau version or the config.
fn check(shards: &[ShardDir]) -> Result<(), MergeError> {
    let Some(first) = shards.first() else {
        return Err(MergeError::Missing { index: 0, count: 1 });
    };
    let count = first.record.shard.count;
    for pair in shards.windows(2) {
        if pair[0].record.shard.index == pair[1].record.shard.index {
            return Err(MergeError::Duplicate {
                index: pair[0].record.shard.index,
                first: pair[0].dir.clone(),
                second: pair[1].dir.clone(),
            });
        }
    }
    for s in shards {
        let differs = |field: &str, expected: String, got: String| MergeError::Differs {
            dir: s.dir.clone(),
            index: s.record.shard.index,
            field: field.into(),
            expected,
            got,
        };
        let (a, b) = (&first.record.shard, &s.record.shard);
        if a.count != b.count {
            return Err(differs(
                "shard.count",
                a.count.to_string(),
                b.count.to_string(),
            ));
        }
        if a.by != b.by {
            return Err(differs("shard.by", a.by.to_string(), b.by.to_string()));
        }
        if first.info.plateau_version != s.info.plateau_version {
            return Err(differs(
                "plateau_version",
                first.info.plateau_version.clone(),
                s.info.plateau_version.clone(),
            ));
        }
        if let Some((field, expected, got)) = config_difference(&first.info, &s.info) {
            return Err(differs(&field, expected, got));
        }
    }
    if let Some(index) = (0..count).find(|&i| shards.iter().all(|s| s.record.shard.index != i)) {
        return Err(MergeError::Missing { index, count });
    }
    Ok(())
}

/// The first top-level config key (`output_dir` aside: each runner writes its own) whose
/// values differ, as `config.<key>` with both values.
fn config_difference(a: &RunInfo, b: &RunInfo) -> Option<(String, String, String)> {
    let object = |info: &RunInfo| match serde_json::to_value(&info.config) {
        Ok(Value::Object(map)) => map,
        _ => serde_json::Map::new(),
    };
    let (a, b) = (object(a), object(b));
    let mut keys: Vec<&String> = a.keys().chain(b.keys()).collect();
    keys.sort();
    keys.dedup();
    keys.into_iter()
        .filter(|k| k.as_str() != "output_dir")
        .find(|k| a.get(*k) != b.get(*k))
        .map(|k| {
            let show = |v: Option<&Value>| v.map_or_else(|| "absent".into(), Value::to_string);
            (format!("config.{k}"), show(a.get(k)), show(b.get(k)))
        })
}

/// Refuses a load shard whose clock's maximum error, or whose start after `--start-at`,
/// is over `bound_us`.
fn clock(s: &ShardDir, bound_us: u64) -> Result<(), MergeError> {
    let Some(clock) = &s.record.clock else {
        return Ok(());
    };
    let over = |what, field, value_us: u64| MergeError::Clock {
        dir: s.dir.clone(),
        index: s.record.shard.index,
        what,
        field,
        value_ms: value_us as f64 / 1000.0,
        bound_ms: bound_us as f64 / 1000.0,
    };
    if let Some(late) = clock.start_offset_us.filter(|&l| l > bound_us) {
        return Err(over(
            "start after --start-at",
            "shard.clock.start_offset_us",
            late,
        ));
    }
    match clock.sync.max_error_us.map(|e| e.max(0) as u64) {
        Some(e) if clock.sync.synchronized && e > bound_us => Err(over(
            "clock's maximum error",
            "shard.clock.sync.max_error_us",
            e,
        )),
        _ => Ok(()),
    }
}
