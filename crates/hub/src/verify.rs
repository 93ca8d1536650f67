//! The integrity check of a downloaded file: its size and sha256,
//! compared with the hub's ETag (the sha256 of a large LFS file, the git blob id of a small
//! one), and the removal of a damaged copy from the cache.

use std::io::Read;
use std::path::Path;

use crate::HubError;

/// A file's size and digests, and whether they match the hub's ETag.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Check {
    /// Size in bytes.
    pub bytes: u64,
    /// sha256, lowercase hex.
    pub sha256: String,
    /// The hub's ETag, when the cache knows it (the blob's name).
    pub etag: Option<String>,
    /// False when the ETag is a sha256 or a git blob id the file does not have.
    pub matches: bool,
}

/// Hashes the cached file `path` (a link into the cache's `blobs/<etag>`) and compares it
/// with its ETag.
pub fn check(path: &Path) -> Result<Check, HubError> {
    let blob = std::fs::canonicalize(path).map_err(|e| HubError::io(path, e))?;
    let etag = blob
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .filter(|n| n.chars().all(|c| c.is_ascii_hexdigit()));
    let bytes = std::fs::metadata(&blob)
        .map_err(|e| HubError::io(&blob, e))?
        .len();
    let mut sha256 = ring::digest::Context::new(&ring::digest::SHA256);
    // git's blob id: sha1 of "blob <size>\0" and the content.
    let mut git = ring::digest::Context::new(&ring::digest::SHA1_FOR_LEGACY_USE_ONLY);
    git.update(format!("blob {bytes}\0").as_bytes());
    let mut f = std::fs::File::open(&blob).map_err(|e| HubError::io(&blob, e))?;
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let n = f.read(&mut buf).map_err(|e| HubError::io(&blob, e))?;
        if n == 0 {
            break;
        }
        sha256.update(&buf[..n]);
        git.update(&buf[..n]);
    }
    let sha256 = hex(sha256.finish().as_ref());
    let matches = match etag.as_deref() {
        Some(e) if e.len() == 64 => e.eq_ignore_ascii_case(&sha256),
        Some(e) if e.len() == 40 => e.eq_ignore_ascii_case(&hex(git.finish().as_ref())),
        _ => true,
    };
    Ok(Check {
        bytes,
        sha256,
        etag,
        matches,
    })
}

/// Removes the cached file `path` and the blob it links to, so the next look-up downloads it.
pub fn remove(path: &Path) {
    if let Ok(blob) = std::fs::canonicalize(path) {
        let _ = std::fs::remove_file(blob);
    }
    let _ = std::fs::remove_file(path);
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A cache-like layout: `snapshots/c/f` -> `blobs/<etag>`, in a temp directory removed
    /// when the returned guard is dropped; the link is the second element.
    fn cached(name: &str, etag: &str, content: &[u8]) -> (tempfile::TempDir, std::path::PathBuf) {
        let tmp = tempfile::Builder::new()
            .prefix(&format!("plateau-check-{name}-"))
            .tempdir()
            .unwrap();
        let dir = tmp.path();
        std::fs::create_dir_all(dir.join("blobs")).unwrap();
        std::fs::create_dir_all(dir.join("snapshots/c")).unwrap();
        std::fs::write(dir.join("blobs").join(etag), content).unwrap();
        let link = dir.join("snapshots/c/f");
        std::os::unix::fs::symlink(format!("../../blobs/{etag}"), &link).unwrap();
        (tmp, link)
    }

    #[test]
    fn sha256_and_git_blob_etags_are_checked() {
        // `printf 'hello\n' | git hash-object --stdin` and `sha256sum`.
        let git = "ce013625030ba8dba906f756967f9e9ca394464a";
        let sha = "5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03";
        let (_git_tmp, git_link) = cached("git", git, b"hello\n");
        let c = check(&git_link).unwrap();
        assert_eq!((c.bytes, c.sha256.as_str(), c.matches), (6, sha, true));
        let (_sha_tmp, sha_link) = cached("sha", sha, b"hello\n");
        assert!(check(&sha_link).unwrap().matches);
        let (_bad_tmp, bad) = cached("bad", sha, b"hellO\n");
        assert!(!check(&bad).unwrap().matches);
        remove(&bad);
        assert!(!bad.exists() && !bad.parent().unwrap().join("../../blobs").join(sha).exists());
    }
}
