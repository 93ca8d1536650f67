//! A results directory claimed by one run ([`claim`]) for its whole life: an exclusive lock
//! on `.plateau.lock` (the kernel's `flock`, released when the process ends however it
//! ends), which names its holder (pid, host, start) so that a second run is refused naming
//! it, and a lock a dead run left is taken over with a warning. Before anything is written,
//! the directory must be plateau's (it holds the lock file or plateau's `run.json`) or empty;
//! `--force` writes into another non-empty directory, but never over a file plateau did
//! not write ([`is_ours`]). The lock file stays when the run ends, emptied: it marks the
//! directory as plateau's.

use std::fmt;
use std::fs::{self, File, OpenOptions, TryLockError};
use std::io::{self, Read, Seek, Write};
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::capacity::CAPACITY_FILE;
use super::repeats::REPEATS_FILE;
use super::run_info::Host;
use super::{CSV_FILE, RUN_FILE, ResultsError, SUMMARY_FILE, check_writable};

/// The lock file in a results directory.
pub const LOCK_FILE: &str = ".plateau.lock";

/// The files a run writes at the top of its results directory.
const TOP_FILES: [&str; 4] = [RUN_FILE, CSV_FILE, REPEATS_FILE, CAPACITY_FILE];

/// Files listed in an error, at most.
const LISTED: usize = 5;

/// The run holding a results directory.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Holder {
    /// Its process id.
    pub pid: u32,
    /// The machine it runs on.
    pub host: String,
    /// When it took the lock.
    pub started_at: DateTime<Utc>,
}

impl fmt::Display for Holder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "plateau pid {} on {}, started {}",
            self.pid,
            self.host,
            self.started_at
                .to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
        )
    }
}

/// Why a results directory cannot be claimed.
#[derive(Debug, thiserror::Error)]
pub enum ClaimError {
    /// Another run holds it.
    #[error(
        "{}: in use by {holder}; wait for that run to end, or write to another output_dir",
        dir.display()
    )]
    Busy {
        /// The directory.
        dir: PathBuf,
        /// Who holds it, as far as its lock file says.
        holder: String,
    },
    /// Not empty and not plateau's.
    #[error(
        "{}: not a plateau results directory, and not empty (it holds {listed}); plateau \
         writes only into an empty directory or one of its own: pick another output_dir, or \
         pass --force to write beside these files (plateau never overwrites a file it did \
         not write)",
        dir.display()
    )]
    Foreign {
        /// The directory.
        dir: PathBuf,
        /// Some of what it holds.
        listed: String,
    },
    /// The run would overwrite files plateau did not write.
    #[error(
        "{}: the run would overwrite {listed}, which plateau did not write; plateau never \
         overwrites a file it did not write: move them, or pick another output_dir",
        dir.display()
    )]
    NotOurs {
        /// The directory.
        dir: PathBuf,
        /// Those files.
        listed: String,
    },
    /// The directory or its lock file could not be written.
    #[error(transparent)]
    Io(#[from] ResultsError),
}

/// A claimed results directory: the lock is held until this is dropped (or the process
/// ends).
#[derive(Debug)]
pub struct Claim {
    file: File,
    /// The holder of a lock its process left behind (it died), taken over.
    pub stale: Option<String>,
}

impl Drop for Claim {
    /// Empties the lock file (the run ended cleanly; the file stays as the mark of a
    /// plateau directory); the lock goes with the file handle.
    fn drop(&mut self) {
        let _ = self.file.set_len(0);
    }
}

/// Claims `dir` for a run that writes the cells `cells` (paths relative to `dir`): creates
/// it if missing, checks it is plateau's or empty (any non-empty directory with `force`),
/// that nothing the run writes would overwrite a file plateau did not write, and takes the
/// lock.
pub fn claim(dir: &Path, force: bool, cells: &[String]) -> Result<Claim, ClaimError> {
    check_writable(dir)?;
    let lock_path = dir.join(LOCK_FILE);
    let ours = fs::symlink_metadata(&lock_path).is_ok() || is_ours(&dir.join(RUN_FILE));
    let theirs = if ours {
        foreign_files(dir, cells)
    } else {
        let held = entries(dir)?;
        if !held.is_empty() && !force {
            return Err(ClaimError::Foreign {
                dir: dir.to_owned(),
                listed: list(&held),
            });
        }
        // Everything the run writes goes into these files and directories.
        let endpoints = cells.iter().filter_map(|c| c.split('/').next());
        let mut hit: Vec<String> = Vec::new();
        for name in TOP_FILES.iter().copied().chain(endpoints) {
            if held.iter().any(|h| h == name) && !hit.iter().any(|h| h == name) {
                hit.push(name.to_owned());
            }
        }
        hit
    };
    if !theirs.is_empty() {
        return Err(ClaimError::NotOurs {
            dir: dir.to_owned(),
            listed: list(&theirs),
        });
    }
    lock(dir, &lock_path)
}

/// Takes the lock at `path` and writes this process in it.
fn lock(dir: &Path, path: &Path) -> Result<Claim, ClaimError> {
    let io = |e: io::Error| ClaimError::Io(ResultsError::io(path, e));
    let mut file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)
        .map_err(io)?;
    match file.try_lock() {
        Ok(()) => {}
        Err(TryLockError::WouldBlock) => {
            return Err(ClaimError::Busy {
                dir: dir.to_owned(),
                holder: holder(&mut file)
                    .unwrap_or_else(|| "another plateau (it has not written its pid yet)".into()),
            });
        }
        Err(TryLockError::Error(e)) => return Err(io(e)),
    }
    let stale = holder(&mut file);
    let me = Holder {
        pid: std::process::id(),
        host: Host::current().hostname,
        started_at: Utc::now(),
    };
    let text = serde_json::to_vec(&me).map_err(|e| io(e.into()))?;
    file.set_len(0).map_err(io)?;
    file.rewind().map_err(io)?;
    file.write_all(&text).map_err(io)?;
    file.sync_all().map_err(io)?;
    Ok(Claim { file, stale })
}

/// The holder a lock file names, as text; `None` when it names none.
fn holder(file: &mut File) -> Option<String> {
    let mut text = String::new();
    file.rewind().ok()?;
    file.read_to_string(&mut text).ok()?;
    if text.trim().is_empty() {
        return None;
    }
    Some(match serde_json::from_str::<Holder>(&text) {
        Ok(h) => h.to_string(),
        Err(_) => format!("a plateau whose lock file reads {:?}", text.trim()),
    })
}

/// The names in `dir`, sorted.
fn entries(dir: &Path) -> Result<Vec<String>, ResultsError> {
    let mut names = Vec::new();
    for entry in fs::read_dir(dir).map_err(|e| ResultsError::io(dir, e))? {
        let entry = entry.map_err(|e| ResultsError::io(dir, e))?;
        names.push(entry.file_name().to_string_lossy().into_owned());
    }
    names.sort();
    Ok(names)
}

/// The files of plateau's names in its own directory `dir` that plateau did not write:
/// the top-level files and each cell's summary.
fn foreign_files(dir: &Path, cells: &[String]) -> Vec<String> {
    let summaries = cells.iter().map(|c| format!("{c}/{SUMMARY_FILE}"));
    TOP_FILES
        .iter()
        .map(|f| (*f).to_owned())
        .chain(summaries)
        .filter(|rel| {
            let path = dir.join(rel);
            fs::symlink_metadata(&path).is_ok() && !is_ours(&path)
        })
        .collect()
}

/// Whether the file at `path` is one plateau wrote: a JSON file with plateau's version in
/// it, or a CSV with plateau's header; not a link.
pub fn is_ours(path: &Path) -> bool {
    let Ok(meta) = fs::symlink_metadata(path) else {
        return false;
    };
    if !meta.is_file() {
        return false;
    }
    let json = path.extension().is_some_and(|e| e == "json");
    // A JSON file is read whole (up to 64 MiB): a summary rewritten with sorted keys has
    // its `plateau_version` far past the first kilobytes.
    let limit = if json { 64 << 20 } else { 4096 };
    let mut head = Vec::new();
    let read = File::open(path).and_then(|f| f.take(limit).read_to_end(&mut head));
    if read.is_err() {
        return false;
    }
    if json {
        return serde_json::from_slice::<serde_json::Value>(&head)
            .is_ok_and(|v| v.get("plateau_version").is_some());
    }
    let head = String::from_utf8_lossy(&head);
    match path.extension().and_then(|e| e.to_str()) {
        Some("csv") => head.starts_with(&super::csv::header_start()),
        _ => false,
    }
}

/// Up to [`LISTED`] of `names`, and how many more.
fn list(names: &[String]) -> String {
    let shown: Vec<&str> = names.iter().take(LISTED).map(String::as_str).collect();
    match names.len().saturating_sub(LISTED) {
        0 => shown.join(", "),
        more => format!("{} and {more} more", shown.join(", ")),
    }
}

#[cfg(test)]
mod tests;
