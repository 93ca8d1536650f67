//! Why a run could not go on ([`DriverError`]), and whether that was an I/O error (exit 4
//! in the binary).

use plateau_model::results::ResultsError;

/// A run that could not go on.
#[derive(Debug, thiserror::Error)]
pub enum DriverError {
    /// A result file could not be written.
    #[error(transparent)]
    Results(#[from] ResultsError),
    /// A workload could not be built.
    #[error("scenario {scenario}: {message}")]
    Workload {
        /// Scenario id.
        scenario: String,
        /// What is wrong.
        message: String,
    },
    /// The targets do not match the plan.
    #[error("{0}")]
    Setup(String),
    /// The run stopped on `cause` after `run.json` was opened; `run.json` was closed as
    /// `failed`, unless writing it failed too (`run_json`).
    #[error("{cause}{}", unclosed(run_json))]
    Stopped {
        /// What stopped the run.
        cause: Box<DriverError>,
        /// Why `run.json` could not be closed, if it could not.
        run_json: Option<ResultsError>,
    },
}

impl DriverError {
    /// What stopped the run, past any [`DriverError::Stopped`] wrapper.
    pub fn cause(&self) -> &DriverError {
        match self {
            DriverError::Stopped { cause, .. } => cause.cause(),
            other => other,
        }
    }

    /// Whether a result file could not be written or read (exit code 4 in the binary).
    pub fn is_io(&self) -> bool {
        match self {
            DriverError::Results(ResultsError::Io { .. }) => true,
            DriverError::Stopped { cause, run_json } => {
                cause.is_io() || matches!(run_json, Some(ResultsError::Io { .. }))
            }
            _ => false,
        }
    }
}

/// The part of a [`DriverError::Stopped`] message about `run.json`.
fn unclosed(run_json: &Option<ResultsError>) -> String {
    run_json.as_ref().map_or(String::new(), |e| {
        format!("; run.json could not be marked failed either ({e})")
    })
}
