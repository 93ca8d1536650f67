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
        let card = Card {
            attr: "search",
            title: capacity::title(s),
            headline: capacity::headline(s),
            facts: capacity::facts(report, s),
            class: "probes",
            table: capacity::probes(s),
        };
        card.write(out);
    }
    let concurrent = sessions::answers(runs).map(|(report, s)| Card {
        attr: "sessions",
        title: sessions::title(s),
        headline: sessions::headline(s),
        facts: sessions::facts(report, s),
        class: "session-cells",
        table: sessions::cells(s),
    });
    answers(
        out,
        "<h3 id=\"capacity-sessions\">In concurrent sessions</h3>\n<p class=\"note\">For \
         each session scenario, the most concurrent sessions of the closed-loop sweep whose \
         turns met the SLO (p99 over the measured turns) in a steady, complete cell, below \
         every N that failed.</p>\n",
        concurrent,
    );
    let rates = session_rates::answers(runs).map(|(report, s)| Card {
        attr: "session-rates",
        title: session_rates::title(s),
        headline: session_rates::headline(s),
        facts: session_rates::facts(report, s),
        class: "session-cells",
        table: session_rates::cells(s),
    });
    answers(
        out,
        "<h3 id=\"capacity-session-rates\">In session arrivals</h3>\n<p class=\"note\">For \
         each session scenario swept in the open loop of sessions, the highest offered session \
         start rate whose turns met the SLO in a complete, steady cell that was not overloaded, \
         below every rate that failed.</p>\n",
        rates,
    );
}

/// One answer's card: `data-{attr}` naming it, its title and headline, its facts, and its
/// table of judged loads (`class`: head and rows).
struct Card {
    attr: &'static str,
    title: String,
    headline: String,
    facts: Vec<(&'static str, String)>,
    class: &'static str,
    table: (Vec<String>, Vec<Vec<String>>),
}

impl Card {
    fn write(self, out: &mut String) {
        let _ = writeln!(
            out,
            "<div class=\"card\" data-{}=\"{}\"><h3>{}: {}</h3>\n<table class=\"meta\">",
            self.attr,
            escape(&self.title),
            escape(&self.title),
            escape(&self.headline)
        );
        for (label, text) in self.facts {
            let _ = writeln!(out, "<tr><th>{label}</th><td>{}</td></tr>", escape(&text));
        }
        out.push_str("</table>\n");
        let (head, rows) = self.table;
        verdicts(out, self.class, &head, &rows);
        out.push_str("</div>\n");
    }
}

/// A heading (`intro`, HTML) and the cards of one kind of answer in sessions, when a run
/// has any.
fn answers(out: &mut String, intro: &str, cards: impl Iterator<Item = Card>) {
    let mut cards = cards.peekable();
    if cards.peek().is_none() {
        return;
    }
    out.push_str(intro);
    for card in cards {
        card.write(out);
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
