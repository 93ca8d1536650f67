//! The gate's one-screen table: what moved (regressed, worse, beyond tolerance, better,
//! not judged), one row per cell and number, as markdown (readable on a terminal, pasteable
//! into a pull request), under one line that says the verdict.

use plateau_model::quantity::number;

use crate::gate::{Findings, Judgement, Line, Outcome};

/// The verdict's line.
pub fn headline(f: &Findings) -> String {
    let count = |p: &dyn Fn(&Judgement) -> bool| f.lines.iter().filter(|l| p(&l.judgement)).count();
    let regressed = count(&|j| *j == Judgement::Regressed);
    let unjudged = count(&|j| matches!(j, Judgement::Unjudged(_)));
    let cells = {
        let mut c: Vec<&str> = f.lines.iter().map(|l| l.cell.as_str()).collect();
        c.dedup();
        c.len()
    };
    let what = match f.outcome() {
        Outcome::Pass => "PASS".to_owned(),
        Outcome::Regressed => format!("REGRESSED ({regressed} number(s) worse beyond tolerance)"),
        Outcome::Unjudged => format!("NOT JUDGED ({unjudged} number(s) could not be judged)"),
    };
    format!(
        "**{what}**: {} numbers of {cells} cells against {} baseline run(s) ({}).",
        f.lines.len(),
        f.baseline.len(),
        f.baseline.join(", ")
    )
}

/// The whole table, markdown.
pub fn markdown(f: &Findings) -> String {
    let mut out = headline(f);
    out.push_str("\n\n");
    let moved: Vec<&Line> = f
        .lines
        .iter()
        .filter(|l| l.judgement != Judgement::Same)
        .collect();
    if moved.is_empty() {
        out.push_str(
            "Nothing moved: every gated number is within tolerance or not significantly changed.\n",
        );
    } else {
        out.push_str(
            "| cell | number | baseline | candidate | change | interval | tolerance | verdict |\n",
        );
        out.push_str("|---|---|---:|---:|---:|---|---:|---|\n");
        for l in moved {
            out.push_str(&row(l));
        }
    }
    let same = f
        .lines
        .iter()
        .filter(|l| l.judgement == Judgement::Same)
        .count();
    if same > 0 {
        out.push_str(&format!(
            "\n{same} more number(s) unchanged (no significant change within tolerance).\n"
        ));
    }
    for (what, list) in [
        ("Cells with no baseline (not judged)", &f.new_cells),
        ("Baseline cells this run lacks", &f.missing_cells),
        ("Notes", &f.notes),
    ] {
        if !list.is_empty() {
            out.push_str(&format!("\n{what}:\n"));
            for item in list {
                out.push_str(&format!("- {item}\n"));
            }
        }
    }
    out
}

fn row(l: &Line) -> String {
    let unit = if l.quantity.unit.is_empty() {
        String::new()
    } else {
        format!(" {}", l.quantity.unit)
    };
    let value = |v: Option<f64>| v.map_or("–".to_owned(), |v| format!("{}{unit}", number(v)));
    let pct = |v: f64| format!("{v:+.1}%");
    format!(
        "| {} | {} | {} | {} | {} | {} | {} | {} |\n",
        l.cell,
        l.quantity.label,
        value(l.row.baseline),
        value(l.row.candidate),
        l.row.diff_pct().map_or("–".to_owned(), pct),
        l.row.ci_pct().map_or("–".to_owned(), |[a, b]| format!(
            "{} … {}",
            pct(a),
            pct(b)
        )),
        l.tolerance,
        l.judgement.text()
    )
}
