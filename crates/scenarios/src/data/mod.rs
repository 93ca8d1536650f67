//! Readers of the files workloads are built from: the normalised datasets under
//! `datasets/` ([`longbench`], [`oasst2`], [`sharegpt`]) and users' prompt files ([`custom`]). Every bad
//! line is an error naming the file and line and what was expected.

pub mod custom;
pub mod longbench;
pub mod oasst2;
pub mod sharegpt;

use std::io::{BufRead, Read};
use std::path::Path;

use serde::de::DeserializeOwned;

use crate::error::ScenarioError;

/// Calls `each(line_number, record)` for every non-blank line of the JSONL file at `path`;
/// `expected` describes a line for error messages.
pub fn read_jsonl<T: DeserializeOwned>(
    path: &Path,
    expected: &str,
    each: impl FnMut(usize, T) -> Result<(), ScenarioError>,
) -> Result<(), ScenarioError> {
    read_jsonl_capped(path, expected, usize::MAX, |_| String::new(), each)
}

/// [`read_jsonl`], reading at most `max_line` bytes of any line: a longer line is the error
/// `too_long(line_number)` says, found before the rest of the line is read (a 1 GB line
/// costs what its first `max_line` bytes do).
pub fn read_jsonl_capped<T: DeserializeOwned>(
    path: &Path,
    expected: &str,
    max_line: usize,
    too_long: impl Fn(usize) -> String,
    mut each: impl FnMut(usize, T) -> Result<(), ScenarioError>,
) -> Result<(), ScenarioError> {
    let file = std::fs::File::open(path).map_err(|e| ScenarioError::io(path, e))?;
    let mut reader = std::io::BufReader::new(file);
    let mut buf = Vec::new();
    for n in 1.. {
        buf.clear();
        let limit = u64::try_from(max_line)
            .unwrap_or(u64::MAX)
            .saturating_add(1);
        let read = (&mut reader)
            .take(limit)
            .read_until(b'\n', &mut buf)
            .map_err(|e| ScenarioError::data(path, Some(n), format!("unreadable line: {e}")))?;
        if read == 0 {
            break;
        }
        if buf.len() > max_line && buf.last() != Some(&b'\n') {
            return Err(ScenarioError::data(path, Some(n), too_long(n)));
        }
        let line = std::str::from_utf8(&buf).map_err(|e| {
            ScenarioError::data(path, Some(n), format!("unreadable line: not UTF-8 ({e})"))
        })?;
        if line.trim().is_empty() {
            continue;
        }
        let record = serde_json::from_str(line)
            .map_err(|e| ScenarioError::data(path, Some(n), format!("{e}; expected {expected}")))?;
        each(n, record)?;
    }
    Ok(())
}
