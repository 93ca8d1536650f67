//! What can stop a report: results that cannot be read at all, a figure that cannot be
//! drawn, an output that cannot be written. Each names the file.

use std::path::PathBuf;

use plateau_model::results::ResultsError;

/// A report that could not be made.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    /// The results directory is missing, unreadable or holds no results.
    #[error(transparent)]
    Results(#[from] ResultsError),
    /// No `summary.json` under the directory could be read.
    #[error("{path}: no readable summary.json{errors}")]
    NoCells {
        /// The results directory.
        path: PathBuf,
        /// Why each one failed, one per line (empty when there were none).
        errors: String,
    },
    /// The concurrency asked for the engine comparison is not in the results.
    #[error(
        "--compare-at {requested}: no cell ran at that concurrency (the results have {available})"
    )]
    CompareAt {
        /// The concurrency asked for.
        requested: u32,
        /// The concurrencies present.
        available: String,
    },
    /// The embedded font could not be loaded (a build problem, not an input problem).
    #[error("the embedded font could not be registered with plotters")]
    Font,
    /// A figure could not be drawn or saved.
    #[error("{path}: {message}")]
    Draw {
        /// The figure file.
        path: PathBuf,
        /// What went wrong.
        message: String,
    },
    /// A report file (report.html, summary.md, summary.csv) could not be written.
    #[error(transparent)]
    Output(ResultsError),
    /// An output file or directory could not be written.
    #[error("{path}: {source}")]
    Write {
        /// The file or directory.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}
