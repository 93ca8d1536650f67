//! compare.csv (one row per matched cell x metric, full precision) and compare.md (one
//! table per matched cell, numbers as the report writes them); both say which side's
//! percentile rests on too few samples. Baseline first everywhere, candidates in the order
//! given.

use std::fmt::Write;

use super::analyze::{ALPHA, Row};
use super::runs::MatchBy;
use super::{CellResult, Comparison, RESAMPLES};
use crate::markdown::cell as md;
use crate::quantity::Better;
use crate::style::number;

/// compare.csv's columns.
pub const CSV_COLUMNS: [&str; 23] = [
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
    "p_value",
    "p_holm",
    "test",
    "verdict",
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

/// compare.csv: a header, then one row per matched cell x metric; absent values are empty.
pub fn csv(comparisons: &[Comparison]) -> String {
    let mut out = CSV_COLUMNS.join(",");
    out.push('\n');
    for c in comparisons {
        for cell in &c.cells {
            for r in &cell.rows {
                let q = &r.metric.q;
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
                    opt(r.ci.map(|c| c[0])),
                    opt(r.ci.map(|c| c[1])),
                    opt(r.p),
                    opt(r.p_holm),
                    r.test.to_owned(),
                    r.verdict.text().to_owned(),
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
p50 20), as its summary.json flags it: read the difference and the verdict of that row as a \
guide only.";

/// Whether any row of `comparisons` has a side marked [`SMALL_SAMPLE_MARK`].
pub fn any_small(comparisons: &[Comparison]) -> bool {
    comparisons
        .iter()
        .flat_map(|c| &c.cells)
        .flat_map(|cell| &cell.rows)
        .any(Row::small)
}

/// `baseline vllm/llama-8b/A1/c8 (×1), candidate sglang/llama-8b/A1/c8 (×1)`.
pub fn sides(cell: &CellResult) -> String {
    format!(
        "baseline {} (×{}), candidate {} (×{})",
        cell.baseline, cell.repeats[0], cell.candidate, cell.repeats[1]
    )
}

/// The cells of one row as the tables show them: metric, baseline, candidate, diff, diff
/// %, 95% CI, p, p (Holm), verdict; a side's value resting on too few samples is marked
/// with [`SMALL_SAMPLE_MARK`].
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
        r.ci.map(|[l, h]| format!("[{}, {}]", number(l), number(h)))
            .unwrap_or_else(|| "–".into()),
        p(r.p),
        p(r.p_holm),
        r.verdict.text().to_owned(),
    ]
}

/// The table headers matching [`shown`].
pub const HEADERS: [&str; 9] = [
    "metric",
    "baseline",
    "candidate",
    "diff",
    "diff %",
    "95% CI of diff",
    "p",
    "p (Holm)",
    "verdict",
];

/// How the numbers were tested, in a few sentences (compare.md and compare.html).
pub fn method() -> String {
    format!(
        "Latency percentiles: per-request values of the measured (started in the measure \
         window) successful requests; p-value from a Mann-Whitney U test (normal approximation, \
         tie-corrected), 95% CI of the percentile difference from a percentile bootstrap \
         ({RESAMPLES} resamples, fixed seed). Throughputs: Welch's t-test over the repeats when \
         both runs have two or more, else over the per-second counts inside the measure window \
         (seconds are not independent: read that p-value as a guide). Error rate and goodput \
         share: two-proportion z-test. p is raw; p (Holm) is adjusted across the metrics of a \
         cell. A verdict is better/worse only when p (Holm) < {ALPHA} and the CI excludes 0; \
         diff = candidate − baseline."
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

/// compare.md.
pub fn markdown(comparisons: &[Comparison], unreadable: &[String]) -> String {
    let mut out = String::from("# plateau compare\n\n");
    let _ = writeln!(out, "{}\n", method());
    if any_small(comparisons) {
        let _ = writeln!(out, "{}\n", md(SMALL_SAMPLE_NOTE));
    }
    for c in comparisons {
        let [better, worse, same, untested] = c.tally();
        let _ = writeln!(
            out,
            "## {} vs baseline {}\n\nMatched on {}: {} cells; {better} better, {worse} worse, \
             {same} no significant difference, {untested} not tested.\n",
            md(&c.candidate),
            md(&c.baseline),
            by(c.by),
            c.cells.len()
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
        for (side, list) in [
            ("baseline", &c.only_baseline),
            ("candidate", &c.only_candidate),
        ] {
            if !list.is_empty() {
                let _ = writeln!(out, "Only in the {side}: {}\n", md(&list.join(", ")));
            }
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
