//! `--resume`: whether the results a cell left on disk can stand for it now. Only a
//! readable summary of the current layout, status `complete`, with the same fingerprint,
//! whole request records and at least one measured success is reused; anything else is
//! redone, with one log line saying why. `--redo` also redoes reusable cells that were
//! unsteady, or failed a check ([`Redo`]).

use std::path::Path;

use serde_json::Value;

use plateau_model::results::fingerprint::{self, Fingerprint};
use plateau_model::results::run_info::CellEntry;
use plateau_model::results::summary::{CellSummary, SCHEMA_VERSION};
use plateau_model::results::{REQUESTS_FILE, SUMMARY_FILE, read_json};
use plateau_model::validate::{self, Severity, Thresholds};

/// Reusable cells to run again anyway (`--resume --redo ...`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Redo {
    /// Cells whose measure window was not steady.
    Unsteady,
    /// Cells that failed any check (unsteady included), as `plateau run` judged them.
    Failed,
}

impl Redo {
    /// Why `summary` is redone under this choice; `None` when it stands.
    fn applies(self, summary: &CellSummary) -> Option<String> {
        match self {
            Redo::Unsteady => (!summary.metrics.steady.steady
                && !summary.metrics.steady.overloaded)
                .then(|| "it was unsteady (--redo unsteady)".to_owned()),
            Redo::Failed => {
                let failed: Vec<&str> = validate::check_cell(summary, &Thresholds::default())
                    .into_iter()
                    .filter(|f| f.severity == Severity::Fail)
                    .map(|f| f.check)
                    .collect();
                (!failed.is_empty())
                    .then(|| format!("it failed {} (--redo failed)", failed.join(", ")))
            }
        }
    }
}

/// What to do with a cell's earlier results.
#[derive(Debug)]
pub(super) enum Verdict {
    /// Nothing there: run it.
    Fresh,
    /// Results there, but they cannot stand for the cell now: run it again, for this reason.
    Redo(String),
    /// Finished with the same inputs: keep this summary.
    Reuse(Box<CellSummary>),
}

/// The earlier summary of the cell in `dir` when it can be reused and `redo` does not
/// take it; otherwise `None`, with
/// the reason logged and kept in `entry` when there was something to redo.
pub(super) fn reuse(
    dir: &Path,
    now: &Fingerprint,
    redo: &[Redo],
    entry: &mut CellEntry,
) -> Option<CellSummary> {
    let verdict = match check(dir, now) {
        Verdict::Reuse(s) => match redo.iter().find_map(|r| r.applies(&s)) {
            Some(reason) => Verdict::Redo(reason),
            None => Verdict::Reuse(s),
        },
        other => other,
    };
    match verdict {
        Verdict::Reuse(summary) => Some(*summary),
        Verdict::Fresh => None,
        Verdict::Redo(reason) => {
            tracing::warn!("redoing {}: {reason}", entry.path);
            entry.redone = Some(reason);
            None
        }
    }
}

/// Judges the results in `dir` against the fingerprint of what the cell would run `now`.
pub(super) fn check(dir: &Path, now: &Fingerprint) -> Verdict {
    let path = dir.join(SUMMARY_FILE);
    if !path.exists() {
        return if dir.exists() {
            Verdict::Redo(format!("no {SUMMARY_FILE} (the cell never finished)"))
        } else {
            Verdict::Fresh
        };
    }
    let raw: Value = match read_json(&path) {
        Ok(v) => v,
        Err(e) => return Verdict::Redo(format!("unreadable {SUMMARY_FILE} ({e})")),
    };
    match why_not(&raw, now) {
        Some(reason) => Verdict::Redo(reason),
        None => match serde_json::from_value::<CellSummary>(raw) {
            Ok(summary) => match records_problem(dir, &summary) {
                Some(reason) => Verdict::Redo(reason),
                None => Verdict::Reuse(Box::new(summary)),
            },
            Err(e) => Verdict::Redo(format!("unreadable {SUMMARY_FILE} ({e})")),
        },
    }
}

/// Why a summary (as JSON, so that statuses and layouts this build does not know still
/// read) cannot be reused, judged on its layout, status and fingerprint.
fn why_not(raw: &Value, now: &Fingerprint) -> Option<String> {
    let version = raw.get("schema_version").and_then(Value::as_u64);
    if version != Some(u64::from(SCHEMA_VERSION)) {
        return Some(format!(
            "{SUMMARY_FILE} has layout version {}, this plateau writes {SCHEMA_VERSION}",
            version.map_or("(none)".into(), |v| v.to_string())
        ));
    }
    match raw.get("status").and_then(Value::as_str) {
        Some("complete") => {}
        Some(other) => return Some(format!("status was {other}")),
        None => return Some("no status".into()),
    }
    let stored = match raw.get("fingerprint") {
        None | Some(Value::Null) => {
            return Some("no fingerprint (written by an older plateau)".into());
        }
        Some(f) => f,
    };
    let stored_hash = stored.get("hash").and_then(Value::as_str).unwrap_or("");
    if stored_hash == now.hash {
        return None;
    }
    let current = serde_json::to_value(&now.inputs).unwrap_or(Value::Null);
    let changed = fingerprint::differences(stored.get("inputs").unwrap_or(&Value::Null), &current);
    Some(if changed.is_empty() {
        format!("fingerprint {stored_hash} -> {}", now.hash)
    } else {
        changed.join(", ")
    })
}

/// Why a complete summary's request records or outcome do not make a usable cell.
fn records_problem(dir: &Path, s: &CellSummary) -> Option<String> {
    if let Some(e) = &s.records.write_error {
        return Some(format!("its request records were not fully written ({e})"));
    }
    if !dir.join(REQUESTS_FILE).is_file() {
        return Some(format!("{REQUESTS_FILE} is missing"));
    }
    let r = &s.metrics.requests;
    if r.measured_ok == 0 && !s.metrics.steady.overloaded {
        return Some(format!(
            "no measured request succeeded ({} of {} failed)",
            r.measured_errors, r.measured
        ));
    }
    None
}

#[cfg(test)]
mod tests;
