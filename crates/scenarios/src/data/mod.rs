//! Readers of the files workloads are built from: the normalised datasets under
//! `datasets/` ([`longbench`], [`oasst2`], [`sharegpt`]) and users' prompt files ([`custom`]). Every bad
//! line is an error naming the file and line and what was expected.

pub mod custom;
pub mod longbench;
pub mod oasst2;
pub mod sharegpt;

use std::io::BufRead;
use std::path::Path;

use serde::de::DeserializeOwned;

use crate::error::ScenarioError;

/// Calls `each(line_number, record)` for every non-blank line of the JSONL file at `path`;
/// `expected` describes a line for error messages.
pub fn read_jsonl<T: DeserializeOwned>(
    path: &Path,
    expected: &str,
    mut each: impl FnMut(usize, T) -> Result<(), ScenarioError>,
) -> Result<(), ScenarioError> {
    let file = std::fs::File::open(path).map_err(|e| ScenarioError::io(path, e))?;
    for (i, line) in std::io::BufReader::new(file).lines().enumerate() {
        let line = line
            .map_err(|e| ScenarioError::data(path, Some(i + 1), format!("unreadable line: {e}")))?;
        if line.trim().is_empty() {
            continue;
        }
        let record = serde_json::from_str(&line).map_err(|e| {
            ScenarioError::data(path, Some(i + 1), format!("{e}; expected {expected}"))
        })?;
        each(i + 1, record)?;
    }
    Ok(())
}
