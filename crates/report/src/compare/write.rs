//! compare.csv (one row per matched cell x quantity, full precision) and compare.md (the
//! per-scenario tables first, then one table per matched cell); both say which rows are
//! flagged and why. Baseline first everywhere, candidates in the order given.

use std::fmt::Write;

use super::analyze::Row;
use super::runs::MatchBy;
use super::stats::ALPHA;
use super::summary::{self, FLAG_MARK};
use super::{CellResult, Comparison};
use crate::markdown::cell as md;
use crate::quantity::Better;
use crate::style::number;

/// compare.csv's columns.
pub const CSV_COLUMNS: [&str; 26] = [
    "baseline_run",
    "candidate_run",
    "scenario_load",
    "baseline_cell",
    "candidate_cell",
    "baseline_repeats",
    "candidate_repeats",
    "metric",
    "field",
    "unit",
    "better",
    "baseline",
    "candidate",
    "diff",
    "diff_pct",
    "ci_low",
    "ci_high",
    "ci_level",
    "p_value",
    "p_adjusted",
    "test",
    "verdict",
    "flagged",
    "flags",
    "baseline_small_sample",
    "candidate_small_sample",
];

/// A CSV field, quoted when it holds a comma, quote or line break.
fn quote(field: &str) -> String {
    if field.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", field.replace('"', "\"\""))
    } else {
        field.to_owned()
    }
}

fn opt(v: Option<f64>) -> String {
    v.map(|v| v.to_string()).unwrap_or_default()
}

fn better(b: Better) -> &'static str {
    match b {
        Better::Lower => "lower",
        Better::Higher => "higher",
        Better::Neither => "",
    }
}

/// How a cell was tested, in a few words.
pub fn test_name(cell: &CellResult) -> String {
    format!(
        "block bootstrap: {} s blocks ({} + {})",
        cell.block_s, cell.blocks[0], cell.blocks[1]
    )
}

/// compare.csv: a header, then one row per matched cell x quantity; absent values are
/// empty.
pub fn csv(comparisons: &[Comparison]) -> String {
    let mut out = CSV_COLUMNS.join(",");
    out.push('\n');
    for c in comparisons {
        for cell in &c.cells {
            for r in &cell.rows {
                let q = &r.metric.q;
                let t = r.test;
                let fields = [
                    c.baseline.clone(),
                    c.candidate.clone(),
                    cell.place.clone(),
                    cell.baseline.clone(),
                    cell.candidate.clone(),
                    cell.repeats[0].to_string(),
                    cell.repeats[1].to_string(),
                    q.label.to_owned(),
                    q.field.to_owned(),
                    q.unit.to_owned(),
                    better(q.better).to_owned(),
                    opt(r.baseline),
                    opt(r.candidate),
                    opt(r.diff()),
                    opt(r.diff_pct()),
                    opt(t.map(|t| t.ci[0])),
                    opt(t.map(|t| t.ci[1])),
                    opt(t.map(|t| t.level)),
                    opt(t.map(|t| t.p)),
                    opt(t.map(|t| t.p_adjusted)),
                    test_name(cell),
                    r.verdict.text().to_owned(),
                    (!r.flags.is_empty()).to_string(),
                    r.flags.join("; "),
                    r.small_sample[0].to_string(),
                    r.small_sample[1].to_string(),
                ];
                let line: Vec<String> = fields.iter().map(|f| quote(f)).collect();
                out.push_str(&line.join(","));
                out.push('\n');
            }
        }
    }
    out
}

/// Marks a side's value whose percentile rests on too few samples ([`SMALL_SAMPLE_NOTE`]).
pub const SMALL_SAMPLE_MARK: &str = "†";

/// The legend of [`SMALL_SAMPLE_MARK`] (compare.md and compare.html, when a row has it).
pub const SMALL_SAMPLE_NOTE: &str = "† this side's percentile rests on too few samples (fewer \
than 10 values expected beyond it: a p99 needs 1000 requests, or inter-token gaps for ITL, a \
p50 20), as its summary.json flags it: the row is flagged and left out of the counts.";

/// Whether any row of `comparisons` has a side marked [`SMALL_SAMPLE_MARK`].
pub fn any_small(comparisons: &[Comparison]) -> bool {
    comparisons
        .iter()
        .flat_map(|c| &c.cells)
        .flat_map(|cell| &cell.rows)
        .any(Row::small)
}

/// `baseline vllm/llama-8b/A1/c8 (×1), candidate sglang/llama-8b/A1/c8 (×1)`, how it was
/// tested, and why its rows are flagged.
pub fn sides(cell: &CellResult) -> String {
    let flags = if cell.flags.is_empty() {
        String::new()
    } else {
        format!("; flagged: {}", cell.flags.join(", "))
    };
    format!(
        "baseline {} (×{}), candidate {} (×{}); {}{flags}",
        cell.baseline,
        cell.repeats[0],
        cell.candidate,
        cell.repeats[1],
        test_name(cell)
    )
}

/// The cells of one row as the detail tables show them: quantity, baseline, candidate,
/// diff, diff %, interval, p, p (adj.), verdict; a side's value resting on too few samples
/// is marked with [`SMALL_SAMPLE_MARK`], a flagged verdict with [`FLAG_MARK`].
pub fn shown(r: &Row) -> [String; 9] {
    let n = |v: Option<f64>| v.map(number).unwrap_or_else(|| "–".into());
    let side = |v: Option<f64>, small: bool| {
        if small {
            format!("{} {SMALL_SAMPLE_MARK}", n(v))
        } else {
            n(v)
        }
    };
    let p = |v: Option<f64>| match v {
        Some(p) if p < 1e-4 => "<0.0001".to_owned(),
        Some(p) => format!("{p:.4}"),
        None => "–".into(),
    };
    let mark = if r.flags.is_empty() {
        String::new()
    } else {
        format!(" {FLAG_MARK}")
    };
    [
        r.metric.q.axis_label(),
        side(r.baseline, r.small_sample[0]),
        side(r.candidate, r.small_sample[1]),
        r.diff()
            .map(|d| format!("{}{}", if d > 0.0 { "+" } else { "" }, number(d)))
            .unwrap_or_else(|| "–".into()),
        r.diff_pct()
            .map(|d| format!("{d:+.1}%"))
            .unwrap_or_else(|| "–".into()),
        r.test
            .map(|t| format!("[{}, {}]", number(t.ci[0]), number(t.ci[1])))
            .unwrap_or_else(|| "–".into()),
        p(r.test.map(|t| t.p)),
        p(r.test.map(|t| t.p_adjusted)),
        format!("{}{mark}", r.verdict.text()),
    ]
}

/// The detail tables' headers matching [`shown`].
pub const HEADERS: [&str; 9] = [
    "quantity",
    "baseline",
    "candidate",
    "diff",
    "diff %",
    "interval of diff",
    "p",
    "p (Bonferroni)",
    "verdict",
];

/// How the numbers were tested, in a few sentences (compare.md and compare.html).
pub fn method(resamples: usize) -> String {
    format!(
        "Every quantity (percentiles and means of the measured successful requests' \
         latencies, throughputs over the measure window, error rate and goodput share) is \
         tested the same way: each side's measure windows are cut into blocks long enough \
         that their means are close to uncorrelated, a block bootstrap ({resamples} \
         resamples, fixed seed) draws whole blocks on each side, and every quantity is \
         computed from the same draw. A cell's quantities are one family: each interval is \
         at level 1 − {ALPHA}/m for the m quantities tested (Bonferroni), the p-value is \
         twice the share of resampled differences on the far side of 0, and p (Bonferroni) \
         is it times m. A verdict is better/worse exactly when the interval excludes 0, \
         which is exactly when p (Bonferroni) < {ALPHA}. diff = candidate − baseline."
    )
}

fn by(b: MatchBy) -> &'static str {
    match b {
        MatchBy::Cell => "endpoint, model, scenario and load",
        MatchBy::ScenarioLoad => {
            "scenario and load (each run has one endpoint x model, named differently)"
        }
    }
}

/// compare.md: per comparison, the per-scenario tables, then every cell's details.
pub fn markdown(comparisons: &[Comparison], unreadable: &[String], resamples: usize) -> String {
    let mut out = String::from("# plateau compare\n\n");
    for c in comparisons {
        let _ = writeln!(
            out,
            "## {} vs baseline {}\n\nMatched on {}: {} cells; {}.\n",
            md(&c.candidate),
            md(&c.baseline),
            by(c.by),
            c.cells.len(),
            c.tally().text(c.include_unsteady)
        );
        for t in summary::tables(c) {
            let _ = writeln!(out, "### {}\n", md(&t.scenario));
            let _ = writeln!(out, "| {} |", t.headers.join(" | "));
            let _ = writeln!(out, "|{}", "---|".repeat(t.headers.len()));
            for row in &t.rows {
                let row: Vec<String> = row.iter().map(|x| md(x)).collect();
                let _ = writeln!(out, "| {} |", row.join(" | "));
            }
            out.push('\n');
        }
        let _ = writeln!(out, "{}\n", md(&summary::legend(comparisons)));
        for (side, list) in [
            ("baseline", &c.only_baseline),
            ("candidate", &c.only_candidate),
        ] {
            if !list.is_empty() {
                let _ = writeln!(out, "Only in the {side}: {}\n", md(&list.join(", ")));
            }
        }
    }
    out.push_str("## How it was tested\n\n");
    let _ = writeln!(out, "{}\n", method(resamples));
    if any_small(comparisons) {
        let _ = writeln!(out, "{}\n", md(SMALL_SAMPLE_NOTE));
    }
    for c in comparisons {
        let _ = writeln!(
            out,
            "## Per-cell details: {} vs baseline {}\n",
            md(&c.candidate),
            md(&c.baseline)
        );
        for cell in &c.cells {
            let _ = writeln!(out, "### {}\n\n{}\n", md(&cell.place), md(&sides(cell)));
            let _ = writeln!(out, "| {} |", HEADERS.join(" | "));
            let _ = writeln!(out, "|{}", "---|".repeat(HEADERS.len()));
            for r in &cell.rows {
                let row: Vec<String> = shown(r).iter().map(|t| md(t)).collect();
                let _ = writeln!(out, "| {} |", row.join(" | "));
            }
            out.push('\n');
        }
    }
    if !unreadable.is_empty() {
        out.push_str("## Not compared\n\n");
        for e in unreadable {
            let _ = writeln!(out, "- {}", md(e));
        }
    }
    out
}
