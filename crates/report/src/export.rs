//! `plateau export`: a results directory rewritten for other tools, computing no metric.
//! [`vllm`] writes one `vllm bench serve --save-result` JSON per cell (vLLM's key names
//! and units, plateau's window semantics in a `metadata` object); [`long_csv`] writes one
//! long-form CSV row per cell x metric x statistic, for pandas. Both read the cells once
//! through [`read`] and keep going past an unreadable file, listing it in
//! [`Written::unreadable`].

pub mod long_csv;
pub mod vllm;

use std::path::{Path, PathBuf};

use plateau_model::results::dir::{Missing, ResultsDir};
use plateau_model::results::summary::CellSummary;

use crate::error::ReportError;

/// The readable cells of a results directory, in path order.
#[derive(Debug)]
pub struct Cells {
    /// Each cell's directory and summary.
    pub cells: Vec<(PathBuf, CellSummary)>,
    /// Summaries that could not be read and links not followed, each error naming its
    /// path.
    pub unreadable: Vec<String>,
    /// Cells that ran (or left records) but have no `summary.json`.
    pub missing: Vec<Missing>,
    /// What the reader should know of the input (files from a newer plateau).
    pub warnings: Vec<String>,
}

/// What an export wrote.
#[derive(Debug)]
pub struct Written {
    /// The files written, in cell order.
    pub files: Vec<PathBuf>,
    /// Cells exported.
    pub cells: usize,
    /// Input files that could not be read (each error names its file); everything else
    /// was exported.
    pub unreadable: Vec<String>,
    /// Cells that ran (or left records) but have no `summary.json`: not exported.
    pub missing: Vec<Missing>,
    /// What the reader should know of the input (files from a newer plateau).
    pub warnings: Vec<String>,
}

/// Reads every cell summary under `root`; an error when the directory holds no readable
/// summary at all.
pub fn read(root: &Path) -> Result<Cells, ReportError> {
    let dir = ResultsDir::read(root)?;
    let unreadable = dir.problems();
    let missing = dir.missing().into_iter().filter(|m| m.lost).collect();
    let warnings = dir.warnings;
    let cells: Vec<(PathBuf, CellSummary)> = dir
        .cells
        .into_iter()
        .filter_map(|c| c.summary.ok().map(|s| (c.dir, s)))
        .collect();
    if cells.is_empty() {
        return Err(ReportError::NoCells {
            path: root.to_owned(),
            errors: unreadable.iter().map(|e| format!("\n  {e}")).collect(),
        });
    }
    Ok(Cells {
        cells,
        unreadable,
        missing,
        warnings,
    })
}
