//! Cell shards joined: each runner ran every K-th cell of the matrix into a complete
//! results directory, so the merged directory is the union of their cell directories,
//! copied file by file, with the cells listed back in the matrix's order.

use std::path::Path;

use super::{MergeError, ShardDir};
use crate::results::run_info::CellEntry;
use crate::results::summary::CellSummary;
use crate::results::{self, ResultsError, SUMMARY_FILE};

/// One cell of the merged directory: its `run.json` entry and its summary, when it ran.
#[derive(Debug)]
pub struct Joined {
    /// Its entry in the merged `run.json`.
    pub entry: CellEntry,
    /// Its summary.
    pub summary: Option<CellSummary>,
}

/// Copies every shard's cells into `out`, in the matrix's order: position p is shard
/// p mod K's (p div K)-th cell.
pub fn join(shards: &[ShardDir], out: &Path) -> Result<Vec<Joined>, MergeError> {
    let count = shards.len();
    let total: usize = shards.iter().map(|s| s.info.cells.len()).sum();
    let mut joined = Vec::with_capacity(total);
    for position in 0..total {
        let shard = &shards[position % count];
        let Some(entry) = shard.info.cells.get(position / count) else {
            continue;
        };
        let from = shard.dir.join(&entry.path);
        let summary = if from.join(SUMMARY_FILE).is_file() {
            copy_dir(&from, &out.join(&entry.path))?;
            Some(results::read_json(&from.join(SUMMARY_FILE))?)
        } else {
            None
        };
        joined.push(Joined {
            entry: entry.clone(),
            summary,
        });
    }
    Ok(joined)
}

/// Copies the files of `from` (and its folders) into the new folder `to`; links are not
/// followed.
pub fn copy_dir(from: &Path, to: &Path) -> Result<(), ResultsError> {
    std::fs::create_dir_all(to).map_err(|e| ResultsError::io(to, e))?;
    for entry in std::fs::read_dir(from).map_err(|e| ResultsError::io(from, e))? {
        let entry = entry.map_err(|e| ResultsError::io(from, e))?;
        let path = entry.path();
        let kind = entry.file_type().map_err(|e| ResultsError::io(&path, e))?;
        let target = to.join(entry.file_name());
        if kind.is_dir() {
            copy_dir(&path, &target)?;
        } else if kind.is_file() {
            std::fs::copy(&path, &target).map_err(|e| ResultsError::io(&target, e))?;
        }
    }
    Ok(())
}
