//! Finding a results directory's cells ([`walk`]) without ever following a symbolic link:
//! a link inside the tree is reported and left alone (one to the tree itself or to an
//! ancestor is named as the loop it would make), and a directory met twice (a bind mount
//! of an ancestor) is a loop too. The root itself may be a link (`results/latest`): it is
//! resolved once, before the walk. Files are opened only where they are not links
//! ([`open_file`]).

use std::collections::HashSet;
use std::fs::{self, File};
use std::path::{Path, PathBuf};

use super::{REQUESTS_FILE, ResultsError, SUMMARY_FILE, temp_path};

/// What [`walk`] found under a results directory.
#[derive(Debug, Default)]
pub struct Found {
    /// Every directory holding a `summary.json`, in natural order (`c4` before `c16`).
    pub cells: Vec<PathBuf>,
    /// Directories holding request records (whole or being written) but no
    /// `summary.json`: cells whose summary is missing.
    pub orphans: Vec<PathBuf>,
    /// Links not followed and loops, each naming its path.
    pub skipped: Vec<ResultsError>,
}

/// Walks `root` (resolved first when it is itself a link) and returns what it holds.
/// An error only when `root`, or a directory under it, cannot be listed.
pub fn walk(root: &Path) -> Result<Found, ResultsError> {
    let root = fs::canonicalize(root).map_err(|e| ResultsError::io(root, e))?;
    let mut found = Found::default();
    let mut seen = HashSet::new();
    let mut stack = vec![root.clone()];
    while let Some(dir) = stack.pop() {
        if let Some(id) = identity(&dir)?
            && !seen.insert(id)
        {
            found.skipped.push(ResultsError::Format {
                path: dir.clone(),
                line: None,
                message: "this directory was already read under another path (a bind mount \
                          of its own ancestor?): a loop; it is read once"
                    .into(),
            });
            continue;
        }
        let mut summary = false;
        let mut records = false;
        let entries = fs::read_dir(&dir).map_err(|e| ResultsError::io(&dir, e))?;
        for entry in entries {
            let entry = entry.map_err(|e| ResultsError::io(&dir, e))?;
            let path = entry.path();
            let kind = entry.file_type().map_err(|e| ResultsError::io(&path, e))?;
            if kind.is_symlink() {
                found.skipped.push(link(&path));
            } else if kind.is_dir() {
                stack.push(path);
            } else {
                let name = entry.file_name();
                summary |= name == SUMMARY_FILE;
                records |= name == REQUESTS_FILE || name == temp_path(Path::new(REQUESTS_FILE));
            }
        }
        if summary {
            found.cells.push(dir);
        } else if records {
            found.orphans.push(dir);
        }
    }
    let natural =
        |a: &PathBuf, b: &PathBuf| crate::natural::cmp(&a.to_string_lossy(), &b.to_string_lossy());
    found.cells.sort_by(natural);
    found.orphans.sort_by(natural);
    found.skipped.sort_by_key(ToString::to_string);
    Ok(found)
}

/// Opens the file at `path` for reading, unless it is a symbolic link: plateau reads
/// only the files a results directory holds itself.
pub fn open_file(path: &Path) -> Result<File, ResultsError> {
    let meta = fs::symlink_metadata(path).map_err(|e| ResultsError::io(path, e))?;
    if meta.file_type().is_symlink() {
        return Err(link(path));
    }
    File::open(path).map_err(|e| ResultsError::io(path, e))
}

/// The error of a link met at `path`: a loop when it points at the directory holding it or
/// one of that directory's ancestors, else a link out of or around the tree.
fn link(path: &Path) -> ResultsError {
    let target = fs::read_link(path).map_or_else(|_| "?".into(), |t| t.display().to_string());
    let parent = path.parent().unwrap_or(Path::new("."));
    let loops = match (fs::canonicalize(path), fs::canonicalize(parent)) {
        (Ok(to), Ok(parent)) => parent.starts_with(&to),
        _ => false,
    };
    let message = if loops {
        format!(
            "a symbolic link to {target}, which holds it: a loop; plateau does not follow \
             links inside a results directory (remove the link)"
        )
    } else {
        format!(
            "a symbolic link to {target}; plateau does not follow links inside a results \
             directory (copy the files in instead)"
        )
    };
    ResultsError::Format {
        path: path.to_owned(),
        line: None,
        message,
    }
}

/// The device and inode of `dir`, to notice a directory met twice.
#[cfg(unix)]
fn identity(dir: &Path) -> Result<Option<(u64, u64)>, ResultsError> {
    use std::os::unix::fs::MetadataExt;
    let meta = fs::metadata(dir).map_err(|e| ResultsError::io(dir, e))?;
    Ok(Some((meta.dev(), meta.ino())))
}

/// Without inodes, loops through links are still caught; bind mounts are not.
#[cfg(not(unix))]
fn identity(_dir: &Path) -> Result<Option<(u64, u64)>, ResultsError> {
    Ok(None)
}

#[cfg(test)]
mod tests;
