//! [`HubError`]: why a file could not be fetched from the hub, naming the URL or file and
//! what to do, and the mapping of the exchanges' failures (with the hub's `X-Error-Code`)
//! onto it. URLs are the hub URLs the user can check (never a redirect's signed URL) and no
//! error ever contains the token.

use std::path::PathBuf;

use crate::failure::Failure;
use crate::{Hub, Kind, RepoFile};

/// Why a fetch failed.
#[derive(Debug, thiserror::Error)]
pub enum HubError {
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
    #[error(
        "the download of {url} was interrupted after {got} of {total} bytes ({reason}); run the command again to resume it"
    )]
    Interrupted {
        /// The URL.
        url: String,
        /// Bytes on disk.
        got: u64,
        /// Bytes expected.
        total: u64,
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
    /// A local file could not be written or read.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
}

impl HubError {
    /// An I/O error on `path`.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        HubError::Io {
            path: path.into(),
            source,
        }
    }
}

/// The user's error for `failure` while `hub` fetched `f` from `url` (the hub URL, never a
/// redirect's signed one).
pub(crate) fn from_failure(hub: &Hub, url: &str, f: &RepoFile, failure: Failure) -> HubError {
    let url = url.to_owned();
    match failure {
        Failure::Status(status, code) => HubError::Status {
            hint: status_hint(status, code.as_deref(), hub.token.is_some(), f),
            url,
            status,
        },
        Failure::Storage(status, host) => HubError::Status {
            hint: format!(
                ": that is the answer of {host}, where the hub sent the download, not of the hub (no token goes there); run the command again for a fresh URL"
            ),
            url,
            status,
        },
        Failure::Transport(reason) => HubError::Unreachable {
            url,
            reason,
            cache: hub.cache.clone(),
        },
        Failure::Interrupted { got, total, reason } => HubError::Interrupted {
            url,
            got,
            total,
            reason,
        },
        Failure::Header(h) => HubError::Protocol {
            url,
            message: format!(
                "the answer has no valid `{h}` header; is HF_ENDPOINT a Hugging Face hub?"
            ),
        },
        Failure::Protocol(message) => HubError::Protocol { url, message },
        Failure::Local(path, source) => HubError::Io { path, source },
    }
}

/// What it probably means that the hub answered `status` (with its `X-Error-Code`).
fn status_hint(status: u16, code: Option<&str>, with_token: bool, f: &RepoFile) -> String {
    let what = match f.kind {
        Kind::Model => "model",
        Kind::Dataset => "dataset",
    };
    let hint = match (status, code) {
        (401 | 403, Some("GatedRepo")) if with_token => format!(
            "the {what} is gated and the token in HF_TOKEN has no access: accept its terms on its hub page"
        ),
        (401 | 403, Some("GatedRepo")) => format!(
            "the {what} is gated: accept its terms on its hub page and set HF_TOKEN (or log in with `hf auth login`)"
        ),
        (_, Some("RepoNotFound")) => format!(
            "no such {what} (or a private one{})",
            if with_token {
                " the token cannot see"
            } else {
                ": set HF_TOKEN"
            }
        ),
        (_, Some("RevisionNotFound")) => format!("no revision {} in {}", f.revision, f.repo),
        (_, Some("EntryNotFound")) => {
            format!("{} has no {} at revision {}", f.repo, f.file, f.revision)
        }
        (401 | 403, _) if with_token => "the token in HF_TOKEN was refused".into(),
        (401 | 403, _) => {
            format!("the hub wants a token: the {what} is gated or private; set HF_TOKEN")
        }
        (404, _) => format!(
            "no such {what} or no {} at revision {}; gated {what}s need HF_TOKEN",
            f.file, f.revision
        ),
        (429, _) => "rate limited; wait and run the command again".into(),
        (s, _) if s >= 500 => "the hub failed; run the command again later".into(),
        _ => return String::new(),
    };
    format!(": {hint}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_hints_say_what_to_do() {
        let m = crate::tests::PR_TOKENIZER;
        assert_eq!(
            status_hint(404, None, false, &m),
            ": no such model or no tokenizer.json at revision refs/pr/1; gated models need HF_TOKEN"
        );
        assert!(status_hint(401, Some("GatedRepo"), false, &m).contains("gated"));
        assert_eq!(
            status_hint(401, None, true, &m),
            ": the token in HF_TOKEN was refused"
        );
        assert_eq!(status_hint(418, None, true, &m), "");
        assert_eq!(
            status_hint(401, Some("RepoNotFound"), false, &m),
            ": no such model (or a private one: set HF_TOKEN)"
        );
    }
}
