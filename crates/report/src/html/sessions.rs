//! The "Sessions by turn and context" part of the per-cell results: for each cell that ran
//! sessions, its turns' TTFT and TPOT (p50, p99) by turn index and by context length (the
//! turn's prompt tokens), from its summary's `sessions` block, folded in a `<details>`.

use std::fmt::Write;

use plateau_model::metrics::{Distribution, SessionMetrics};

use super::{escape, table};
use crate::matrix::Matrix;
use crate::style::number;

/// Writes the section when a cell of `m` ran sessions.
pub fn section(out: &mut String, m: &Matrix) {
    let cells: Vec<(&str, &SessionMetrics)> = m
        .all()
        .filter_map(|c| Some((c.rel, c.summary.metrics.sessions.as_deref()?)))
        .collect();
    if cells.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "<details class=\"fold\"><summary>Sessions by turn and context: {} cell(s)</summary>\n\
         <p class=\"note\">TTFT and TPOT in ms over each cell's measured successful turns, by \
         turn index and by the turn's prompt tokens (k = 1,024).</p>",
        cells.len()
    );
    for (rel, s) in cells {
        let _ = writeln!(out, "<p class=\"series\">{}</p>", escape(rel));
        table::write(out, Some("session-turns"), &HEAD, &rows(s), |_, j, _| {
            (j == 0).then_some("text")
        });
        out.push('\n');
    }
    out.push_str("</details>\n");
}

const HEAD: [&str; 6] = [
    "turns or prompt",
    "requests",
    "TTFT p50",
    "TTFT p99",
    "TPOT p50",
    "TPOT p99",
];

/// One row per turn bucket (`turn 1`, `turns 2-4`, ...) then per context bucket
/// (`prompt <1k`, ...).
pub fn rows(s: &SessionMetrics) -> Vec<Vec<String>> {
    let row = |name: String, n: u64, ttft: &Option<Distribution>, tpot: &Option<Distribution>| {
        let p = |d: &Option<Distribution>, f: fn(&Distribution) -> f64| {
            d.as_ref().map_or("–".to_owned(), |d| number(f(d)))
        };
        vec![
            name,
            n.to_string(),
            p(ttft, |d| d.p50),
            p(ttft, |d| d.p99),
            p(tpot, |d| d.p50),
            p(tpot, |d| d.p99),
        ]
    };
    let turns = s.by_turn.iter().map(|b| {
        let name = if b.turns == "1" {
            "turn 1".to_owned()
        } else {
            format!("turns {}", b.turns)
        };
        row(name, b.requests, &b.ttft_ms, &b.tpot_ms)
    });
    let context = s.by_context.iter().map(|b| {
        row(
            format!("prompt {}", b.tokens),
            b.requests,
            &b.ttft_ms,
            &b.tpot_ms,
        )
    });
    turns.chain(context).collect()
}
