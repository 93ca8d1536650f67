//! [`ScenarioError`]: why scenarios could not be loaded, naming the file, line or config
//! field and what was expected.

use std::path::PathBuf;

/// Why the catalog could not be built.
#[derive(Debug, thiserror::Error)]
pub enum ScenarioError {
    /// A scenario definition file is malformed.
    #[error("{}: {message}", file.display())]
    Definition {
        /// The definition file (or `built-in <id>` for an embedded one).
        file: PathBuf,
        /// What is wrong and what was expected.
        message: String,
    },
    /// A field of the run configuration (`scenarios[2]`, `scenario_options.D.lang`).
    #[error("{field}: {message}")]
    Config {
        /// Path of the offending key.
        field: String,
        /// What is wrong and what was expected.
        message: String,
    },
    /// A dataset or prompt file is malformed.
    #[error("{}{}: {message}", file.display(), line.map(|l| format!(":{l}")).unwrap_or_default())]
    Data {
        /// The file.
        file: PathBuf,
        /// 1-based line, for line-oriented files.
        line: Option<usize>,
        /// What is wrong and what was expected.
        message: String,
    },
    /// A file could not be read.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
}

impl ScenarioError {
    /// A problem with config field `field`.
    pub fn config(field: impl Into<String>, message: impl Into<String>) -> Self {
        ScenarioError::Config {
            field: field.into(),
            message: message.into(),
        }
    }

    /// A problem in `file` at `line`.
    pub fn data(file: impl Into<PathBuf>, line: Option<usize>, message: impl Into<String>) -> Self {
        ScenarioError::Data {
            file: file.into(),
            line,
            message: message.into(),
        }
    }

    /// An I/O error on `path`.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        ScenarioError::Io {
            path: path.into(),
            source,
        }
    }
}
