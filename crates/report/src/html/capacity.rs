//! The "Capacity" section that opens report.html when a run searched for capacity
//! (`capacity.json`, of each run in a report over several): the SLO, a card per search with
//! its answer, and its probes table, then a card per session scenario with its answer in
//! concurrent sessions and its cells table. The words are [`crate::capacity`]'s.

use std::fmt::Write;

use plateau_model::results::capacity::CapacityReport;

use super::{escape, table};
use crate::capacity::{self, session_rates, sessions};
use crate::per_run::PerRun;

/// Writes the section of `runs` (at least one).
pub fn section(out: &mut String, runs: &[PerRun<CapacityReport>]) {
    let _ = writeln!(
        out,
        "<h2 id=\"capacity\">Capacity</h2>\n<p class=\"note\">The highest request rate each \
         endpoint, model and scenario sustained within the SLO ({}), found by probing open-loop \
         rates; each probe is a full cell, listed under Summary and Per-cell results.</p>",
        escape(&capacity::slo_of(runs))
    );
    for (report, s) in capacity::searches(runs) {
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
        out.push_str("</table>\n");
        let (head, rows) = capacity::probes(s);
        verdicts(out, "probes", &head, &rows);
        out.push_str("</div>\n");
    }
    concurrent(out, runs);
    rates(out, runs);
}

/// The cards of the answers in concurrent sessions, when a run has any.
fn concurrent(out: &mut String, runs: &[PerRun<CapacityReport>]) {
    if sessions::answers(runs).next().is_none() {
        return;
    }
    out.push_str(
        "<h3 id=\"capacity-sessions\">In concurrent sessions</h3>\n<p class=\"note\">For \
         each session scenario, the most concurrent sessions of the closed-loop sweep whose \
         turns met the SLO (p99 over the measured turns) in a steady, complete cell, below \
         every N that failed.</p>\n",
    );
    for (report, s) in sessions::answers(runs) {
        let _ = writeln!(
            out,
            "<div class=\"card\" data-sessions=\"{}\"><h3>{}: {}</h3>\n<table class=\"meta\">",
            escape(&sessions::title(s)),
            escape(&sessions::title(s)),
            escape(&sessions::headline(s))
        );
        for (label, text) in sessions::facts(report, s) {
            let _ = writeln!(out, "<tr><th>{label}</th><td>{}</td></tr>", escape(&text));
        }
        out.push_str("</table>\n");
        let (head, rows) = sessions::cells(s);
        verdicts(out, "session-cells", &head, &rows);
        out.push_str("</div>\n");
    }
}

/// The cards of the answers in session arrivals, when a run has any.
fn rates(out: &mut String, runs: &[PerRun<CapacityReport>]) {
    if session_rates::answers(runs).next().is_none() {
        return;
    }
    out.push_str(
        "<h3 id=\"capacity-session-rates\">In session arrivals</h3>\n<p class=\"note\">For \
         each session scenario swept in the open loop of sessions, the highest offered session \
         start rate whose turns met the SLO in a complete, steady cell that was not overloaded, \
         below every rate that failed.</p>\n",
    );
    for (report, s) in session_rates::answers(runs) {
        let _ = writeln!(
            out,
            "<div class=\"card\" data-session-rates=\"{}\"><h3>{}: {}</h3>\n<table class=\"meta\">",
            escape(&session_rates::title(s)),
            escape(&session_rates::title(s)),
            escape(&session_rates::headline(s))
        );
        for (label, text) in session_rates::facts(report, s) {
            let _ = writeln!(out, "<tr><th>{label}</th><td>{}</td></tr>", escape(&text));
        }
        out.push_str("</table>\n");
        let (head, rows) = session_rates::cells(s);
        verdicts(out, "session-cells", &head, &rows);
        out.push_str("</div>\n");
    }
}

/// A table of judged loads (probes, or session cells): failures red, passes green; the
/// status and the cell path are words.
fn verdicts(out: &mut String, class: &str, head: &[String], rows: &[Vec<String>]) {
    let last = head.len() - 1;
    table::write(out, Some(class), head, rows, |_, j, text| match text {
        "NO" | "overloaded" | "unsteady" => Some("text NO"),
        _ if j == 0 => None,
        "yes" => Some("text yes"),
        _ if j == last || j == 1 => Some("text"),
        _ => None,
    });
}
