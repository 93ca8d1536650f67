//! Request traces: the upstream formats (Mooncake JSONL, BurstGPT CSV, Azure LLM inference
//! CSV) and plateau's own JSONL read into one [`Record`] list ([`read`]), their statistics
//! ([`stats`]), conversion to the native format ([`native::write`]), and the prompts
//! synthesised from each record's lengths and `hash_ids` ([`synth`]).

mod jsonl;
mod native;
pub mod stats;
pub mod synth;
mod table;

use std::path::Path;

use plateau_core::workload::Message;
use serde::{Deserialize, Serialize};

use crate::error::ScenarioError;

pub use native::{NativeRecord, write};

/// A trace file's format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Format {
    /// Mooncake (FAST'25) JSONL: `timestamp` (ms since the first request), `input_length`,
    /// `output_length`, `hash_ids`, optional `session_id`.
    Mooncake,
    /// BurstGPT CSV: `Timestamp` (s), `Model`, `Request tokens`, `Response tokens`,
    /// `Total tokens`, `Log Type`.
    Burstgpt,
    /// Azure LLM inference CSV: `TIMESTAMP` (date and time), `ContextTokens`,
    /// `GeneratedTokens`.
    Azure,
    /// plateau's JSONL ([`NativeRecord`]).
    Plateau,
}

impl Format {
    /// Every format, in documentation order.
    pub const ALL: [Format; 4] = [
        Format::Mooncake,
        Format::Burstgpt,
        Format::Azure,
        Format::Plateau,
    ];

    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Format::Mooncake => "mooncake",
            Format::Burstgpt => "burstgpt",
            Format::Azure => "azure",
            Format::Plateau => "plateau",
        }
    }
}

impl std::str::FromStr for Format {
    type Err = String;

    fn from_str(s: &str) -> Result<Format, String> {
        Format::ALL
            .into_iter()
            .find(|f| f.as_str() == s)
            .ok_or_else(|| {
                let names: Vec<&str> = Format::ALL.iter().map(|f| f.as_str()).collect();
                format!("unknown trace format `{s}`; expected {}", names.join(", "))
            })
    }
}

/// What a request of a trace sends: a length to synthesise, or recorded messages.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Input {
    /// A prompt of this many tokens.
    Length(u32),
    /// These messages (plateau's format only).
    Messages(Vec<Message>),
}

/// One request of a trace, whatever its format.
#[derive(Clone, Debug, PartialEq)]
pub struct Record {
    /// Its 1-based line in the file (errors and `convert` name it).
    pub line: usize,
    /// When it arrived, ms since the trace's first request; `None` for a later turn of a
    /// session timed by `delay_ms` alone (plateau's format).
    pub timestamp_ms: Option<f64>,
    /// What it sends.
    pub input: Input,
    /// Tokens the response had (the request's `max_tokens`).
    pub output_length: u32,
    /// One id per block of `block_tokens` prompt tokens; equal ids mean equal blocks.
    pub hash_ids: Vec<u64>,
    /// The session it belongs to, where the trace says.
    pub session_id: Option<String>,
    /// Its turn in the session, from 0, where the trace says.
    pub turn: Option<u32>,
    /// Think time after the previous turn of its session, ms (plateau's format).
    pub delay_ms: Option<f64>,
    /// The model the trace recorded (BurstGPT), kept for `stats`.
    pub model: Option<String>,
}

impl Record {
    /// The prompt length: the recorded `input_length`, or `None` for recorded messages
    /// (measured in the run's tokenizer when the prompt is built).
    pub fn input_length(&self) -> Option<u32> {
        match self.input {
            Input::Length(n) => Some(n),
            Input::Messages(_) => None,
        }
    }
}

/// Reads the trace at `path` in `format`: its records in file order, timestamps relative to
/// the earliest one. An error names the file, the line and the field.
pub fn read(path: &Path, format: Format) -> Result<Vec<Record>, ScenarioError> {
    let mut records = match format {
        Format::Mooncake => jsonl::read(path, jsonl::mooncake)?,
        Format::Plateau => jsonl::read(path, native::parse)?,
        Format::Burstgpt => table::read(path, &table::BURSTGPT)?,
        Format::Azure => table::read(path, &table::AZURE)?,
    };
    if records.is_empty() {
        return Err(ScenarioError::data(path, None, "the trace has no records"));
    }
    chain_delays(&mut records, path)?;
    let first = records
        .iter()
        .filter_map(|r| r.timestamp_ms)
        .fold(f64::INFINITY, f64::min);
    if first.is_finite() {
        for r in &mut records {
            r.timestamp_ms = r.timestamp_ms.map(|t| t - first);
        }
    }
    Ok(records)
}

/// Gives a record timed by `delay_ms` alone the time of its session's previous record plus
/// the delay (plateau's format); a first turn without a time is an error naming its line.
fn chain_delays(records: &mut [Record], path: &Path) -> Result<(), ScenarioError> {
    let mut last: std::collections::HashMap<String, f64> = std::collections::HashMap::new();
    for r in records.iter_mut() {
        let session = r.session_id.clone().unwrap_or_default();
        if r.timestamp_ms.is_none() {
            let before = last.get(&session).ok_or_else(|| {
                ScenarioError::data(
                    path,
                    Some(r.line),
                    format!(
                        "field `timestamp_ms`: required here, as no earlier record of session `{session}` gives the time `delay_ms` counts from"
                    ),
                )
            })?;
            r.timestamp_ms = Some(before + r.delay_ms.unwrap_or(0.0));
        }
        if let Some(t) = r.timestamp_ms {
            last.insert(session, t);
        }
    }
    Ok(())
}

/// The records of `records` that arrived in `[start_s, start_s + duration_s)` of trace
/// time, in arrival order (stable), with their instants since the window's start divided
/// by `speedup`.
pub fn window(
    records: &[Record],
    start_s: f64,
    duration_s: Option<f64>,
    speedup: f64,
) -> Vec<(std::time::Duration, Record)> {
    let (from, to) = (
        start_s * 1e3,
        duration_s.map_or(f64::INFINITY, |d| (start_s + d) * 1e3),
    );
    let mut picked: Vec<(f64, &Record)> = records
        .iter()
        .filter_map(|r| r.timestamp_ms.map(|t| (t, r)))
        .filter(|(t, _)| *t >= from && *t < to)
        .collect();
    picked.sort_by(|a, b| a.0.total_cmp(&b.0));
    picked
        .into_iter()
        .map(|(t, r)| {
            let at = std::time::Duration::from_secs_f64((t - from) / 1e3 / speedup);
            (at, r.clone())
        })
        .collect()
}

#[cfg(test)]
mod tests;
