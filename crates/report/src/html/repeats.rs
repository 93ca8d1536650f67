//! The "Repeats" section of report.html (`repeats.json`, of each run in a report over
//! several): each headline number's spread across the runs of each cell. The words are [`crate::repeats`]'s.

use std::fmt::Write;

use plateau_model::results::repeats::RepeatsReport;

use super::{escape, table};
use crate::per_run::PerRun;
use crate::repeats;

/// Writes the section of `runs` (at least one).
pub fn section(out: &mut String, runs: &[PerRun<RepeatsReport>]) {
    let _ = writeln!(
        out,
        "<h2 id=\"repeats\">Repeats</h2>\n<p class=\"note\">{}</p>",
        escape(&repeats::note(runs))
    );
    let (head, rows) = repeats::table(runs);
    // The cell and the metric are words; the rest numbers.
    table::write(out, Some("repeats"), &head, &rows, |_, j, _| {
        (j < 2).then_some("text")
    });
    out.push('\n');
}
