//! summary.md: the run in a few lines, the failed checks and warnings, and the results
//! table of each scenario, as GitHub-flavoured Markdown (pastes into an issue or a PR).

use std::fmt::Write;

use plateau_core::results::run_info::RunInfo;
use plateau_core::validate::{Finding, Severity};

use crate::matrix::Matrix;
use crate::tables::{self, COLUMNS};

/// The Markdown text.
pub fn render(
    m: &Matrix,
    results_dir: &str,
    run: Option<&RunInfo>,
    findings: &[Finding],
) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "# plateau results: {}\n", cell(results_dir));
    let _ = writeln!(out, "{}\n", cell(&m.subtitle()));
    if let Some(run) = run {
        let _ = writeln!(
            out,
            "Run {} (plateau {}), started {}{}; {} cells.\n",
            tables::run_status(run.status),
            run.plateau_version,
            run.started_at.to_rfc3339(),
            run.wall_duration_s
                .map_or(String::new(), |s| format!(", {s:.0} s")),
            m.cells.len()
        );
    }
    let fails = findings
        .iter()
        .filter(|f| f.severity == Severity::Fail)
        .count();
    let _ = writeln!(
        out,
        "## Checks\n\n{fails} failed, {} warning(s).\n",
        findings.len() - fails
    );
    let mut sorted: Vec<&Finding> = findings.iter().collect();
    sorted.sort_by_key(|f| std::cmp::Reverse(f.severity));
    for f in &sorted {
        let word = match f.severity {
            Severity::Fail => "**FAIL**",
            Severity::Warn => "warn",
        };
        let _ = writeln!(
            out,
            "- {word} `{}` {}: {}",
            f.cell,
            f.check,
            cell(&f.message)
        );
    }
    if !sorted.is_empty() {
        out.push('\n');
    }
    for g in tables::groups(m) {
        let _ = writeln!(out, "## {}\n", cell(&g.scenario.title()));
        let series = g.rows.iter().any(|r| r.series.is_some());
        let mut head: Vec<String> = Vec::new();
        let mut align: Vec<&str> = Vec::new();
        if series {
            head.push("series".into());
            align.push(":--");
        }
        for q in &COLUMNS {
            head.push(tables::header(q));
            align.push("--:");
        }
        head.push("steady".into());
        align.push(":--");
        let _ = writeln!(out, "| {} |", head.join(" | "));
        let _ = writeln!(out, "|{}|", align.join("|"));
        for row in &g.rows {
            let mut cells: Vec<String> = Vec::new();
            if let Some(s) = row.series {
                cells.push(cell(s));
            }
            for q in &COLUMNS {
                cells.push(q.text(row.summary).unwrap_or_else(|| "–".into()));
            }
            let (word, why) = tables::verdict(row.summary);
            cells.push(if why.is_empty() {
                word.into()
            } else {
                format!("{word} ({})", cell(&why))
            });
            let _ = writeln!(out, "| {} |", cells.join(" | "));
        }
        out.push('\n');
    }
    out.push_str(
        "Latencies in ms over requests started in the measure window; throughputs in output \
         tokens/s; jitter = ITL p99 / ITL p50. Figures and the full report: report.html.\n",
    );
    out
}

/// `text` safe inside a table cell or a line: pipes escaped, line breaks as spaces.
fn cell(text: &str) -> String {
    text.replace('|', "\\|").replace(['\n', '\r'], " ")
}
