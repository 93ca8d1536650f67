//! The findings at the end of a run, one line per kind: which check, how many cells, the
//! first few of them in natural order, and one example message; a check folded into one
//! finding about the run (it fired on every cell) is that finding's line. The details of every
//! finding are in `plateau validate` and the report.

use plateau_model::validate::{Finding, RUN, Severity};

/// Cells named on a line before the rest are counted.
const NAMED: usize = 3;

/// One line per (severity, check) of `findings`, failures first, each check in the order it
/// first appears.
pub fn grouped(findings: &[Finding]) -> Vec<(Severity, String)> {
    let mut kinds: Vec<(Severity, &str)> = Vec::new();
    for f in findings {
        if !kinds.contains(&(f.severity, f.check)) {
            kinds.push((f.severity, f.check));
        }
    }
    kinds.sort_by_key(|&(severity, _)| std::cmp::Reverse(severity));
    kinds
        .into_iter()
        .map(|(severity, check)| {
            let these: Vec<&Finding> = findings
                .iter()
                .filter(|f| f.severity == severity && f.check == check)
                .collect();
            let mut cells: Vec<&str> = these.iter().map(|f| f.cell.as_str()).collect();
            cells.sort_by(|a, b| plateau_model::natural::cmp(a, b));
            cells.dedup();
            let mut named = cells
                .iter()
                .take(NAMED)
                .copied()
                .collect::<Vec<_>>()
                .join(", ");
            if cells.len() > NAMED {
                named.push_str(&format!(" and {} more", cells.len() - NAMED));
            }
            let noun = if cells.len() == 1 { "cell" } else { "cells" };
            let example = these[0];
            if cells == [RUN] {
                return (severity, format!("{check} {}", example.message));
            }
            (
                severity,
                format!(
                    "{check} in {} {noun} ({named}); e.g. {}: {}",
                    cells.len(),
                    example.cell,
                    example.message
                ),
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finding(cell: &str, check: &'static str, severity: Severity) -> Finding {
        Finding {
            cell: cell.into(),
            check,
            severity,
            message: format!("{check} at {cell}"),
        }
    }

    #[test]
    fn one_line_per_kind_failures_first_cells_in_natural_order() {
        let w = Severity::Warn;
        let findings = [
            finding("s/m/A1/c16", "small_sample", w),
            finding("s/m/A1/c4", "small_sample", w),
            finding("s/m/A1/c1", "small_sample", w),
            finding("s/m/B1/c1", "small_sample", w),
            finding("s/m/B1/c8", "synthetic_data", w),
            finding("s/m/A1/c8", "error_rate", Severity::Fail),
            Finding {
                cell: RUN.into(),
                check: "busy_machine",
                severity: w,
                message: "in every cell (4); e.g. s/m/A1/c1: others".into(),
            },
        ];
        let lines = grouped(&findings);
        assert_eq!(
            lines,
            [
                (
                    Severity::Fail,
                    "error_rate in 1 cell (s/m/A1/c8); e.g. s/m/A1/c8: error_rate at s/m/A1/c8"
                        .to_owned()
                ),
                (
                    w,
                    "small_sample in 4 cells (s/m/A1/c1, s/m/A1/c4, s/m/A1/c16 and 1 more); \
                     e.g. s/m/A1/c16: small_sample at s/m/A1/c16"
                        .to_owned()
                ),
                (
                    w,
                    "synthetic_data in 1 cell (s/m/B1/c8); e.g. s/m/B1/c8: synthetic_data at s/m/B1/c8"
                        .to_owned()
                ),
                (
                    w,
                    "busy_machine in every cell (4); e.g. s/m/A1/c1: others".to_owned()
                ),
            ]
        );
    }
}
