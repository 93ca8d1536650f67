//! The summary table of report.html ([`crate::tables::summary`]): a row per cell, scenario
//! by scenario (the scenario named once beside its rows), its load, the numbers a user
//! quotes ([`crate::tables::SUMMARY_COLUMNS`]) and its verdict. summary.md writes the same
//! rows and columns; summary.csv has every one of these numbers in full precision.

use std::fmt::Write;

use plateau_model::validate::Thresholds;

use super::{cells, escape};
use crate::matrix::Matrix;
use crate::tables::{self, SUMMARY_COLUMNS};

/// Writes the section (nothing when there are no cells).
pub fn section(out: &mut String, m: &Matrix, thresholds: &Thresholds) {
    let scenarios = tables::summary(m);
    if scenarios.is_empty() {
        return;
    }
    let series = scenarios
        .iter()
        .flat_map(|(_, rows)| rows)
        .any(|r| r.series.is_some());
    out.push_str(
        "<h2 id=\"summary\">Summary</h2>\n<p class=\"note\">One row per cell. Latencies in ms \
         over the requests started in the measure window, server throughput in output \
         tokens/s, errors among the measured requests; <i>italic</i>: a percentile from too \
         few samples. Every other column is under Per-cell results.</p>\n\
         <div class=\"scroll\"><table class=\"summary\">\n<tr><th class=\"text\">scenario</th>",
    );
    if series {
        out.push_str("<th class=\"text\">series</th>");
    }
    out.push_str("<th class=\"text\">load</th>");
    for q in &SUMMARY_COLUMNS {
        let _ = write!(out, "<th>{}</th>", escape(&tables::header(q)));
    }
    out.push_str("<th class=\"text\">verdict</th></tr>\n");
    for (scenario, rows) in &scenarios {
        for (i, row) in rows.iter().enumerate() {
            let first = if i == 0 { " class=\"first\"" } else { "" };
            let _ = write!(out, "<tr data-cell=\"{}\"{first}>", escape(row.rel));
            if i == 0 {
                let _ = write!(
                    out,
                    "<td class=\"scenario\" rowspan=\"{}\">{}</td>",
                    rows.len(),
                    escape(&scenario.title())
                );
            }
            if series {
                let _ = write!(
                    out,
                    "<td class=\"text\">{}</td>",
                    escape(row.series.unwrap_or(""))
                );
            }
            let _ = write!(out, "<td class=\"text\">{}</td>", row.load);
            for q in &SUMMARY_COLUMNS {
                cells::value(out, q, row.summary);
            }
            cells::verdict(out, &tables::verdict(row.summary, thresholds));
            out.push_str("</tr>\n");
        }
    }
    out.push_str("</table></div>\n");
}
