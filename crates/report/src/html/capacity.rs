//! The "Capacity" section that opens report.html when a run searched for capacity
//! (`capacity.json`, of each run in a report over several): the SLO, a card per search with
//! its answer, and its probes table. The words are [`crate::capacity`]'s.

use std::fmt::Write;

use plateau_model::results::capacity::CapacityReport;

use super::escape;
use crate::capacity;
use crate::per_run::PerRun;

/// Writes the section of `runs` (at least one).
pub fn section(out: &mut String, runs: &[PerRun<CapacityReport>]) {
    let _ = writeln!(
        out,
        "<h2 id=\"capacity\">Capacity</h2>\n<p class=\"note\">The highest request rate each \
         endpoint, model and scenario sustained within the SLO ({}), found by probing open-loop \
         rates; each probe is a full cell, listed under Results.</p>",
        escape(&capacity::slo_of(runs))
    );
    for (report, s) in runs
        .iter()
        .flat_map(|r| r.file.searches.iter().map(move |s| (&r.file, s)))
    {
        let _ = writeln!(
            out,
            "<div class=\"card\" data-search=\"{}\"><h3>{}: {}</h3>\n<table class=\"meta\">",
            escape(&capacity::title(s)),
            escape(&capacity::title(s)),
            escape(&capacity::headline(s))
        );
        for (label, text) in capacity::facts(report, s) {
            let _ = writeln!(out, "<tr><th>{label}</th><td>{}</td></tr>", escape(&text));
        }
        out.push_str("</table>\n<div class=\"scroll\"><table class=\"probes\">\n<tr>");
        let (head, rows) = capacity::probes(s);
        for h in &head {
            let _ = write!(out, "<th>{}</th>", escape(h));
        }
        out.push_str("</tr>\n");
        for row in rows {
            out.push_str("<tr>");
            for (i, text) in row.iter().enumerate() {
                let class = match text.as_str() {
                    "NO" | "overloaded" => " class=\"text NO\"",
                    _ if i == 0 => "",
                    "yes" => " class=\"text yes\"",
                    _ if i == row.len() - 1 || i == 1 => " class=\"text\"",
                    _ => "",
                };
                let _ = write!(out, "<td{class}>{}</td>", escape(text));
            }
            out.push_str("</tr>\n");
        }
        out.push_str("</table></div></div>\n");
    }
}
