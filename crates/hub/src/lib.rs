//! The Hugging Face hub: [`Hub`] holds what the environment says (`env`: `HF_ENDPOINT`,
//! `HF_TOKEN` or the token file, `HF_HUB_CACHE` / `HF_HOME`, `HF_HUB_OFFLINE`), and
//! [`Hub::get`] returns one file of a repository at a revision from the standard cache
//! (`~/.cache/huggingface/hub`, `layout`), downloading it first when it is not there
//! (`transfer`: the token to the hub's host only, resume of a partial file), retrying what
//! may pass, checking it against the hub's ETag ([`verify`]), and with errors that say what
//! to do ([`HubError`]). A file cached at a branch or tag is checked against the hub's
//! current commit first, as `huggingface_hub` does, and used as it is when the hub cannot
//! say. [`Hub::get_bounded`] gives up a download that stalls.
//!
//! Hand-written on `ureq` rather than on the `hf-hub` crate: its current release (1.0.0)
//! has no offline mode (`HF_HUB_OFFLINE`), no stall or ETag timeout
//! (`HF_HUB_DOWNLOAD_TIMEOUT`, `HF_HUB_ETAG_TIMEOUT`), which the offline and timeout tests
//! of `fetch-datasets` require, and its dependency tree is 284 crates (reqwest, hyper,
//! hf-xet) against this crate's 121.

use std::cell::Cell;
use std::path::{Path, PathBuf};
use std::time::Duration;

use plateau_model::secret::Secret;
use url::Url;

use failure::Failure;
use layout::RepoCache;
use transfer::Client;
use verify::Check;

mod bounded;
mod env;
mod error;
mod failure;
mod layout;
mod transfer;
pub mod verify;

pub use error::HubError;

/// The hub used when `HF_ENDPOINT` is not set.
pub const DEFAULT_ENDPOINT: &str = "https://huggingface.co";

/// Where the hub is and how to talk to it; the token never shows in `Debug`.
#[derive(Clone, Debug)]
pub struct Hub {
    /// Base URL (`HF_ENDPOINT`, default [`DEFAULT_ENDPOINT`]), without a trailing `/`.
    pub endpoint: String,
    /// Bearer token: `HF_TOKEN`, else the token file (`HF_TOKEN_PATH`, default
    /// `$HF_HOME/token`, where `hf auth login` writes it).
    pub token: Option<Secret>,
    /// The hub cache: `HF_HUB_CACHE`, else `$HF_HOME/hub`, else
    /// `~/.cache/huggingface/hub` (shared with the Python `huggingface_hub`).
    pub cache: PathBuf,
    /// `HF_HUB_OFFLINE=1`: never ask the hub, serve from the cache only.
    pub offline: bool,
    /// A download that reports nothing for this long is given up
    /// (`HF_HUB_DOWNLOAD_TIMEOUT` seconds, default [`STALL`]); twice this is each
    /// connection's connect and read timeout.
    pub stall: Duration,
    /// How long asking whether a cached branch or tag moved may take before the cached
    /// copy is used (`HF_HUB_ETAG_TIMEOUT` seconds, default [`ETAG_TIMEOUT`]).
    pub etag_timeout: Duration,
}

/// How long a download may go without progress by default.
pub const STALL: Duration = Duration::from_secs(60);

/// How long the check of a cached branch or tag may take by default (as
/// `huggingface_hub`'s `HF_HUB_ETAG_TIMEOUT`).
pub const ETAG_TIMEOUT: Duration = Duration::from_secs(10);

/// One file of a hub repository at a revision.
#[derive(Clone, Copy, Debug)]
pub struct RepoFile<'a> {
    /// `owner/name`.
    pub repo: &'a str,
    /// Model or dataset repository.
    pub kind: Kind,
    /// Branch, tag or commit.
    pub revision: &'a str,
    /// Path of the file in the repository.
    pub file: &'a str,
}

/// The kind of repository (its URL prefix and cache folder differ).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A model (`/{repo}/resolve/...`).
    Model,
    /// A dataset (`/datasets/{repo}/resolve/...`).
    Dataset,
}

/// A file in the cache and what is known of it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Got {
    /// The file (a link into the cache's `blobs/`).
    pub path: PathBuf,
    /// The commit the revision resolved to (the cache's snapshot folder).
    pub commit: Option<String>,
    /// The hub's ETag of the file: its sha256 for large (LFS) files, its git blob id else.
    pub etag: Option<String>,
    /// Size in bytes.
    pub bytes: u64,
    /// sha256, lowercase hex.
    pub sha256: String,
    /// False when it was already in the cache.
    pub downloaded: bool,
    /// Bytes reused from a partial download an earlier run left in the cache.
    pub resumed_from: u64,
}

/// What a download reports while it runs (sent to the caller's progress display).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// A stage or event.
    Message(String),
    /// A transfer starts: `total` bytes, `done` already on disk.
    Start {
        /// The file's size.
        total: u64,
        /// Bytes already there (a resumed partial file).
        done: u64,
    },
    /// More bytes arrived.
    Advance(u64),
    /// The transfer ended.
    Finish,
}

impl Hub {
    /// The URL of `f` on this hub (what the user can open to check).
    pub fn url(&self, f: &RepoFile) -> String {
        format!(
            "{}/{}/resolve/{}/{}",
            self.endpoint,
            match f.kind {
                Kind::Model => f.repo.to_owned(),
                Kind::Dataset => format!("datasets/{}", f.repo),
            },
            f.revision.replace('/', "%2F"),
            f.file
        )
    }

    /// `f` from the cache, downloaded first when it is not there (or when `force`), with
    /// up to `attempts` tries at each step, each resuming the last. The file is checked
    /// against the hub's ETag (sha256 or git blob id); a mismatch removes it and downloads
    /// it once more from zero. A copy cached at a branch or tag is used once the hub says
    /// the revision still has it (one request, bounded by [`Hub::etag_timeout`]), and also
    /// when the hub cannot be asked, with a message saying so; a copy at a commit, or
    /// offline, is used without asking. Blocks: call it from a blocking thread.
    pub fn get(
        &self,
        f: &RepoFile,
        force: bool,
        attempts: u32,
        events: &dyn Fn(Event),
    ) -> Result<Got, HubError> {
        let url = self.url(f);
        let repo = RepoCache::new(&self.cache, f);
        let cached = match force {
            true => None,
            false => cached(&repo, f.file, events)?,
        };
        if let Some((path, check)) = &cached
            && (self.offline || layout::is_commit(f.revision))
        {
            return Ok(got(path.clone(), check.clone(), false, 0));
        }
        if self.offline {
            return Err(HubError::NotCached {
                url,
                cache: self.cache.clone(),
            });
        }
        let failed = |e: Failure| error::from_failure(self, &url, f, e);
        let protocol = |message: String| HubError::Protocol {
            url: url.clone(),
            message,
        };
        let parsed = Url::parse(&url)
            .map_err(|e| protocol(format!("HF_ENDPOINT does not make a valid URL ({e})")))?;
        // Past the stall limit, at which `Hub::get_bounded` has given up already: a thread
        // it left ends by itself.
        let client = Client::new(self, &parsed, self.stall * 2);
        let meta = match cached {
            None => retrying(attempts, events, || client.metadata(&parsed)).map_err(failed)?,
            Some((path, check)) => match self.recheck(f, &parsed, &repo, path, check, events) {
                Recheck::Current(got) => return got,
                Recheck::Moved(meta) => meta,
            },
        };
        let blob = repo.blob(&meta.etag);
        let dir = blob.parent().unwrap_or(&self.cache);
        std::fs::create_dir_all(dir).map_err(|e| HubError::io(dir, e))?;
        let _lock = layout::lock(&blob).map_err(protocol)?;
        // The revision moved to a file the cache still holds under another commit (it
        // moved back): linked, not downloaded.
        if blob.is_file() {
            let (path, check) = self.link(&repo, &blob, &meta.commit, f.file)?;
            if check.matches {
                return Ok(got(path, check, false, 0));
            }
            verify::remove(&path);
        }
        let part = part_path(&blob);
        let first = Cell::new(None);
        let mut restarted = false;
        let mut meta = meta;
        let mut asked = false;
        loop {
            retrying(attempts, events, || {
                // Every try after the first asks where the bytes are again: a CDN's URL is
                // signed for a while only.
                if std::mem::replace(&mut asked, true) {
                    meta.location = client.relocate(&parsed, &meta)?;
                }
                client.download(&meta, &part, &first, events)
            })
            .map_err(failed)?;
            std::fs::rename(&part, &blob).map_err(|e| HubError::io(&blob, e))?;
            let (path, check) = self.link(&repo, &blob, &meta.commit, f.file)?;
            if check.matches {
                return Ok(got(path, check, true, first.get().unwrap_or(0)));
            }
            verify::remove(&path);
            if restarted {
                return Err(HubError::Checksum {
                    url,
                    expected: check.etag.unwrap_or_default(),
                    got: check.sha256,
                });
            }
            restarted = true;
            first.set(Some(0));
            events(Event::Message(format!(
                "{url}: the file does not match the hub's checksum; the damaged copy was removed, restarting from zero"
            )));
        }
    }

    /// Asks the hub which commit and file `f`'s branch or tag holds now, for the sound
    /// copy `path` cached at it: the copy while it is current (linked to the new commit
    /// when only the commit moved) or the hub cannot say (with a message), an error when
    /// the hub says the file is gone, else what to download.
    fn recheck(
        &self,
        f: &RepoFile,
        url: &Url,
        repo: &RepoCache,
        path: PathBuf,
        check: Check,
        events: &dyn Fn(Event),
    ) -> Recheck {
        let commit = commit_of(&path).unwrap_or_default();
        // Connecting and reading within the stall limit together, so `get_bounded` hears
        // the answer.
        let limit = self.etag_timeout.min(self.stall / 2);
        match Client::new(self, url, limit).metadata(url) {
            Ok(meta) if meta.commit == commit && check.etag.as_ref() == Some(&meta.etag) => {
                Recheck::Current(Ok(got(path, check, false, 0)))
            }
            // A new commit that left this file as it was: the checked blob is linked to it.
            Ok(meta) if check.etag.as_ref() == Some(&meta.etag) => Recheck::Current(
                repo.publish(&repo.blob(&meta.etag), &meta.commit, f.file)
                    .map_err(|e| HubError::io(&self.cache, e))
                    .map(|path| got(path, check, false, 0)),
            ),
            Ok(meta) => Recheck::Moved(meta),
            // The hub says the file is gone from this revision: the cached copy is not what
            // the revision holds (`huggingface_hub` fails here too).
            Err(e) if e.is_entry_not_found() => {
                Recheck::Current(Err(error::from_failure(self, url.as_str(), f, e)))
            }
            Err(e) => {
                events(Event::Message(format!(
                    "could not ask {url} whether `{}` moved ({}); using the copy cached at commit {commit}",
                    f.revision,
                    e.brief()
                )));
                Recheck::Current(Ok(got(path, check, false, 0)))
            }
        }
    }

    /// Links `blob` as `file` at `commit` and checks it against its ETag.
    fn link(
        &self,
        repo: &RepoCache,
        blob: &Path,
        commit: &str,
        file: &str,
    ) -> Result<(PathBuf, Check), HubError> {
        let path = repo
            .publish(blob, commit, file)
            .map_err(|e| HubError::io(&self.cache, e))?;
        let check = verify::check(&path)?;
        Ok((path, check))
    }
}

/// What the check of a copy cached at a branch or tag found.
enum Recheck {
    /// The answer: the cached copy (perhaps under a new commit), or an error.
    Current(Result<Got, HubError>),
    /// The revision holds another file now.
    Moved(transfer::Meta),
}

/// `file` from `repo` when the cache holds a sound copy; a damaged one is removed, with a
/// message.
fn cached(
    repo: &RepoCache,
    file: &str,
    events: &dyn Fn(Event),
) -> Result<Option<(PathBuf, Check)>, HubError> {
    let Some(path) = repo.lookup(file) else {
        return Ok(None);
    };
    let check = verify::check(&path)?;
    if check.matches {
        return Ok(Some((path, check)));
    }
    events(Event::Message(format!(
        "{} in the cache is damaged; downloading it again",
        path.display()
    )));
    verify::remove(&path);
    Ok(None)
}

/// `attempt` up to `attempts` times while it fails in a way another try may fix, waiting
/// 0.3 s, 0.6 s, 1.2 s ... (at most 10 s) in between.
fn retrying<T>(
    attempts: u32,
    events: &dyn Fn(Event),
    mut attempt: impl FnMut() -> Result<T, Failure>,
) -> Result<T, Failure> {
    let mut wait = Duration::from_millis(300);
    let mut left = attempts.max(1);
    loop {
        left -= 1;
        match attempt() {
            Err(e) if left > 0 && e.is_transient() => {
                events(Event::Message(format!(
                    "{}; trying again in {:.1} s",
                    e.brief(),
                    wait.as_secs_f64()
                )));
                std::thread::sleep(wait);
                wait = (wait * 2).min(Duration::from_secs(10));
            }
            done => return done,
        }
    }
}

/// A [`Got`] for `path`, as `check` found it.
fn got(path: PathBuf, check: Check, downloaded: bool, resumed_from: u64) -> Got {
    Got {
        commit: commit_of(&path),
        path,
        etag: check.etag,
        bytes: check.bytes,
        sha256: check.sha256,
        downloaded,
        resumed_from,
    }
}

/// The commit in a cache path `.../snapshots/<commit>/<file>`.
fn commit_of(path: &Path) -> Option<String> {
    let mut parts = path.components().map(|c| c.as_os_str().to_string_lossy());
    parts.find(|c| c == "snapshots")?;
    parts.next().map(|c| c.into_owned())
}

/// `path` with `.part` appended: where a file is written before it is renamed into place.
pub fn part_path(path: &Path) -> PathBuf {
    let mut s = path.as_os_str().to_owned();
    s.push(".part");
    PathBuf::from(s)
}

#[cfg(test)]
mod tests;
