//! The "Headline" section that opens report.html: a grid of cards, one per scenario (and
//! series), each with [`crate::headline`]'s facts as a value over its label and what
//! qualifies it. A fact every card states alike ("no SLO set") is said once under the
//! cards instead of in each, so the cards keep to what tells the scenarios apart.

use std::fmt::Write;

use super::escape;
use crate::headline::{Card, Fact};

/// Writes the section of `cards` (nothing when there are none).
pub fn section(out: &mut String, cards: &[Card]) {
    if cards.is_empty() {
        return;
    }
    out.push_str(
        "<h2 id=\"headline\">Headline</h2>\n<p class=\"note\">Per scenario: the highest \
         server throughput of a steady cell, the knee (the smallest N reaching 90% of that \
         peak), where TTFT p99 first exceeds the SLO, and the share of measured requests \
         that failed.</p>\n",
    );
    let shared = shared(cards);
    // Four facts side by side need a wider card than three.
    let most = cards
        .iter()
        .map(|c| c.facts.iter().filter(|f| !shared.contains(f)).count())
        .max()
        .unwrap_or(0);
    let wide = if most > 3 { " wide" } else { "" };
    let _ = writeln!(out, "<div class=\"cards{wide}\">");
    for card in cards {
        let _ = writeln!(
            out,
            "<div class=\"hcard\"><h3>{}</h3>",
            escape(&card.scenario)
        );
        if let Some(series) = &card.series {
            let _ = writeln!(out, "<p class=\"series\">{}</p>", escape(series));
        }
        let _ = writeln!(
            out,
            "<div class=\"kpis\" data-scenario=\"{}\">",
            escape(&card.scenario)
        );
        for f in card.facts.iter().filter(|f| !shared.contains(f)) {
            let _ = writeln!(
                out,
                "<div class=\"kpi\" data-fact=\"{}\"><div class=\"v\">{}</div>\
                 <div class=\"k\">{}</div><div class=\"d\">{}</div></div>",
                escape(f.label),
                escape(&f.value),
                escape(f.label),
                escape(&f.detail)
            );
        }
        out.push_str("</div></div>\n");
    }
    out.push_str("</div>\n");
    for f in shared {
        let _ = writeln!(
            out,
            "<p class=\"shared\" data-fact=\"{}\"><b>{}: {}</b>, the same for every \
             scenario ({})</p>",
            escape(f.label),
            escape(f.label),
            escape(&f.value),
            escape(&f.detail)
        );
    }
}

/// The facts of the first card that every other card states identically (none with a
/// single card).
fn shared(cards: &[Card]) -> Vec<&Fact> {
    let [first, rest @ ..] = cards else {
        return Vec::new();
    };
    if rest.is_empty() {
        return Vec::new();
    }
    first
        .facts
        .iter()
        .filter(|f| rest.iter().all(|c| c.facts.contains(f)))
        .collect()
}
