//! What the history keeps of a run ([`RunRecord`]), read from its results directory: the
//! run's identity, plateau version, host and endpoints (server info, labels, hardware),
//! and per cell its config fingerprint, scenario, load, status, steady verdict and the
//! compared quantities with their intervals, with the path to the raw results.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use plateau_model::results::dir::ResultsDir;
use plateau_model::results::run_info::RunInfo;
use plateau_model::results::summary::{CellStatus, CellSummary};
use plateau_report::compare::metric::METRICS;

use crate::HistoryError;

/// One run as the history keeps it.
#[derive(Clone, Debug)]
pub struct RunRecord {
    /// What makes the run the same run wherever its files are: its start time and host.
    pub key: String,
    /// The results directory (absolute).
    pub path: PathBuf,
    /// When it started.
    pub started_at: DateTime<Utc>,
    /// How it ended (`complete`, `failed`, ...).
    pub status: String,
    /// plateau version that ran it.
    pub plateau_version: String,
    /// `run.json`'s `host`, as JSON.
    pub host: serde_json::Value,
    /// `run.json`'s `endpoints` (server info, labels, hardware), as JSON.
    pub endpoints: serde_json::Value,
    /// The labels given with `--label` over the endpoints' own labels.
    pub labels: BTreeMap<String, String>,
    /// Its cells.
    pub cells: Vec<CellRecord>,
}

/// One cell (one repeat) of a run.
#[derive(Clone, Debug, PartialEq)]
pub struct CellRecord {
    /// Path relative to the results directory.
    pub rel: String,
    /// Endpoint name.
    pub endpoint: String,
    /// Model id.
    pub model: String,
    /// Scenario id.
    pub scenario: String,
    /// The load, as its directory is named (`c8`, `r2.5`).
    pub load: String,
    /// Repeat number.
    pub repeat: u32,
    /// The config fingerprint's hash (absent in summaries older than fingerprints).
    pub fingerprint: Option<String>,
    /// `complete` or `failed`.
    pub status: String,
    /// Steady verdict.
    pub steady: bool,
    /// Overloaded verdict.
    pub overloaded: bool,
    /// `(summary field, value, interval)` of every compared quantity the summary has.
    pub values: Vec<(String, f64, Option<[f64; 2]>)>,
}

impl RunRecord {
    /// Reads the run in `dir`; `labels` are added to (and override) the endpoints' labels.
    pub fn read(dir: &Path, labels: &[(String, String)]) -> Result<RunRecord, HistoryError> {
        let bad = |why: String| HistoryError::Results {
            path: dir.to_owned(),
            why,
        };
        let path = std::path::absolute(dir).map_err(|e| bad(e.to_string()))?;
        let results = ResultsDir::read(&path).map_err(|e| bad(e.to_string()))?;
        let info: &RunInfo = match &results.run {
            Some(Ok(info)) => info,
            Some(Err(e)) => return Err(bad(format!("run.json cannot be read: {e}"))),
            None => return Err(bad("no run.json: not a plateau results directory".into())),
        };
        let cells: Vec<CellRecord> = results
            .cells
            .iter()
            .filter_map(|c| c.summary.as_ref().ok().map(|s| cell(&c.rel, s)))
            .collect();
        if cells.is_empty() {
            return Err(bad("no readable cell summary".into()));
        }
        let mut all: BTreeMap<String, String> = info
            .endpoints
            .iter()
            .flat_map(|e| e.labels.clone())
            .collect();
        all.extend(labels.iter().cloned());
        let json = |v: serde_json::Result<serde_json::Value>| v.map_err(|e| bad(e.to_string()));
        Ok(RunRecord {
            key: format!(
                "{}@{}",
                info.started_at
                    .to_rfc3339_opts(chrono::SecondsFormat::Nanos, true),
                info.host.hostname
            ),
            path,
            started_at: info.started_at,
            status: enum_text(&info.status),
            plateau_version: info.plateau_version.clone(),
            host: json(serde_json::to_value(&info.host))?,
            endpoints: json(serde_json::to_value(&info.endpoints))?,
            labels: all,
            cells,
        })
    }
}

/// A unit enum's serde name (`complete`).
fn enum_text<T: serde::Serialize>(v: &T) -> String {
    match serde_json::to_value(v) {
        Ok(serde_json::Value::String(s)) => s,
        Ok(other) => other.to_string(),
        Err(e) => e.to_string(),
    }
}

fn cell(rel: &str, s: &CellSummary) -> CellRecord {
    let values = METRICS
        .iter()
        .filter_map(|m| {
            let r = (m.q.read)(s)?;
            Some((m.q.field.to_owned(), r.value, r.ci))
        })
        .collect();
    CellRecord {
        rel: rel.to_owned(),
        endpoint: s.cell.endpoint.clone(),
        model: s.cell.model.clone(),
        scenario: s.cell.scenario.clone(),
        load: s
            .cell
            .load
            .load()
            .map(|l| l.dir_name())
            .unwrap_or_else(|| "unknown".into()),
        repeat: s.cell.repeat,
        fingerprint: s.fingerprint.as_ref().map(|f| f.hash.clone()),
        status: match s.status {
            CellStatus::Complete => "complete".into(),
            _ => enum_text(&s.status),
        },
        steady: s.metrics.steady.steady,
        overloaded: s.metrics.steady.overloaded,
        values,
    }
}
