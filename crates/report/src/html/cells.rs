//! The per-cell results tables of report.html ([`crate::tables::groups`]): every column of
//! every cell, one table per scenario and loop, each folded in a `<details>` below the
//! figures. [`value`] and [`verdict`] write a cell of these tables and of the summary
//! table alike: the value as the registry writes it, with its field and full-precision
//! value as data attributes, italic when it rests on too few samples.

use std::fmt::Write;

use plateau_model::results::summary::CellSummary;
use plateau_model::validate::{Thresholds, Verdict};

use super::escape;
use crate::matrix::Matrix;
use crate::quantity::Quantity;
use crate::tables;

/// Writes the section.
pub fn section(out: &mut String, m: &Matrix, thresholds: &Thresholds) {
    out.push_str(
        "<h2 id=\"results\">Per-cell results</h2>\n<p class=\"note\">Every column of every \
         cell. Latencies in ms over the requests started in the measure window; throughputs \
         in output tokens/s. <i>Italic</i>: a percentile from too few samples (p99 below \
         1000). jitter = ITL p99 / ITL p50. Open loop: latencies from the intended send; \
         schedule lag and queue are the client's share; an overloaded cell's percentiles say \
         only how long its window was. Open a table to see it.</p>\n",
    );
    for g in tables::groups(m) {
        let _ = writeln!(
            out,
            "<details class=\"fold\"><summary>{}: {} cell(s)</summary>\n\
             <div class=\"scroll\"><table>\n<tr>",
            escape(&g.title()),
            g.rows.len()
        );
        if g.rows.iter().any(|r| r.series.is_some()) {
            out.push_str("<th class=\"text\">series</th>");
        }
        for q in &g.columns {
            let _ = write!(out, "<th>{}</th>", escape(&tables::header(q)));
        }
        if g.open {
            out.push_str("<th class=\"text\">overloaded</th>");
        }
        out.push_str("<th class=\"text\">verdict</th></tr>\n");
        for row in &g.rows {
            let _ = write!(out, "<tr data-cell=\"{}\">", escape(row.rel));
            if let Some(series) = row.series {
                let _ = write!(out, "<td class=\"text\">{}</td>", escape(series));
            }
            for q in &g.columns {
                value(out, q, row.summary);
            }
            if g.open {
                let (word, why) = tables::overloaded(row.summary);
                let class = if word == "no" { "" } else { " NO" };
                let _ = write!(
                    out,
                    "<td class=\"text{class}\" title=\"{}\">{word}</td>",
                    escape(&why)
                );
            }
            verdict(out, &tables::verdict(row.summary, thresholds));
            out.push_str("</tr>\n");
        }
        out.push_str("</table></div></details>\n");
    }
}

/// A table cell of `q` in `s`: its text, its field and full-precision value as data
/// attributes (a dash without a value), italic when from too few samples.
pub fn value(out: &mut String, q: &Quantity, s: &CellSummary) {
    match ((q.read)(s), q.text(s)) {
        (Some(r), Some(text)) => {
            let class = if r.small_sample {
                " class=\"small\""
            } else {
                ""
            };
            let _ = write!(
                out,
                "<td data-field=\"{}\" data-value=\"{}\"{class}>{}</td>",
                q.field,
                r.value,
                escape(&text)
            );
        }
        _ => {
            let _ = write!(out, "<td data-field=\"{}\">–</td>", q.field);
        }
    }
}

/// A verdict cell: the word (`FAIL <checks>`, `overloaded`, `steady`, ...), red when the
/// cell failed a check or did not finish, the reasons on hover.
pub fn verdict(out: &mut String, v: &Verdict) {
    let class = if flagged(v) {
        "NO"
    } else if v.word == "overloaded" {
        "overloaded"
    } else {
        "yes"
    };
    let _ = write!(
        out,
        "<td class=\"text {class}\" title=\"{}\">{}</td>",
        escape(&v.why),
        escape(&v.word)
    );
}

/// Whether the verdict is red: the cell failed a check, was interrupted or failed.
pub fn flagged(v: &Verdict) -> bool {
    v.failed || matches!(v.word.as_str(), "interrupted" | "failed")
}
