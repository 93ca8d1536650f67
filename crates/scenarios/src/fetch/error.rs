//! [`FetchError`]: why a dataset could not be fetched, naming the URL or file and what to do.
//! URLs are the hub URLs the user can check (never a redirect's signed URL) and no error
//! ever contains the token (hf-hub's errors are mapped here, never shown as they are).

use std::path::PathBuf;

/// Why a fetch failed.
#[derive(Debug, thiserror::Error)]
pub enum FetchError {
    /// No connection could be made.
    #[error(
        "could not reach {url}: {reason}; check the network connection or set HF_ENDPOINT to a reachable hub mirror; to work offline from what is already in the cache ({}), set HF_HUB_OFFLINE=1",
        cache.display()
    )]
    Unreachable {
        /// The URL.
        url: String,
        /// The connection error.
        reason: String,
        /// The hub cache an offline run reads.
        cache: PathBuf,
    },
    /// `HF_HUB_OFFLINE` is set and the file is not in the cache.
    #[error(
        "{url} is not in the hub cache ({}) and HF_HUB_OFFLINE is set; unset it to download the file (or set HF_HUB_CACHE / HF_HOME to the cache that has it)",
        cache.display()
    )]
    NotCached {
        /// The URL.
        url: String,
        /// The cache searched.
        cache: PathBuf,
    },
    /// The server answered with an error status.
    #[error("{url} answered HTTP {status}{hint}")]
    Status {
        /// The URL.
        url: String,
        /// The status code.
        status: u16,
        /// What it probably means.
        hint: String,
    },
    /// The transfer broke off; the partial file is kept in the cache for the next run to
    /// resume.
    #[error("the download of {url} was interrupted after {got} of {} bytes ({reason}); run the command again to resume it", total.map_or("?".to_owned(), |t| t.to_string()))]
    Interrupted {
        /// The URL.
        url: String,
        /// Bytes on disk.
        got: u64,
        /// Bytes expected.
        total: Option<u64>,
        /// What happened.
        reason: String,
    },
    /// The file's checksum is not the one the server announced.
    #[error(
        "{url}: the downloaded file (sha256 {got}) twice did not match the hub's ETag {expected}; the copy was removed, run the command again"
    )]
    Checksum {
        /// The URL.
        url: String,
        /// Announced.
        expected: String,
        /// Computed.
        got: String,
    },
    /// The server's answer was not usable (bad redirect, bad header).
    #[error("{url}: {message}")]
    Protocol {
        /// The URL.
        url: String,
        /// What was wrong.
        message: String,
    },
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
