//! A cell's verdict as every table row writes it ([`verdict`]): one word, or the checks it
//! failed, so a row never reads "steady" beside a failure the findings list; and
//! [`fold_run_wide`], which turns a check that fired on every cell into one finding about
//! the run.

use super::{Finding, RUN, Severity, Thresholds, check_cell};
use crate::results::summary::{CellStatus, CellSummary};

/// What a table row says about its cell.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verdict {
    /// `steady`, `overloaded`, `interrupted`, `failed`, or `FAIL ` and the failed checks
    /// (`FAIL unsteady, client_bottleneck`).
    pub word: String,
    /// Why, for a tooltip or a parenthesis: the failed checks' messages; empty when steady.
    pub why: String,
    /// Whether the cell failed a check (its numbers should not be trusted as they are).
    pub failed: bool,
}

/// The verdict of `s` under `t`: the same checks as [`check_cell`], so a row and the
/// findings always agree.
pub fn verdict(s: &CellSummary, t: &Thresholds) -> Verdict {
    let fails: Vec<Finding> = check_cell(s, t)
        .into_iter()
        .filter(|f| f.severity == Severity::Fail)
        .collect();
    let why = fails
        .iter()
        .map(|f| format!("{}: {}", f.check, f.message))
        .collect::<Vec<_>>()
        .join("; ");
    let word = match s.status {
        CellStatus::Interrupted => "interrupted".to_owned(),
        CellStatus::Failed => "failed".to_owned(),
        _ if !fails.is_empty() => {
            let checks: Vec<&str> = fails.iter().map(|f| f.check).collect();
            format!("FAIL {}", checks.join(", "))
        }
        _ if s.metrics.steady.overloaded => "overloaded".to_owned(),
        _ => "steady".to_owned(),
    };
    let why = if why.is_empty() && s.metrics.steady.overloaded {
        s.metrics.steady.reasons.join("; ")
    } else {
        why
    };
    Verdict {
        word,
        why,
        failed: !fails.is_empty(),
    }
}

/// `findings` of `cells` cells with each check that fired on every one of them (at least
/// two) folded into one finding about the run: cell [`RUN`], the check's severity, and
/// "in every cell (N); e.g. CELL: MESSAGE" with the first cell's message. Other findings
/// are kept as they are, in order; a folded one takes the place of its first.
pub fn fold_run_wide(findings: Vec<Finding>, cells: usize) -> Vec<Finding> {
    if cells < 2 {
        return findings;
    }
    let fires_everywhere = |check: &str, severity: Severity| {
        let mut hit: Vec<&str> = findings
            .iter()
            .filter(|f| f.check == check && f.severity == severity && f.cell != RUN)
            .map(|f| f.cell.as_str())
            .collect();
        hit.sort_unstable();
        hit.dedup();
        hit.len() == cells
    };
    let folded: Vec<(&'static str, Severity)> = findings
        .iter()
        .filter(|f| fires_everywhere(f.check, f.severity))
        .map(|f| (f.check, f.severity))
        .fold(Vec::new(), |mut v, k| {
            if !v.contains(&k) {
                v.push(k);
            }
            v
        });
    let mut out = Vec::new();
    let mut done: Vec<(&str, Severity)> = Vec::new();
    for f in &findings {
        let key = (f.check, f.severity);
        if !folded.contains(&key) || f.cell == RUN {
            out.push(f.clone());
        } else if !done.contains(&key) {
            done.push(key);
            out.push(Finding {
                cell: RUN.to_owned(),
                check: f.check,
                severity: f.severity,
                message: format!("in every cell ({cells}); e.g. {}: {}", f.cell, f.message),
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finding(cell: &str, check: &'static str, severity: Severity) -> Finding {
        Finding {
            cell: cell.into(),
            check,
            severity,
            message: format!("{check} here"),
        }
    }

    #[test]
    fn a_check_on_every_cell_is_one_finding_about_the_run() {
        let w = Severity::Warn;
        let findings = vec![
            finding("a/c1", "small_sample", w),
            finding("a/c1", "synthetic_data", w),
            finding("a/c4", "small_sample", w),
            finding("a/c4", "error_rate", Severity::Fail),
            finding("a/c16", "small_sample", w),
        ];
        let folded = fold_run_wide(findings.clone(), 3);
        assert_eq!(
            folded,
            vec![
                Finding {
                    cell: RUN.into(),
                    check: "small_sample",
                    severity: w,
                    message: "in every cell (3); e.g. a/c1: small_sample here".into(),
                },
                finding("a/c1", "synthetic_data", w),
                finding("a/c4", "error_rate", Severity::Fail),
            ]
        );
        // Four cells: small_sample missed one, so every finding stays.
        assert_eq!(fold_run_wide(findings.clone(), 4), findings);
        // One cell: "every cell" says nothing more than the finding.
        let one = vec![finding("a/c1", "small_sample", w)];
        assert_eq!(fold_run_wide(one.clone(), 1), one);
    }
}
