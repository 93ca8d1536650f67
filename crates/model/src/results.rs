//! Result files (SPEC section 7): names and layout, atomic writes (temp file + rename),
//! and reading them back with errors that name the file and line. The types written are
//! [`summary::CellSummary`] (`summary.json`), [`run_info::RunInfo`] (`run.json`),
//! [`crate::sample::Sample`] lines (`requests.jsonl.gz`) and [`csv`] (`summary.csv`);
//! [`dir::ResultsDir`] reads a whole results directory back.

pub mod capacity;
pub mod claim;
pub mod cost;
pub mod csv;
pub mod dir;
pub mod fingerprint;
pub mod health;
pub mod merge;
pub mod repeats;
pub mod run_info;
pub mod server_info;
pub mod summary;
pub mod token_check;
pub mod version;
pub mod walk;
pub mod workload;

use std::fs::{self, File};
use std::io::{self, BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};

use flate2::read::MultiGzDecoder;
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::sample::Sample;

/// Per-cell summary file name.
pub const SUMMARY_FILE: &str = "summary.json";
/// Per-cell request records file name.
pub const REQUESTS_FILE: &str = "requests.jsonl.gz";
/// Run metadata file name.
pub const RUN_FILE: &str = "run.json";
/// One-row-per-cell table file name.
pub const CSV_FILE: &str = "summary.csv";

/// A result file that could not be written or read.
#[derive(Debug, thiserror::Error)]
pub enum ResultsError {
    /// Reading or writing failed. The OS error is part of the message, not a `source`, so
    /// that printing the chain (`{:#}`) names it once.
    #[error("{path}: {error}")]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        error: io::Error,
    },
    /// The content is not what plateau writes.
    #[error("{path}{}: {message}", line.map(|l| format!(" line {l}")).unwrap_or_default())]
    Format {
        /// The file.
        path: PathBuf,
        /// 1-based line, for JSON lines files.
        line: Option<usize>,
        /// What was wrong.
        message: String,
    },
}

impl ResultsError {
    /// `path` could not be read or written.
    pub fn io(path: &Path, error: io::Error) -> Self {
        ResultsError::Io {
            path: path.to_owned(),
            error,
        }
    }
}

/// Checks that results can be written into `dir` (creating it): not a file, not
/// read-only, before any time is spent on a run.
pub fn check_writable(dir: &Path) -> Result<(), ResultsError> {
    if dir.exists() && !dir.is_dir() {
        return Err(ResultsError::io(
            dir,
            io::Error::other("exists and is not a directory"),
        ));
    }
    fs::create_dir_all(dir).map_err(|e| ResultsError::io(dir, e))?;
    let probe = dir.join(".plateau-write-check");
    write_atomic(&probe, b"")?;
    fs::remove_file(&probe).map_err(|e| ResultsError::io(&probe, e))
}

/// Writes `bytes` to `path` so that readers see the old file or the whole new one, never a
/// part: a temp file in the same directory, synced, then renamed over `path`.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), ResultsError> {
    let dir = path.parent().unwrap_or(Path::new("."));
    fs::create_dir_all(dir).map_err(|e| ResultsError::io(dir, e))?;
    let tmp = temp_path(path);
    let write = || -> io::Result<()> {
        let mut f = File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        fs::rename(&tmp, path)
    };
    write().map_err(|e| {
        let _ = fs::remove_file(&tmp);
        ResultsError::io(path, e)
    })
}

/// Writes `value` as pretty JSON, atomically.
pub fn write_json(path: &Path, value: &impl Serialize) -> Result<(), ResultsError> {
    let mut bytes = serde_json::to_vec_pretty(value).map_err(|e| ResultsError::Format {
        path: path.to_owned(),
        line: None,
        message: e.to_string(),
    })?;
    bytes.push(b'\n');
    write_atomic(path, &bytes)
}

/// Reads a JSON file (not through a symbolic link: [`walk::open_file`]).
pub fn read_json<T: DeserializeOwned>(path: &Path) -> Result<T, ResultsError> {
    parse_json(path, &read_bytes(path)?)
}

/// The bytes of the file at `path`, unless it is a symbolic link.
pub fn read_bytes(path: &Path) -> Result<Vec<u8>, ResultsError> {
    let mut bytes = Vec::new();
    walk::open_file(path)?
        .read_to_end(&mut bytes)
        .map_err(|e| ResultsError::io(path, e))?;
    Ok(bytes)
}

/// `bytes`, read from `path`, as JSON; an error names the file and line.
pub fn parse_json<T: DeserializeOwned>(path: &Path, bytes: &[u8]) -> Result<T, ResultsError> {
    serde_json::from_slice(bytes).map_err(|e| ResultsError::Format {
        path: path.to_owned(),
        line: Some(e.line()),
        message: e.to_string(),
    })
}

/// Reads a JSON file that may be absent: `None` when there is nothing at `path` (a link
/// there is an error, not an absence).
pub fn read_json_if_present<T: DeserializeOwned>(path: &Path) -> Result<Option<T>, ResultsError> {
    match fs::symlink_metadata(path) {
        Ok(_) => read_json(path).map(Some),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(ResultsError::io(path, e)),
    }
}

/// The temp name `path` is written under before the rename.
pub fn temp_path(path: &Path) -> PathBuf {
    let mut name = path
        .file_name()
        .map(|n| n.to_os_string())
        .unwrap_or_default();
    name.push(".tmp");
    path.with_file_name(name)
}

/// Writes `samples` as a `requests.jsonl.gz` at `path`, atomically.
pub fn write_samples(path: &Path, samples: &[Sample]) -> Result<(), ResultsError> {
    write_jsonl_gz(path, samples)
}

/// Writes `items` as gzipped JSON lines at `path`, atomically (a temp file renamed over
/// it): request records, server scrapes, GPU samples.
pub fn write_jsonl_gz<T: Serialize>(path: &Path, items: &[T]) -> Result<(), ResultsError> {
    let io = |e: io::Error| ResultsError::io(path, e);
    let tmp = temp_path(path);
    let file = std::fs::File::create(&tmp).map_err(io)?;
    let mut gz =
        flate2::write::GzEncoder::new(io::BufWriter::new(file), flate2::Compression::fast());
    for s in items {
        serde_json::to_writer(&mut gz, s).map_err(|e| io(e.into()))?;
        gz.write_all(b"\n").map_err(io)?;
    }
    gz.finish().and_then(|mut w| w.flush()).map_err(io)?;
    std::fs::rename(&tmp, path).map_err(io)
}

/// Reads every sample of a `requests.jsonl.gz`.
pub fn read_samples(path: &Path) -> Result<Vec<Sample>, ResultsError> {
    read_jsonl_gz(path)
}

/// Reads every line of a gzipped JSON-lines file (`requests.jsonl.gz`,
/// `server_metrics.jsonl.gz`), naming the line that does not decode.
pub fn read_jsonl_gz<T: DeserializeOwned>(path: &Path) -> Result<Vec<T>, ResultsError> {
    let file = walk::open_file(path)?;
    let reader = BufReader::new(MultiGzDecoder::new(BufReader::new(file)));
    let mut out = Vec::new();
    for (i, line) in reader.lines().enumerate() {
        let line = line.map_err(|e| ResultsError::io(path, e))?;
        if line.trim().is_empty() {
            continue;
        }
        let item = serde_json::from_str(&line).map_err(|e| ResultsError::Format {
            path: path.to_owned(),
            line: Some(i + 1),
            message: e.to_string(),
        })?;
        out.push(item);
    }
    Ok(out)
}

/// Every directory under `root` holding a `summary.json`, in natural order (`c4` before
/// `c16`), found without following a link ([`walk::walk`]).
pub fn find_cells(root: &Path) -> Result<Vec<PathBuf>, ResultsError> {
    Ok(walk::walk(root)?.cells)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atomic_write_replaces_and_leaves_no_temp() {
        let tmp = tempfile::Builder::new()
            .prefix("plateau-atomic-")
            .tempdir()
            .unwrap();
        let dir = tmp.path();
        let path = dir.join("a/b/x.json");
        write_atomic(&path, b"one").unwrap();
        write_atomic(&path, b"two").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"two");
        assert!(!temp_path(&path).exists());
    }

    #[test]
    fn an_output_path_that_is_a_file_is_not_writable() {
        let tmp = tempfile::Builder::new()
            .prefix("plateau-writable-")
            .tempdir()
            .unwrap();
        let dir = tmp.path();
        let file = dir.join("file");
        check_writable(&dir.join("new/sub")).unwrap();
        assert_eq!(fs::read_dir(dir.join("new/sub")).unwrap().count(), 0);
        fs::write(&file, b"x").unwrap();
        let err = check_writable(&file).unwrap_err();
        assert_eq!(
            err.to_string(),
            format!("{}: exists and is not a directory", file.display())
        );
        assert!(std::error::Error::source(&err).is_none(), "said once");
        let err = check_writable(&file.join("below")).unwrap_err().to_string();
        assert!(err.contains("file/below: Not a directory"), "{err}");
    }

    #[test]
    fn bad_lines_are_named() {
        use flate2::Compression;
        use flate2::write::GzEncoder;
        let tmp = tempfile::Builder::new()
            .prefix("plateau-lines-")
            .tempdir()
            .unwrap();
        let dir = tmp.path();
        let path = dir.join(REQUESTS_FILE);
        let mut gz = GzEncoder::new(File::create(&path).unwrap(), Compression::fast());
        gz.write_all(b"\n{\"not\": \"a sample\"}\n").unwrap();
        gz.finish().unwrap();
        let err = read_samples(&path).unwrap_err().to_string();
        assert!(
            err.contains("requests.jsonl.gz line 2: missing field"),
            "{err}"
        );
    }
}
