//! `datasets/<name>/manifest.json`: what was fetched (URL, revision, the commit the hub
//! resolved it to, size, sha256, when, where the hub cache keeps it) and what it was
//! normalised into.

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::{FetchError, write_atomic};

/// The manifest's file name in each dataset folder.
pub const FILE: &str = "manifest.json";

/// A record of one fetch.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    /// `longbench` or `oasst2`.
    pub dataset: String,
    /// The URL downloaded.
    pub url: String,
    /// The revision asked for.
    pub revision: String,
    /// The hub's `X-Repo-Commit`: the commit the revision resolved to.
    pub repo_commit: Option<String>,
    /// The file's ETag (`X-Linked-Etag` on the hub).
    pub etag: Option<String>,
    /// Size of the downloaded file.
    pub bytes: u64,
    /// Its sha256, lowercase hex.
    pub sha256: String,
    /// When it was fetched (RFC 3339, UTC).
    pub fetched_at: String,
    /// The downloaded file, in the Hugging Face hub cache.
    pub raw_file: String,
    /// The normalised file, relative to the datasets folder.
    pub normalised_file: String,
    /// Records in the normalised file.
    pub records: u64,
}

impl Manifest {
    /// Reads `dir/manifest.json`.
    pub fn read(dir: &Path) -> Result<Manifest, FetchError> {
        let path = dir.join(FILE);
        let bytes = std::fs::read(&path).map_err(|e| FetchError::io(&path, e))?;
        serde_json::from_slice(&bytes).map_err(|e| FetchError::Normalise {
            file: path,
            message: format!("not a manifest: {e}"),
        })
    }

    /// Writes `dir/manifest.json` atomically.
    pub fn write(&self, dir: &Path) -> Result<(), FetchError> {
        let path = dir.join(FILE);
        write_atomic(&path, |w| {
            serde_json::to_writer_pretty(&mut *w, self)
                .map_err(|e| FetchError::io(&path, e.into()))?;
            std::io::Write::write_all(w, b"\n").map_err(|e| FetchError::io(&path, e))
        })
    }
}
