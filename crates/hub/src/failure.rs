//! Why an exchange with the hub failed, before it is put in the user's terms
//! (`error::from_failure`): whether another attempt may do better, and a few words for a
//! progress line.

use std::path::PathBuf;

/// Why an exchange failed, before it is put in the user's terms (`error::from_failure`).
#[derive(Debug)]
pub(super) enum Failure {
    /// An error status, with the hub's `X-Error-Code`.
    Status(u16, Option<String>),
    /// An error status from the host the hub sent the bytes to (its CDN), named.
    Storage(u16, String),
    /// No answer: the innermost cause.
    Transport(String),
    /// The body broke off: bytes on disk, the file's size, why.
    Interrupted {
        got: u64,
        total: u64,
        reason: String,
    },
    /// A header the hub always sends is missing or unreadable.
    Header(&'static str),
    /// Anything else wrong with the answer.
    Protocol(String),
    /// A local file could not be read or written.
    Local(PathBuf, std::io::Error),
}

impl Failure {
    /// Whether another attempt may do better.
    pub(super) fn is_transient(&self) -> bool {
        match self {
            Failure::Status(s, _) => *s == 429 || *s >= 500,
            // A retry asks the hub for a fresh URL (`Client::relocate`): an expired
            // signature (403) is fixed by that.
            Failure::Storage(s, _) => *s == 403 || *s == 429 || *s >= 500,
            Failure::Transport(_) | Failure::Interrupted { .. } => true,
            _ => false,
        }
    }

    /// Whether the hub said the revision has no such file (its `X-Error-Code`).
    pub(super) fn is_entry_not_found(&self) -> bool {
        matches!(self, Failure::Status(404, Some(code)) if code == "EntryNotFound")
    }

    /// A few words for a progress message (never the token: no failure holds it).
    pub(super) fn brief(&self) -> String {
        match self {
            Failure::Status(s, _) => format!("HTTP {s}"),
            Failure::Storage(s, host) => format!("HTTP {s} from {host}"),
            Failure::Transport(reason) => reason.clone(),
            Failure::Interrupted { got, total, reason } => {
                format!("interrupted after {got} of {total} bytes ({reason})")
            }
            Failure::Header(h) => format!("no valid `{h}` header"),
            Failure::Protocol(m) => m.clone(),
            Failure::Local(path, e) => format!("{}: {e}", path.display()),
        }
    }
}

/// A ureq error as a failure: the status with the hub's `X-Error-Code`, or the innermost
/// transport cause.
pub(super) fn failure(e: ureq::Error) -> Failure {
    match e {
        ureq::Error::Status(status, r) => {
            Failure::Status(status, r.header("x-error-code").map(str::to_owned))
        }
        ureq::Error::Transport(t) => Failure::Transport(root_cause(&t)),
    }
}

/// The innermost error's message (`Connection refused (os error 111)`).
fn root_cause(e: &(dyn std::error::Error + 'static)) -> String {
    let mut cur = e;
    while let Some(next) = cur.source() {
        cur = next;
    }
    cur.to_string()
}
