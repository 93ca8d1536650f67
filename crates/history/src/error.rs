//! What can go wrong with the history and the gate, each naming the file or run it is about.

use std::path::PathBuf;

/// A history or gate error.
#[derive(Debug, thiserror::Error)]
pub enum HistoryError {
    /// The database file is not a SQLite database, or is damaged.
    #[error(
        "{path} is not a readable plateau history (SQLite says: {detail}); nothing was \
         changed: restore it from a copy, or give another file with --db"
    )]
    Corrupt {
        /// The database.
        path: PathBuf,
        /// SQLite's message.
        detail: String,
    },
    /// Another process holds the database's write lock.
    #[error(
        "{path} is locked by another process (waited {waited_s} s); nothing was written: \
         retry when it is done"
    )]
    Locked {
        /// The database.
        path: PathBuf,
        /// How long plateau waited.
        waited_s: u64,
    },
    /// A SQLite database that plateau did not write, or a newer plateau's layout.
    #[error("{path}: {why}; nothing was changed")]
    Foreign {
        /// The database.
        path: PathBuf,
        /// What was found.
        why: String,
    },
    /// Any other SQLite failure.
    #[error("{path}: {source}")]
    Sqlite {
        /// The database.
        path: PathBuf,
        /// The error.
        #[source]
        source: rusqlite::Error,
    },
    /// The database's folder could not be made.
    #[error("cannot create {path}: {source}")]
    Folder {
        /// The folder.
        path: PathBuf,
        /// The error.
        #[source]
        source: std::io::Error,
    },
    /// A results directory could not be read.
    #[error("{path}: {why}")]
    Results {
        /// The directory.
        path: PathBuf,
        /// What is wrong.
        why: String,
    },
    /// A filter, label or `--against` that does not parse.
    #[error("{0}")]
    Filter(String),
    /// No run is recorded under that id.
    #[error("no run {id} in {path}")]
    NoRun {
        /// The id asked for.
        id: i64,
        /// The database.
        path: PathBuf,
    },
    /// The selection holds no run to compare with.
    #[error("no baseline: {0}")]
    NoBaseline(String),
    /// A report or table could not be written.
    #[error(transparent)]
    Report(#[from] plateau_report::ReportError),
}

impl HistoryError {
    /// Whether the error comes from the input (a file, flag or database the user gave) and
    /// not from writing output.
    pub fn is_input(&self) -> bool {
        !matches!(self, HistoryError::Report(_))
    }
}
