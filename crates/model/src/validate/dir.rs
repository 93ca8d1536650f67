//! Checks of a whole results directory ([`check_dir`]): the run finished, every cell of
//! `run.json` has its files, every file reads, every cell passes [`check_cell`], and each
//! cell's request records match its summary ([`check_records`]).

use super::{Finding, Severity, Thresholds, cell_label, check_cell};
use crate::results::dir::ResultsDir;
use crate::results::run_info::RunStatus;
use crate::results::summary::CellSummary;
use crate::results::{ResultsError, SUMMARY_FILE, read_samples};

/// The `cell` of findings about the run as a whole.
pub const RUN: &str = "run";

/// Whether [`check_dir`] reads each cell's request records.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Records {
    /// Read every `requests.jsonl.gz` and check it against its summary.
    Count,
    /// Leave the records alone: the caller reads them and calls [`check_records`].
    Skip,
}

/// Every finding about the results in `dir`, run-level ones first, then cell by cell.
pub fn check_dir(dir: &ResultsDir, t: &Thresholds, records: Records) -> Vec<Finding> {
    let mut out = Vec::new();
    let mut add = |cell: &str, check, severity, message: String| {
        out.push(Finding {
            cell: cell.to_owned(),
            check,
            severity,
            message,
        });
    };
    match &dir.run {
        None => add(
            RUN,
            "run_info",
            Severity::Warn,
            "no run.json: cannot tell whether cells are missing".into(),
        ),
        Some(Err(e)) => add(RUN, "run_info", Severity::Fail, e.to_string()),
        Some(Ok(run)) => {
            match run.status {
                RunStatus::Complete => {}
                RunStatus::Running => add(
                    RUN,
                    "run_status",
                    Severity::Fail,
                    "run.json says the run never finished (it crashed, or is still running)".into(),
                ),
                RunStatus::Interrupted => add(
                    RUN,
                    "run_status",
                    Severity::Fail,
                    "the run was interrupted; finish it with `plateau run --resume`".into(),
                ),
                RunStatus::Failed => add(
                    RUN,
                    "run_status",
                    Severity::Fail,
                    format!(
                        "the run stopped on an error ({}); fix it and finish with `plateau run --resume`",
                        run.reason.as_deref().unwrap_or("no reason recorded")
                    ),
                ),
            }
            for cell in &dir.cells {
                if !run.cells.iter().any(|e| e.path == cell.rel) {
                    add(
                        &cell.rel,
                        "not_in_run",
                        Severity::Warn,
                        "not a cell of the run in run.json (left from an earlier run?)".into(),
                    );
                }
            }
        }
    }
    for missing in dir.missing() {
        add(
            &missing.rel,
            "missing",
            Severity::Fail,
            format!("no {SUMMARY_FILE}: {}", missing.why),
        );
    }
    for e in &dir.skipped {
        add(RUN, "not_followed", Severity::Fail, e.to_string());
    }
    for w in &dir.warnings {
        add(RUN, "newer_version", Severity::Warn, w.clone());
    }
    for cell in &dir.cells {
        match &cell.summary {
            Err(e) => out.push(Finding {
                cell: cell.rel.clone(),
                check: "summary",
                severity: Severity::Fail,
                message: e.to_string(),
            }),
            Ok(s) => {
                out.extend(check_cell(s, t));
                if records == Records::Count && s.records.write_error.is_none() {
                    let read = read_samples(&cell.dir.join(&s.records.file)).map(|v| v.len());
                    out.extend(check_records(s, read.as_ref().map(|n| *n)));
                }
            }
        }
    }
    out
}

/// The finding, if any, about a cell's request records: `read` is how many records its
/// `requests.jsonl.gz` held, or why it could not be read.
pub fn check_records(s: &CellSummary, read: Result<usize, &ResultsError>) -> Option<Finding> {
    let message = match read {
        Err(e) => e.to_string(),
        Ok(n) if n as u64 != s.records.count => format!(
            "{} holds {n} records; the summary counted {}",
            s.records.file, s.records.count
        ),
        Ok(_) => return None,
    };
    Some(Finding {
        cell: cell_label(s),
        check: "records",
        severity: Severity::Fail,
        message,
    })
}
