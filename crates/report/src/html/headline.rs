//! The "Headline" section that opens report.html: per scenario, a row of cards per series
//! with [`crate::headline`]'s facts, each a value over its label and what qualifies it.

use std::fmt::Write;

use super::escape;
use crate::headline::Card;

/// Writes the section of `cards` (nothing when there are none).
pub fn section(out: &mut String, cards: &[Card]) {
    if cards.is_empty() {
        return;
    }
    out.push_str(
        "<h2 id=\"headline\">Headline</h2>\n<p class=\"note\">Per scenario: the highest \
         server throughput of a steady cell, the knee (the smallest N reaching 90% of that \
         peak), where TTFT p99 first exceeds the SLO, and the share of measured requests \
         that failed. Details in the tables and figures below.</p>\n",
    );
    let mut scenario = "";
    for card in cards {
        if card.scenario != scenario {
            scenario = &card.scenario;
            let _ = writeln!(out, "<h3>{}</h3>", escape(scenario));
        }
        if let Some(series) = &card.series {
            let _ = writeln!(out, "<p class=\"series\">{}</p>", escape(series));
        }
        let _ = writeln!(
            out,
            "<div class=\"kpis\" data-scenario=\"{}\">",
            escape(&card.scenario)
        );
        for f in &card.facts {
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
        out.push_str("</div>\n");
    }
}
