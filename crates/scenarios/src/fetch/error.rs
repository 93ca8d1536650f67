//! [`FetchError`]: why a dataset could not be fetched: the hub's own error
//! ([`plateau_hub::HubError`], naming the URL and what to do), a downloaded file not in its
//! upstream format, or a local file that could not be written.

use std::path::PathBuf;

use plateau_hub::HubError;

/// Why a fetch failed.
#[derive(Debug, thiserror::Error)]
pub enum FetchError {
    /// Getting the file from the hub failed.
    #[error(transparent)]
    Hub(#[from] HubError),
    /// The downloaded file is not in the expected upstream format.
    #[error("{}: {message}", file.display())]
    Normalise {
        /// The downloaded file.
        file: PathBuf,
        /// Where (record or line) and what was expected.
        message: String,
    },
    /// A local file could not be written or read.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
}

impl FetchError {
    /// An I/O error on `path`.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        FetchError::Io {
            path: path.into(),
            source,
        }
    }
}
