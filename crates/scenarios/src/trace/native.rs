//! plateau's own trace format, JSON lines of [`NativeRecord`]: what `plateau trace convert`
//! writes and every other format maps onto. Unknown keys are an error (a typo must not
//! silently replay a different trace).

use std::io::Write;
use std::path::Path;

use plateau_core::workload::Message;
use serde::{Deserialize, Serialize};

use super::jsonl::{Id, object};
use super::{Input, Record};
use crate::error::ScenarioError;

/// One line of a plateau trace.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NativeRecord {
    /// Arrival, ms since the first request; may be left out on a later turn of a session
    /// that has `delay_ms`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timestamp_ms: Option<f64>,
    /// The session this request is a turn of.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    /// Its turn in the session, from 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn: Option<u32>,
    /// Prompt length in tokens (synthesised); or give `messages`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_length: Option<u32>,
    /// The prompt's messages, sent as they are; or give `input_length`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub messages: Option<Vec<Message>>,
    /// Response length in tokens (the request's `max_tokens`).
    pub output_length: u32,
    /// One id per block of `block_tokens` prompt tokens; equal ids, equal blocks.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hash_ids: Vec<u64>,
    /// Think time after the previous turn of the session, ms.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delay_ms: Option<f64>,
}

/// The same line, with a session id that may be a number.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Line {
    #[serde(default)]
    timestamp_ms: Option<f64>,
    #[serde(default)]
    session_id: Option<Id>,
    #[serde(default)]
    turn: Option<u32>,
    #[serde(default)]
    input_length: Option<u32>,
    #[serde(default)]
    messages: Option<Vec<Message>>,
    output_length: u32,
    #[serde(default)]
    hash_ids: Vec<u64>,
    #[serde(default)]
    delay_ms: Option<f64>,
}

/// A plateau line as a [`Record`].
pub(super) fn parse(line: usize, text: &str) -> Result<Record, String> {
    let l: Line = object(text)?;
    let input = match (l.input_length, l.messages) {
        (Some(n), None) => Input::Length(n),
        (None, Some(m)) if !m.is_empty() => Input::Messages(m),
        (None, Some(_)) => return Err("field `messages`: expected at least one message".into()),
        _ => {
            return Err(
                "expected exactly one of `input_length` (tokens) and `messages` (a list of {role, content})"
                    .into(),
            );
        }
    };
    for (field, value) in [("timestamp_ms", l.timestamp_ms), ("delay_ms", l.delay_ms)] {
        if let Some(v) = value.filter(|v| !v.is_finite() || *v < 0.0) {
            return Err(format!(
                "field `{field}`: {v} is not a time; expected ms, 0 or more"
            ));
        }
    }
    if l.timestamp_ms.is_none() && l.delay_ms.is_none() {
        return Err(
            "expected `timestamp_ms`, or `delay_ms` after the session's previous turn".into(),
        );
    }
    let session_id = l.session_id.map(String::from);
    if l.timestamp_ms.is_none() && session_id.is_none() {
        return Err(
            "field `delay_ms`: a record without `timestamp_ms` must name its `session_id`".into(),
        );
    }
    Ok(Record {
        line,
        timestamp_ms: l.timestamp_ms,
        input,
        output_length: l.output_length,
        hash_ids: l.hash_ids,
        session_id,
        turn: l.turn,
        delay_ms: l.delay_ms,
        model: None,
    })
}

impl From<&Record> for NativeRecord {
    fn from(r: &Record) -> NativeRecord {
        let (input_length, messages) = match &r.input {
            Input::Length(n) => (Some(*n), None),
            Input::Messages(m) => (None, Some(m.clone())),
        };
        NativeRecord {
            timestamp_ms: r.timestamp_ms,
            session_id: r.session_id.clone(),
            turn: r.turn,
            input_length,
            messages,
            output_length: r.output_length,
            hash_ids: r.hash_ids.clone(),
            delay_ms: r.delay_ms,
        }
    }
}

/// Writes `records` to `out` in plateau's format.
pub fn write(records: &[Record], out: &mut impl Write, path: &Path) -> Result<(), ScenarioError> {
    for r in records {
        let line = serde_json::to_string(&NativeRecord::from(r))
            .map_err(|e| ScenarioError::data(path, Some(r.line), e.to_string()))?;
        writeln!(out, "{line}").map_err(|e| ScenarioError::io(path, e))?;
    }
    Ok(())
}
