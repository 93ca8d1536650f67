//! compare.html: one self-contained page (the report's style, figures embedded as SVG data
//! URIs, no scripts): per candidate, the per-scenario tables with their verdicts coloured
//! and flagged entries marked, then how the numbers were tested, one table per matched
//! cell, the unmatched cells, and the figures. Text from files is escaped.

use std::fmt::Write;

use super::Comparison;
use super::analyze::Verdict;
use super::summary;
use super::write::{HEADERS, SMALL_SAMPLE_NOTE, any_small, method, shown, sides};
use crate::figures::Rendered;
use crate::html::{STYLE, escape, figure, table};

/// Colours of the verdicts.
const VERDICT_STYLE: &str = "td.better { color: #0a7d32; font-weight: bold; } \
td.worse { color: #c81e1e; font-weight: bold; }\n";

/// The class of a cell showing `verdict`.
fn class(verdict: Option<Verdict>) -> Option<&'static str> {
    match verdict? {
        Verdict::Better => Some("better"),
        Verdict::Worse => Some("worse"),
        Verdict::Same | Verdict::Untested => Some("text"),
    }
}

/// The page's HTML.
pub fn render(
    comparisons: &[Comparison],
    figures: &[Rendered],
    unreadable: &[String],
    resamples: usize,
) -> String {
    let mut out = String::with_capacity(1 << 20);
    let runs: Vec<&str> = comparisons
        .first()
        .map(|c| c.baseline.as_str())
        .into_iter()
        .chain(comparisons.iter().map(|c| c.candidate.as_str()))
        .collect();
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n\
         <title>plateau compare: {}</title>\n<style>{STYLE}{VERDICT_STYLE}</style>\n</head>\n<body>\n\
         <h1>plateau compare</h1>\n<p class=\"sub\">baseline {}</p>\n",
        escape(&runs.join(" vs ")),
        escape(&format!(
            "{} · candidates {}",
            runs.first().unwrap_or(&""),
            runs.get(1..).unwrap_or_default().join(", ")
        )),
    );
    for c in comparisons {
        let _ = writeln!(
            out,
            "<h2>{} vs baseline {}</h2>\n<p>{} matched cells: {}.</p>",
            escape(&c.candidate),
            escape(&c.baseline),
            c.cells.len(),
            escape(&c.tally().text(c.include_unsteady))
        );
        for t in summary::tables(c) {
            let _ = writeln!(out, "<h3>{}</h3>", escape(&t.scenario));
            table::write(&mut out, None, &t.headers, &t.rows, |i, j, _| {
                if j == 0 || j + 1 == t.headers.len() {
                    Some("text")
                } else {
                    class(t.verdicts[i][j])
                }
            });
            out.push('\n');
        }
        let _ = writeln!(
            out,
            "<p class=\"note\">{}</p>",
            escape(&summary::legend(comparisons))
        );
        for (side, list) in [
            ("baseline", &c.only_baseline),
            ("candidate", &c.only_candidate),
        ] {
            if !list.is_empty() {
                let _ = writeln!(
                    out,
                    "<p class=\"note\">Only in the {side}: {}</p>",
                    escape(&list.join(", "))
                );
            }
        }
    }
    let _ = writeln!(
        out,
        "<h2>How it was tested</h2>\n<p class=\"note\">{}</p>",
        escape(&method(resamples))
    );
    if any_small(comparisons) {
        let _ = writeln!(out, "<p class=\"note\">{}</p>", escape(SMALL_SAMPLE_NOTE));
    }
    for c in comparisons {
        details(&mut out, c);
    }
    if !unreadable.is_empty() {
        out.push_str("<h2>Not compared</h2>\n<ul>\n");
        for e in unreadable {
            let _ = writeln!(out, "<li class=\"fail\">{}</li>", escape(e));
        }
        out.push_str("</ul>\n");
    }
    out.push_str("<h2 id=\"figures\">Figures</h2>\n");
    for r in figures {
        figure(&mut out, r);
    }
    out.push_str("</body>\n</html>\n");
    out
}

/// One table per matched cell of `c`.
fn details(out: &mut String, c: &Comparison) {
    let _ = writeln!(
        out,
        "<h2>Per-cell details: {} vs baseline {}</h2>",
        escape(&c.candidate),
        escape(&c.baseline)
    );
    for cell in &c.cells {
        let _ = writeln!(
            out,
            "<h3>{}</h3>\n<p class=\"note\">{}</p>",
            escape(&cell.place),
            escape(&sides(cell))
        );
        let rows: Vec<Vec<String>> = cell.rows.iter().map(|r| shown(r).to_vec()).collect();
        table::write(out, None, &HEADERS, &rows, |i, j, _| {
            let r = &cell.rows[i];
            match j {
                0 => Some("text"),
                // The two sides' values, italic where the percentile rests on few samples.
                1 | 2 => r.small_sample[j - 1].then_some("small"),
                8 => class(Some(r.verdict)),
                _ => None,
            }
        });
        out.push('\n');
    }
}
