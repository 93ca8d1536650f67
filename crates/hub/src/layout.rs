//! The standard hub cache's layout, shared with the Python `huggingface_hub` and hf-hub:
//! `<cache>/<models|datasets>--<owner>--<name>/` holds `blobs/<etag>` (the bytes),
//! `snapshots/<commit>/<file>` (a relative link to the blob) and `refs/<revision>` (the
//! commit a branch or tag resolved to); a download holds `blobs/<etag>.lock`.

use std::path::{Path, PathBuf};

use crate::{Kind, RepoFile};

/// One repository's folder in the cache, at one revision.
pub(super) struct RepoCache {
    root: PathBuf,
    revision: String,
}

impl RepoCache {
    /// The folder of `f`'s repository in `cache`.
    pub(super) fn new(cache: &Path, f: &RepoFile) -> RepoCache {
        let kind = match f.kind {
            Kind::Model => "models",
            Kind::Dataset => "datasets",
        };
        RepoCache {
            root: cache.join(format!("{kind}--{}", f.repo.replace('/', "--"))),
            revision: f.revision.to_owned(),
        }
    }

    /// `file` at this revision when the cache has it: the commit from `refs/<revision>`,
    /// or the revision itself when it is a commit (Python writes no ref for those).
    pub(super) fn lookup(&self, file: &str) -> Option<PathBuf> {
        let commit = std::fs::read_to_string(self.ref_path())
            .ok()
            .map(|c| c.trim().to_owned())
            .or_else(|| is_commit(&self.revision).then(|| self.revision.clone()))?;
        let path = self.pointer(&commit, file);
        path.exists().then_some(path)
    }

    /// Where the bytes of the file with `etag` live.
    pub(super) fn blob(&self, etag: &str) -> PathBuf {
        self.root.join("blobs").join(etag)
    }

    /// The snapshot path of `file` at `commit`.
    pub(super) fn pointer(&self, commit: &str, file: &str) -> PathBuf {
        self.root.join("snapshots").join(commit).join(file)
    }

    /// Links `snapshots/<commit>/<file>` to `blob` (relative, so the cache can move) and
    /// records that this revision is `commit`.
    pub(super) fn publish(
        &self,
        blob: &Path,
        commit: &str,
        file: &str,
    ) -> std::io::Result<PathBuf> {
        let pointer = self.pointer(commit, file);
        if let Some(dir) = pointer.parent() {
            std::fs::create_dir_all(dir)?;
        }
        // `snapshots/<commit>/` and each folder of `file` lie between the link and the root.
        let up = 2 + file.matches('/').count();
        let target = Path::new(&"../".repeat(up))
            .join("blobs")
            .join(blob.file_name().unwrap_or_default());
        match std::fs::remove_file(&pointer) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
            _ => {}
        }
        link(&target, &pointer)?;
        let refs = self.ref_path();
        if let Some(dir) = refs.parent() {
            std::fs::create_dir_all(dir)?;
        }
        std::fs::write(refs, commit)?;
        Ok(pointer)
    }

    fn ref_path(&self) -> PathBuf {
        // A revision like `refs/pr/1` is a folder path here, as in the other clients.
        self.root.join("refs").join(&self.revision)
    }
}

/// An exclusive lock on `<blob>.lock` (the file stays, as other clients leave theirs), so
/// two processes never append to one partial file; `Err` says who to wait for.
pub(super) fn lock(blob: &Path) -> Result<std::fs::File, String> {
    let path = blob.with_extension("lock");
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(|e| format!("cannot create the lock {}: {e}", path.display()))?;
    match file.try_lock() {
        Ok(()) => Ok(file),
        Err(std::fs::TryLockError::WouldBlock) => Err(format!(
            "another process is downloading this file (lock {}); wait for it to finish",
            path.display()
        )),
        Err(std::fs::TryLockError::Error(e)) => Err(format!("cannot lock {}: {e}", path.display())),
    }
}

/// A 40-digit hex commit id.
pub(super) fn is_commit(revision: &str) -> bool {
    revision.len() == 40 && revision.chars().all(|c| c.is_ascii_hexdigit())
}

#[cfg(unix)]
fn link(target: &Path, at: &Path) -> std::io::Result<()> {
    std::os::unix::fs::symlink(target, at)
}

/// Without symlinks the blob is copied into the snapshot.
#[cfg(not(unix))]
fn link(target: &Path, at: &Path) -> std::io::Result<()> {
    let from = at.parent().unwrap_or(Path::new(".")).join(target);
    std::fs::copy(from, at).map(|_| ())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_published_file_is_found_by_revision_and_links_to_its_blob() {
        let tmp = tempfile::Builder::new()
            .prefix("plateau-layout-")
            .tempdir()
            .unwrap();
        let f = RepoFile {
            repo: "o/m",
            kind: Kind::Model,
            revision: "refs/pr/1",
            file: "sub/tokenizer.json",
        };
        let repo = RepoCache::new(tmp.path(), &f);
        assert_eq!(repo.lookup(f.file), None);
        let blob = repo.blob("abc123");
        std::fs::create_dir_all(blob.parent().unwrap()).unwrap();
        std::fs::write(&blob, b"bytes").unwrap();
        let commit = "0123456789abcdef0123456789abcdef01234567";
        let pointer = repo.publish(&blob, commit, f.file).unwrap();
        assert_eq!(
            pointer,
            tmp.path()
                .join("models--o--m/snapshots")
                .join(commit)
                .join("sub/tokenizer.json")
        );
        assert_eq!(std::fs::read(&pointer).unwrap(), b"bytes");
        assert_eq!(
            std::fs::read_link(&pointer).unwrap(),
            Path::new("../../../blobs/abc123")
        );
        assert_eq!(repo.lookup(f.file), Some(pointer.clone()));
        assert_eq!(
            std::fs::read_to_string(tmp.path().join("models--o--m/refs/refs/pr/1")).unwrap(),
            commit
        );
        // Published again (the file changed upstream): the link is replaced.
        repo.publish(&blob, commit, f.file).unwrap();
        // A commit as the revision is found without a ref, as Python's cache has it.
        let by_commit = RepoCache::new(
            tmp.path(),
            &RepoFile {
                revision: commit,
                ..f
            },
        );
        assert_eq!(by_commit.lookup(f.file), Some(pointer));
    }
}
