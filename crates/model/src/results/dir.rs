//! A whole results directory read once ([`ResultsDir`]): `run.json` when present and every
//! cell's `summary.json`, each kept with the error that stopped it from being read, so
//! `plateau validate` and the report can list every bad file instead of stopping at the
//! first. The tree is walked without following links ([`super::walk`]); a summary that says
//! it is another cell than the directory it lies in, or that is in another layout, is an
//! error; one from a newer plateau is read with a warning ([`super::version`]); a load shard
//! is refused (its cells hold a share of the load). What
//! `run.json` lists without a summary is [`ResultsDir::missing`]. The request records are
//! not read here (see [`read_samples`](super::read_samples)).

use std::path::{Path, PathBuf};

use super::run_info::{CellState, RunInfo};
use super::summary::CellSummary;
use super::version::{Newer, Stamp};
use super::walk::walk;
use super::{RUN_FILE, ResultsError, SUMMARY_FILE, parse_json, read_bytes, read_json};
use crate::shard::ShardBy;

/// Per-cell file of the server's raw `/metrics` scrapes ([`crate::scrape`]), one JSON line
/// per scrape, gzipped.
pub const SERVER_METRICS_FILE: &str = "server_metrics.jsonl.gz";

/// What a results directory holds.
#[derive(Debug)]
pub struct ResultsDir {
    /// The directory.
    pub root: PathBuf,
    /// `run.json`: absent (`None`), unreadable or read.
    pub run: Option<Result<RunInfo, ResultsError>>,
    /// Every directory holding a `summary.json`, sorted by path.
    pub cells: Vec<CellFiles>,
    /// Directories holding request records but no `summary.json`, relative to the root.
    pub orphans: Vec<String>,
    /// Links that were not followed and loops, each naming its path.
    pub skipped: Vec<ResultsError>,
    /// What the reader should say: files from a newer plateau.
    pub warnings: Vec<String>,
}

/// One cell directory and its summary.
#[derive(Debug)]
pub struct CellFiles {
    /// Path relative to the results directory, `/`-separated (as in `run.json`).
    pub rel: String,
    /// The cell directory.
    pub dir: PathBuf,
    /// Its `summary.json`, or why it could not be read.
    pub summary: Result<CellSummary, ResultsError>,
}

/// A cell without a `summary.json`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Missing {
    /// Path relative to the results directory.
    pub rel: String,
    /// Why it has none, as a sentence.
    pub why: String,
    /// Whether the summary should be there: the cell ran (or left records), as opposed
    /// to one never reached or skipped.
    pub lost: bool,
}

impl ResultsDir {
    /// Reads `root`. An error only when `root` is not a readable directory or holds no
    /// plateau results at all (neither `run.json` nor any `summary.json`); bad files inside
    /// are kept per cell.
    pub fn read(root: &Path) -> Result<ResultsDir, ResultsError> {
        ResultsDir::read_with(root, |_| {})
    }

    /// [`ResultsDir::read`], with `keep` called on each summary as soon as it is read:
    /// a reader of many cells drops there what it does not hold for all of them at once
    /// (the report: `plateau_report`'s held cells), before the next one is read.
    pub fn read_with(
        root: &Path,
        mut keep: impl FnMut(&mut CellSummary),
    ) -> Result<ResultsDir, ResultsError> {
        if !root.is_dir() {
            return Err(ResultsError::Format {
                path: root.to_owned(),
                line: None,
                message: "no such results directory".into(),
            });
        }
        let found = walk(root)?;
        let real_root = std::fs::canonicalize(root).map_err(|e| ResultsError::io(root, e))?;
        let run_path = root.join(RUN_FILE);
        let run = std::fs::symlink_metadata(&run_path)
            .is_ok()
            .then(|| read_json::<RunInfo>(&run_path));
        if let Some(Ok(run)) = &run {
            refuse_load_shard(root, run)?;
        }
        let mut newer = Newer::default();
        if let Some(Ok(run)) = &run {
            let stamp = Stamp {
                schema_version: None,
                plateau_version: Some(run.plateau_version.clone()),
            };
            newer.note(&stamp, &run_path);
        }
        let cells: Vec<CellFiles> = found
            .cells
            .into_iter()
            .map(|dir| {
                let rel = relative(&real_root, &dir);
                let shown = root.join(&rel);
                let mut summary = read_summary(&shown.join(SUMMARY_FILE), &rel, &mut newer);
                if let Ok(s) = &mut summary {
                    keep(s);
                }
                CellFiles {
                    summary,
                    rel,
                    dir: shown,
                }
            })
            .collect();
        if run.is_none() && cells.is_empty() {
            return Err(ResultsError::Format {
                path: root.to_owned(),
                line: None,
                message: format!("no plateau results here (no {RUN_FILE}, no {SUMMARY_FILE})"),
            });
        }
        Ok(ResultsDir {
            root: root.to_owned(),
            run,
            cells,
            orphans: found
                .orphans
                .iter()
                .map(|d| relative(&real_root, d))
                .collect(),
            skipped: found.skipped,
            warnings: newer.warnings(),
        })
    }

    /// `run.json`, when it was read.
    pub fn run_info(&self) -> Option<&RunInfo> {
        self.run.as_ref().and_then(|r| r.as_ref().ok())
    }

    /// The summaries that were read, in path order.
    pub fn summaries(&self) -> impl Iterator<Item = &CellSummary> {
        self.cells.iter().filter_map(|c| c.summary.as_ref().ok())
    }

    /// Every file that could not be read and every link not followed, each error naming
    /// its path.
    pub fn problems(&self) -> Vec<String> {
        let run = match &self.run {
            Some(Err(e)) => Some(e.to_string()),
            _ => None,
        };
        run.into_iter()
            .chain(
                self.cells
                    .iter()
                    .filter_map(|c| c.summary.as_ref().err().map(|e| e.to_string())),
            )
            .chain(self.skipped.iter().map(|e| e.to_string()))
            .collect()
    }

    /// The cells without a `summary.json`: those `run.json` lists, then directories with
    /// request records that it does not list.
    pub fn missing(&self) -> Vec<Missing> {
        let mut out = Vec::new();
        let has = |rel: &str| self.cells.iter().any(|c| c.rel == rel);
        if let Some(run) = self.run_info() {
            for entry in run.cells.iter().filter(|e| !has(&e.path)) {
                let (why, lost) = match entry.state {
                    CellState::Pending => ("the cell was never reached".into(), false),
                    CellState::Skipped => (
                        format!(
                            "the cell was skipped: {}",
                            entry.reason.as_deref().unwrap_or("its endpoint failed")
                        ),
                        false,
                    ),
                    CellState::Failed => {
                        ("the run stopped in the cell before writing it".into(), true)
                    }
                    CellState::Running => (
                        "the cell is running, or plateau died in it (run.json says `running`)"
                            .into(),
                        true,
                    ),
                    CellState::Interrupted => (
                        "the cell was interrupted before it was written".into(),
                        true,
                    ),
                    CellState::Complete | CellState::Resumed => (
                        "the cell finished, but its files are gone (deleted or moved?)".into(),
                        true,
                    ),
                };
                out.push(Missing {
                    rel: entry.path.clone(),
                    why,
                    lost,
                });
            }
        }
        for rel in &self.orphans {
            if !out.iter().any(|m| &m.rel == rel) {
                out.push(Missing {
                    rel: rel.clone(),
                    why: "its request records are there, but not its summary: the run stopped \
                          before writing it"
                        .into(),
                    lost: true,
                });
            }
        }
        out
    }
}

/// The summary at `path`, a cell `rel` under its results directory: in this plateau's
/// layout, and saying it is that cell.
fn read_summary(path: &Path, rel: &str, newer: &mut Newer) -> Result<CellSummary, ResultsError> {
    let bytes = read_bytes(path)?;
    let stamp = Stamp::of(&bytes);
    stamp.check_layout(path)?;
    let summary: CellSummary = parse_json(path, &bytes)?;
    newer.note(&stamp, path);
    let says = summary.rel_path();
    if says != rel {
        return Err(ResultsError::Format {
            path: path.to_owned(),
            line: None,
            message: format!(
                "says it is cell {says} (endpoint/model/scenario/load) but lies in {rel}: \
                 moved or edited after plateau wrote it; plateau reads a cell only where it \
                 was written"
            ),
        });
    }
    Ok(summary)
}

impl CellFiles {
    /// The `summary.json` in the cell directory `dir` read again, whole, for a reader that
    /// kept only part of it ([`ResultsDir::read_with`]); its place was checked when it was
    /// first read (a merged directory's cells lie under other paths than they say).
    pub fn reread(dir: &Path) -> Result<CellSummary, ResultsError> {
        let path = dir.join(SUMMARY_FILE);
        let bytes = read_bytes(&path)?;
        Stamp::of(&bytes).check_layout(&path)?;
        parse_json(&path, &bytes)
    }
}

/// A load shard's cells hold this runner's share of each load (2 of N = 8 in folder `c8`),
/// not the benchmark: read on its own it would be placed at the wrong load and judged as a
/// whole. Only `plateau merge` reads shards (and does not come here).
fn refuse_load_shard(root: &Path, run: &RunInfo) -> Result<(), ResultsError> {
    match &run.shard {
        Some(s) if s.shard.by == ShardBy::Load => Err(ResultsError::Format {
            path: root.join(RUN_FILE),
            line: None,
            message: format!(
                "this is load shard {} of {}: each cell holds this runner's share of the load, \
                 not the benchmark's; merge all {} shards first (plateau merge SHARD_DIR... \
                 --out DIR) and read the merged directory",
                s.shard.index, s.shard.count, s.shard.count
            ),
        }),
        _ => Ok(()),
    }
}

/// `dir` relative to `root`, components joined with `/`.
fn relative(root: &Path, dir: &Path) -> String {
    let rel = dir.strip_prefix(root).unwrap_or(dir);
    rel.components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

#[cfg(test)]
mod tests;
