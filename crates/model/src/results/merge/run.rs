//! The merged directory's `run.json` (shard 0's, with every cell, every invocation, the
//! span of all runners, the worst status, and the shards it was joined from) and its
//! `summary.csv`.

use std::path::Path;

use super::cells::Joined;
use super::{MergeError, Merged, ShardDir};
use crate::results::run_info::{CellState, MergedFrom, RunInfo, RunStatus};
use crate::results::{self, CSV_FILE, RUN_FILE};

/// Writes `run.json` and `summary.csv` of the merged cells into `out`.
pub fn write(shards: &[ShardDir], out: &Path, joined: &[Joined]) -> Result<Merged, MergeError> {
    let mut info: RunInfo = shards[0].info.clone();
    info.config.output_dir = out.to_owned();
    info.status = worst(shards.iter().map(|s| s.info.status));
    info.reason = shards
        .iter()
        .filter_map(|s| {
            s.info
                .reason
                .as_ref()
                .map(|r| format!("shard {}: {r}", s.record.shard.index))
        })
        .reduce(|a, b| format!("{a}; {b}"));
    info.started_at = shards
        .iter()
        .map(|s| s.info.started_at)
        .min()
        .unwrap_or(info.started_at);
    info.ended_at = shards.iter().map(|s| s.info.ended_at).max().flatten();
    info.wall_duration_s = info
        .ended_at
        .map(|e| (e - info.started_at).num_milliseconds() as f64 / 1000.0);
    info.invocations = shards
        .iter()
        .flat_map(|s| s.info.invocations.clone())
        .collect();
    for s in &shards[1..] {
        for e in &s.info.endpoints {
            if info.endpoints.iter().all(|mine| mine.name != e.name) {
                info.endpoints.push(e.clone());
            }
        }
    }
    info.cells = joined.iter().map(|j| j.entry.clone()).collect();
    info.shard = None;
    info.merged_from = shards
        .iter()
        .map(|s| MergedFrom {
            shard: s.record.clone(),
            dir: s.dir.display().to_string(),
            host: s.info.host.hostname.clone(),
            status: s.info.status,
        })
        .collect();
    let summaries: Vec<_> = joined.iter().filter_map(|j| j.summary.as_ref()).collect();
    results::csv::write(&out.join(CSV_FILE), summaries.iter().copied())?;
    results::write_json(&out.join(RUN_FILE), &info)?;
    Ok(Merged {
        by: shards[0].record.shard.by,
        shards: shards.len(),
        cells: joined.iter().map(|j| j.entry.path.clone()).collect(),
        incomplete: joined
            .iter()
            .filter(|j| !matches!(j.entry.state, CellState::Complete | CellState::Resumed))
            .map(|j| {
                let why = j
                    .entry
                    .reason
                    .clone()
                    .unwrap_or_else(|| format!("{:?}", j.entry.state).to_lowercase());
                (j.entry.path.clone(), why)
            })
            .collect(),
    })
}

/// The worst of the runners' statuses: failed, then interrupted, then running (a runner
/// that never closed its run.json), else complete.
fn worst(statuses: impl Iterator<Item = RunStatus>) -> RunStatus {
    let rank = |s: &RunStatus| match s {
        RunStatus::Complete => 0,
        RunStatus::Running => 1,
        RunStatus::Interrupted => 2,
        RunStatus::Failed => 3,
    };
    statuses.max_by_key(rank).unwrap_or(RunStatus::Complete)
}
