//! The JSON-lines trace formats: one JSON object per line, blank lines skipped; Mooncake's
//! record shape here, plateau's in [`super::native`]. A bad line is an error naming the
//! file, the line and the field (serde_path_to_error).

use std::io::BufRead;
use std::path::Path;

use serde::Deserialize;
use serde::de::DeserializeOwned;

use super::{Input, Record};
use crate::error::ScenarioError;

/// Reads every non-blank line of `path` through `parse(line_number, text)`.
pub(super) fn read(
    path: &Path,
    parse: fn(usize, &str) -> Result<Record, String>,
) -> Result<Vec<Record>, ScenarioError> {
    let file = std::fs::File::open(path).map_err(|e| ScenarioError::io(path, e))?;
    let mut records = Vec::new();
    for (i, line) in std::io::BufReader::new(file).lines().enumerate() {
        let line = line.map_err(|e| ScenarioError::io(path, e))?;
        if line.trim().is_empty() {
            continue;
        }
        let record = parse(i + 1, &line).map_err(|m| ScenarioError::data(path, Some(i + 1), m))?;
        records.push(record);
    }
    Ok(records)
}

/// `text` as a `T`, an error naming the field that failed.
pub(super) fn object<T: DeserializeOwned>(text: &str) -> Result<T, String> {
    let mut de = serde_json::Deserializer::from_str(text);
    serde_path_to_error::deserialize(&mut de).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner();
        if path == "." {
            format!("{inner}")
        } else {
            format!("field `{path}`: {inner}")
        }
    })
}

/// A session id as a trace writes it: a string or a number.
#[derive(Deserialize)]
#[serde(untagged)]
pub(super) enum Id {
    Text(String),
    Number(u64),
}

impl From<Id> for String {
    fn from(id: Id) -> String {
        match id {
            Id::Text(s) => s,
            Id::Number(n) => n.to_string(),
        }
    }
}

/// One line of a Mooncake trace (other keys, as some variants carry, are ignored).
#[derive(Deserialize)]
struct Mooncake {
    /// ms since the first request.
    timestamp: f64,
    input_length: u32,
    output_length: u32,
    #[serde(default)]
    hash_ids: Vec<u64>,
    #[serde(default)]
    session_id: Option<Id>,
}

/// A Mooncake line as a [`Record`].
pub(super) fn mooncake(line: usize, text: &str) -> Result<Record, String> {
    let m: Mooncake = object(text)?;
    if !m.timestamp.is_finite() || m.timestamp < 0.0 {
        return Err(format!(
            "field `timestamp`: {} is not a time; expected ms since the first request (0 or more)",
            m.timestamp
        ));
    }
    Ok(Record {
        line,
        timestamp_ms: Some(m.timestamp),
        input: Input::Length(m.input_length),
        output_length: m.output_length,
        hash_ids: m.hash_ids,
        session_id: m.session_id.map(String::from),
        turn: None,
        delay_ms: None,
        model: None,
    })
}
