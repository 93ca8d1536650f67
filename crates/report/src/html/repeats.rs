//! The "Repeats" section of report.html (`repeats.json`, of each run in a report over
//! several): each headline number's spread across the runs of each cell. The words are [`crate::repeats`]'s.

use std::fmt::Write;

use plateau_model::results::repeats::RepeatsReport;

use super::escape;
use crate::per_run::PerRun;
use crate::repeats;

/// Writes the section of `runs` (at least one).
pub fn section(out: &mut String, runs: &[PerRun<RepeatsReport>]) {
    let _ = writeln!(
        out,
        "<h2 id=\"repeats\">Repeats</h2>\n<p class=\"note\">{}</p>\n\
         <div class=\"scroll\"><table class=\"repeats\">\n<tr>",
        escape(&repeats::note(runs))
    );
    let (head, rows) = repeats::table(runs);
    for h in &head {
        let _ = write!(out, "<th>{}</th>", escape(h));
    }
    out.push_str("</tr>\n");
    for row in rows {
        out.push_str("<tr>");
        for (i, text) in row.iter().enumerate() {
            let class = if i < 2 { " class=\"text\"" } else { "" };
            let _ = write!(out, "<td{class}>{}</td>", escape(text));
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</table></div>\n");
}
