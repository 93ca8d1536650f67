//! The tables compare.md and compare.html open with: one per scenario, a row per load, a
//! column per headline quantity ([`metric::HEADLINE`]), each entry the difference in % of
//! the baseline with its interval and verdict (`+4.1% [+2.0, +6.3] better`), flagged rows
//! marked and their reasons in the last column.

use super::analyze::{Row, Verdict};
use super::metric::{self, HEADLINE};
use super::{CellResult, Comparison};
use crate::style::number;

/// Marks an entry left out of the better/worse counts (its reasons in the row's flags).
pub const FLAG_MARK: &str = "‡";

/// One scenario's table.
#[derive(Clone, Debug, PartialEq)]
pub struct Table {
    /// The scenario id.
    pub scenario: String,
    /// The column headers: `load`, each headline quantity, `flags`.
    pub headers: Vec<String>,
    /// One row per load: its label, one entry per headline quantity, its flags.
    pub rows: Vec<Vec<String>>,
    /// Each entry's verdict, for colouring (`None` in the first and last columns).
    pub verdicts: Vec<Vec<Option<Verdict>>>,
}

/// The tables of `c`, scenarios in the order their cells come.
pub fn tables(c: &Comparison) -> Vec<Table> {
    let mut out: Vec<Table> = Vec::new();
    for cell in &c.cells {
        let at = match out.iter().position(|t| t.scenario == cell.scenario) {
            Some(at) => at,
            None => {
                let mut headers = vec!["load".to_owned()];
                headers.extend(HEADLINE.iter().map(|q| q.axis_label()));
                headers.push("flags".to_owned());
                out.push(Table {
                    scenario: cell.scenario.clone(),
                    headers,
                    rows: Vec::new(),
                    verdicts: Vec::new(),
                });
                out.len() - 1
            }
        };
        let (row, verdicts) = line(cell);
        out[at].rows.push(row);
        out[at].verdicts.push(verdicts);
    }
    out
}

/// A load's row: label, one entry per headline quantity, flags.
fn line(cell: &CellResult) -> (Vec<String>, Vec<Option<Verdict>>) {
    let mut row = vec![cell.load.to_string()];
    let mut verdicts = vec![None];
    let mut flags: Vec<String> = Vec::new();
    for q in HEADLINE {
        let found = cell.rows.iter().find(|r| r.metric.q.field == q.field);
        row.push(found.map_or_else(|| "–".to_owned(), entry));
        verdicts.push(found.map(|r| r.verdict));
        for f in found.map(|r| r.flags.as_slice()).unwrap_or_default() {
            if !flags.contains(f) {
                flags.push(f.clone());
            }
        }
    }
    row.push(flags.join(", "));
    verdicts.push(None);
    (row, verdicts)
}

/// `+4.1% [+2.0, +6.3] better`: the difference and its interval in % of the baseline (in
/// the quantity's unit when the baseline is 0), then the verdict; `‡` when flagged.
pub fn entry(r: &Row) -> String {
    let signed = |v: f64| format!("{}{}", if v > 0.0 { "+" } else { "" }, number(v));
    let diff = match (r.diff_pct(), r.diff()) {
        (Some(p), _) => format!("{p:+.1}%"),
        (None, Some(d)) => format!("{} {}", signed(d), r.metric.q.unit),
        (None, None) => "–".to_owned(),
    };
    let ci = match (r.ci_pct(), r.test) {
        (Some([lo, hi]), _) => format!(" [{lo:+.1}, {hi:+.1}]"),
        (None, Some(t)) => format!(" [{}, {}]", signed(t.ci[0]), signed(t.ci[1])),
        (None, None) => String::new(),
    };
    let word = match r.verdict {
        Verdict::Same => "same",
        v => v.text(),
    };
    let mark = if r.flags.is_empty() {
        String::new()
    } else {
        format!(" {FLAG_MARK}")
    };
    format!("{diff}{ci} {word}{mark}")
}

/// The legend under the tables.
pub fn legend(comparisons: &[Comparison]) -> String {
    let level = comparisons
        .iter()
        .flat_map(|c| &c.cells)
        .flat_map(|cell| &cell.rows)
        .find_map(|r| r.test.map(|t| t.level));
    format!(
        "Each entry: candidate − baseline in % of the baseline, [its interval]{}, and the \
         verdict (\"same\": no significant difference). {FLAG_MARK}: left out of the \
         better/worse counts (the flags column says why). Columns: {}.",
        level.map_or(String::new(), |l| format!(
            " at {:.2}% (95% for the cell's quantities together, Bonferroni)",
            l * 100.0
        )),
        metric::HEADLINE
            .iter()
            .map(|q| q.label)
            .collect::<Vec<_>>()
            .join(", ")
    )
}
