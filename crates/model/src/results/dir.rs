//! A whole results directory read once ([`ResultsDir`]): `run.json` when present and every
//! cell's `summary.json`, each kept with the error that stopped it from being read, so
//! `plateau validate` and the report can list every bad file instead of stopping at the
//! first. The request records are not read here (see [`read_samples`](super::read_samples)).

use std::path::{Path, PathBuf};

use super::run_info::RunInfo;
use super::summary::CellSummary;
use super::{RUN_FILE, ResultsError, SUMMARY_FILE, find_cells, read_json};

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

impl ResultsDir {
    /// Reads `root`. An error only when `root` is not a readable directory or holds no
    /// plateau results at all (neither `run.json` nor any `summary.json`); bad files inside
    /// are kept per cell.
    pub fn read(root: &Path) -> Result<ResultsDir, ResultsError> {
        if !root.is_dir() {
            return Err(ResultsError::Format {
                path: root.to_owned(),
                line: None,
                message: "no such results directory".into(),
            });
        }
        let run_path = root.join(RUN_FILE);
        let run = run_path.exists().then(|| read_json(&run_path));
        let cells: Vec<CellFiles> = find_cells(root)?
            .into_iter()
            .map(|dir| CellFiles {
                rel: relative(root, &dir),
                summary: read_json(&dir.join(SUMMARY_FILE)),
                dir,
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
}

/// `dir` relative to `root`, components joined with `/`.
fn relative(root: &Path, dir: &Path) -> String {
    let rel = dir.strip_prefix(root).unwrap_or(dir);
    rel.components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}
