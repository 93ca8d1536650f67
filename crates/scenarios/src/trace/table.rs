//! The CSV trace formats, read by column name (the header row) with the `csv` crate:
//! BurstGPT (`Timestamp` in s) and Azure's LLM inference traces (`TIMESTAMP` as a date and
//! time). A missing column names the columns found; a bad cell names its line and column.

use std::path::Path;

use chrono::{DateTime, NaiveDateTime};

use super::{Input, Record};
use crate::error::ScenarioError;

/// How a format's time column counts.
#[derive(Clone, Copy, Debug)]
enum Clock {
    /// Seconds since the trace's start (a decimal number).
    Seconds,
    /// A date and time (`2023-11-16 18:15:46.6805900`, optionally with an offset).
    DateTime,
}

/// A CSV format's columns.
#[derive(Debug)]
pub(super) struct Columns {
    /// Every column the format's header must have.
    required: &'static [&'static str],
    time: (&'static str, Clock),
    input: &'static str,
    output: &'static str,
    model: Option<&'static str>,
}

/// BurstGPT (`BurstGPT_*.csv`).
pub(super) const BURSTGPT: Columns = Columns {
    required: &[
        "Timestamp",
        "Model",
        "Request tokens",
        "Response tokens",
        "Total tokens",
        "Log Type",
    ],
    time: ("Timestamp", Clock::Seconds),
    input: "Request tokens",
    output: "Response tokens",
    model: Some("Model"),
};

/// Azure LLM inference traces (`AzureLLMInferenceTrace_*.csv`).
pub(super) const AZURE: Columns = Columns {
    required: &["TIMESTAMP", "ContextTokens", "GeneratedTokens"],
    time: ("TIMESTAMP", Clock::DateTime),
    input: "ContextTokens",
    output: "GeneratedTokens",
    model: None,
};

/// Reads the CSV trace at `path` with `columns`.
pub(super) fn read(path: &Path, columns: &Columns) -> Result<Vec<Record>, ScenarioError> {
    let mut reader = csv::ReaderBuilder::new()
        .trim(csv::Trim::All)
        .from_path(path)
        .map_err(|e| csv_error(path, e))?;
    let headers = reader.headers().map_err(|e| csv_error(path, e))?.clone();
    let index = |name: &str| headers.iter().position(|h| h == name);
    for name in columns.required {
        if index(name).is_none() {
            let found: Vec<&str> = headers.iter().collect();
            return Err(ScenarioError::data(
                path,
                Some(1),
                format!(
                    "no column `{name}`; expected the columns {}, found {}",
                    columns.required.join(", "),
                    found.join(", ")
                ),
            ));
        }
    }
    let at = |name: &str| index(name).unwrap_or(usize::MAX);
    let (time, input, output) = (at(columns.time.0), at(columns.input), at(columns.output));
    let model = columns.model.map(at);
    let mut records = Vec::new();
    // Dates are kept in µs since the first row's (an f64 of ms since 1970 keeps 0.24 µs).
    let mut base_us = None;
    for row in reader.records() {
        let row = row.map_err(|e| csv_error(path, e))?;
        let line = row.position().map_or(0, |p| p.line() as usize);
        let cell = |i: usize, name: &str| {
            row.get(i).ok_or_else(|| {
                ScenarioError::data(path, Some(line), format!("column `{name}` is missing"))
            })
        };
        let bad = |name: &str, value: &str, expected: &str| {
            ScenarioError::data(
                path,
                Some(line),
                format!("column `{name}`: `{value}` is not {expected}"),
            )
        };
        let tokens = |i: usize, name: &str| -> Result<u32, ScenarioError> {
            let v = cell(i, name)?;
            v.parse::<u32>()
                .map_err(|_| bad(name, v, "a token count (a whole number, 0 or more)"))
        };
        let (time_name, clock) = columns.time;
        let t = cell(time, time_name)?;
        let timestamp_ms = parse_time(t, clock, &mut base_us)
            .ok_or_else(|| bad(time_name, t, clock.expected()))?;
        records.push(Record {
            line,
            timestamp_ms: Some(timestamp_ms),
            input: Input::Length(tokens(input, columns.input)?),
            output_length: tokens(output, columns.output)?,
            hash_ids: Vec::new(),
            session_id: None,
            turn: None,
            delay_ms: None,
            model: model.and_then(|i| row.get(i)).map(str::to_owned),
        });
    }
    Ok(records)
}

impl Clock {
    fn expected(self) -> &'static str {
        match self {
            Clock::Seconds => "a time in seconds (a number, 0 or more)",
            Clock::DateTime => "a date and time such as `2023-11-16 18:15:46.6805900`",
        }
    }
}

/// `value` in ms: seconds since the trace's start, or a date since `base_us` (the first
/// date read, set by it).
fn parse_time(value: &str, clock: Clock, base_us: &mut Option<i64>) -> Option<f64> {
    match clock {
        Clock::Seconds => value
            .parse::<f64>()
            .ok()
            .filter(|s| s.is_finite() && *s >= 0.0)
            .map(|s| s * 1e3),
        Clock::DateTime => {
            let utc = DateTime::parse_from_str(value, "%Y-%m-%d %H:%M:%S%.f%:z")
                .or_else(|_| DateTime::parse_from_rfc3339(value))
                .map(|d| d.to_utc())
                .or_else(|_| {
                    NaiveDateTime::parse_from_str(value, "%Y-%m-%d %H:%M:%S%.f")
                        .map(|d| d.and_utc())
                })
                .ok()?;
            let us = utc.timestamp_micros();
            let base = *base_us.get_or_insert(us);
            Some((us - base) as f64 / 1e3)
        }
    }
}

/// A CSV reading error, with the line where the crate knows it.
fn csv_error(path: &Path, e: csv::Error) -> ScenarioError {
    let line = e.position().map(|p| p.line() as usize);
    match e.into_kind() {
        csv::ErrorKind::Io(io) => ScenarioError::io(path, io),
        kind => ScenarioError::data(path, line, format!("not a valid CSV row: {kind:?}")),
    }
}
