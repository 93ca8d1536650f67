//! summary.md: the run in a few lines, the headline of each scenario, the capacity answer
//! when a run searched for one, the summary table (report.html's, row for row), the failed
//! checks and warnings, the results tables of each scenario (closed loop, open loop) and
//! the list of figures, as GitHub-flavoured Markdown (pastes into an issue or a PR). Past
//! the cells report.html shows one by one it stays a page long: the tables per cell give way
//! to a pointer to summary.csv and report.html's cell pages, and at most [`FINDINGS_SHOWN`]
//! findings are listed.

use std::fmt::Write;

use plateau_model::results::capacity::CapacityReport;
use plateau_model::results::repeats::RepeatsReport;
use plateau_model::results::run_info::RunInfo;
use plateau_model::validate::{Finding, Severity, Thresholds};

use crate::capacity::{self, session_rates, sessions};
use crate::figures::Rendered;
use crate::headline::Card;
use crate::matrix::Matrix;
use crate::per_run::PerRun;
use crate::{repeats, tables};

/// Findings listed at most (failures first); `plateau validate` lists every one.
pub const FINDINGS_SHOWN: usize = 100;

/// What summary.md shows.
pub struct Input<'a> {
    /// The cells.
    pub m: &'a Matrix<'a>,
    /// The results directory as given.
    pub results_dir: &'a str,
    /// `run.json`, when it was read.
    pub run: Option<&'a RunInfo>,
    /// `capacity.json` of each run that searched for capacity.
    pub capacity: &'a [PerRun<CapacityReport>],
    /// `repeats.json` of each run whose cells ran more than once.
    pub repeats: &'a [PerRun<RepeatsReport>],
    /// Findings of the checks.
    pub findings: &'a [Finding],
    /// The limits the findings were checked against (the verdict column uses them too).
    pub thresholds: &'a Thresholds,
    /// The headline of each scenario and series.
    pub headline: &'a [Card],
    /// Every figure drawn, with how to write its files' place (relative to summary.md
    /// where they are below it).
    pub figures: &'a [(&'a Rendered, String)],
    /// Whether the run has more cells than report.html shows one by one (its cells are on
    /// pages): the per-cell tables are left out.
    pub paged: bool,
}

/// The Markdown text.
pub fn render(input: &Input) -> String {
    let Input {
        m,
        results_dir,
        run,
        capacity,
        repeats,
        findings,
        thresholds,
        headline,
        figures,
        paged,
    } = *input;
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
            m.all().count()
        );
    }
    headline_section(&mut out, headline);
    if !capacity.is_empty() {
        capacity_section(&mut out, capacity);
    }
    let cells = m.all().count();
    if paged {
        let _ = writeln!(
            out,
            "## Summary\n\n{cells} cells, too many to list here: summary.csv has every cell's \
             numbers, report.html links their pages.\n"
        );
    } else {
        summary_section(&mut out, m, thresholds);
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
    for f in sorted.iter().take(FINDINGS_SHOWN) {
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
    if sorted.len() > FINDINGS_SHOWN {
        let _ = writeln!(
            out,
            "- ... and {} more: `plateau validate --results-dir {}` lists every one.",
            sorted.len() - FINDINGS_SHOWN,
            cell(results_dir)
        );
    }
    if !sorted.is_empty() {
        out.push('\n');
    }
    let groups = if paged { Vec::new() } else { tables::groups(m) };
    for g in groups {
        let _ = writeln!(out, "## {}\n", cell(&g.title()));
        let series = g.rows.iter().any(|r| r.series.is_some());
        let mut head: Vec<String> = Vec::new();
        let mut align: Vec<&str> = Vec::new();
        if series {
            head.push("series".into());
            align.push(":--");
        }
        for q in &g.columns {
            head.push(tables::header(q));
            align.push("--:");
        }
        if g.open {
            head.push("overloaded".into());
            align.push(":--");
        }
        head.push("verdict".into());
        align.push(":--");
        let _ = writeln!(out, "| {} |", head.join(" | "));
        let _ = writeln!(out, "|{}|", align.join("|"));
        for row in &g.rows {
            let mut cells: Vec<String> = Vec::new();
            if let Some(s) = row.series {
                cells.push(cell(s));
            }
            for q in &g.columns {
                cells.push(q.text(row.summary).unwrap_or_else(|| "–".into()));
            }
            if g.open {
                cells.push(tables::overloaded(row.summary).0.into());
            }
            let v = tables::verdict(row.summary, thresholds);
            cells.push(if v.why.is_empty() {
                v.word
            } else if v.failed {
                format!("**{}** ({})", v.word, cell(&v.why))
            } else {
                format!("{} ({})", v.word, cell(&v.why))
            });
            let _ = writeln!(out, "| {} |", cells.join(" | "));
        }
        out.push('\n');
    }
    if !repeats.is_empty() {
        repeats_section(&mut out, repeats);
    }
    out.push_str(
        "Latencies in ms over requests started in the measure window; throughputs in output \
         tokens/s; jitter = ITL p99 / ITL p50. Open loop: latencies from the intended send; \
         an overloaded cell's percentiles say only how long its window was. Figures and the \
         full report: report.html.\n",
    );
    figures_section(&mut out, figures);
    out
}

/// One table: a row per scenario (and series, when there are several), a column per
/// headline fact (`**value** (detail)`).
fn headline_section(out: &mut String, cards: &[Card]) {
    let Some(first) = cards.first() else {
        return;
    };
    let series = cards.iter().any(|c| c.series.is_some());
    let mut head: Vec<&str> = vec!["scenario"];
    if series {
        head.push("series");
    }
    head.extend(first.facts.iter().map(|f| f.label));
    let _ = writeln!(
        out,
        "## Headline\n\n| {} |\n|{}|",
        head.join(" | "),
        vec![":--"; head.len()].join("|")
    );
    for card in cards {
        let mut row = vec![cell(&card.scenario)];
        if series {
            row.push(cell(card.series.as_deref().unwrap_or("")));
        }
        row.extend(
            card.facts
                .iter()
                .map(|f| format!("**{}** ({})", cell(&f.value), cell(&f.detail))),
        );
        let _ = writeln!(out, "| {} |", row.join(" | "));
    }
    out.push('\n');
}

/// The summary table: report.html's rows and columns ([`tables::summary`]), the scenario
/// on every row.
fn summary_section(out: &mut String, m: &Matrix, thresholds: &Thresholds) {
    let scenarios = tables::summary(m);
    let series = scenarios
        .iter()
        .flat_map(|(_, rows)| rows)
        .any(|r| r.series.is_some());
    let mut head: Vec<String> = vec!["scenario".into()];
    if series {
        head.push("series".into());
    }
    head.push("load".into());
    let numbers = head.len();
    head.extend(tables::SUMMARY_COLUMNS.iter().map(tables::header));
    head.push("verdict".into());
    let align: Vec<&str> = (0..head.len())
        .map(|i| {
            if i < numbers || i == head.len() - 1 {
                ":--"
            } else {
                "--:"
            }
        })
        .collect();
    let _ = writeln!(
        out,
        "## Summary\n\n| {} |\n|{}|",
        head.join(" | "),
        align.join("|")
    );
    for (scenario, rows) in &scenarios {
        for row in rows {
            let mut cells = vec![cell(&scenario.title())];
            if series {
                cells.push(cell(row.series.unwrap_or("")));
            }
            cells.push(row.load.to_string());
            cells.extend(
                tables::SUMMARY_COLUMNS
                    .iter()
                    .map(|q| q.text(row.summary).unwrap_or_else(|| "–".into())),
            );
            cells.push(tables::verdict(row.summary, thresholds).word);
            let _ = writeln!(out, "| {} |", cells.join(" | "));
        }
    }
    out.push('\n');
}

/// Every figure but the timelines by title and file, then how many timelines there are.
fn figures_section(out: &mut String, figures: &[(&Rendered, String)]) {
    if figures.is_empty() {
        return;
    }
    out.push_str("\n## Figures\n\nPNG and SVG of each; all are embedded in report.html.\n\n");
    let (timelines, others): (Vec<_>, Vec<_>) =
        figures.iter().partition(|(r, _)| r.scenario.is_some());
    for (r, file) in others {
        let _ = writeln!(out, "- {}: `{}`", cell(&r.title), cell(file));
    }
    if let Some((_, file)) = timelines.first() {
        let _ = writeln!(
            out,
            "- {} timelines, one per cell: `{}`, ...",
            timelines.len(),
            cell(file)
        );
    }
}

/// The capacity answer of every search of every run, its facts and its probes.
fn capacity_section(out: &mut String, runs: &[PerRun<CapacityReport>]) {
    let _ = writeln!(
        out,
        "## Capacity\n\nThe highest request rate within the SLO ({}).\n",
        cell(&capacity::slo_of(runs))
    );
    for (report, s) in capacity::searches(runs) {
        let _ = writeln!(
            out,
            "### {}: {}\n",
            cell(&capacity::title(s)),
            cell(&capacity::headline(s))
        );
        for (label, text) in capacity::facts(report, s) {
            let _ = writeln!(out, "- {label}: {}", cell(&text));
        }
        let (head, rows) = capacity::probes(s);
        verdicts(out, &head, &rows);
    }
    for (report, s) in sessions::answers(runs) {
        let _ = writeln!(
            out,
            "### {} in concurrent sessions: {}\n",
            cell(&sessions::title(s)),
            cell(&sessions::headline(s))
        );
        for (label, text) in sessions::facts(report, s) {
            let _ = writeln!(out, "- {label}: {}", cell(&text));
        }
        let (head, rows) = sessions::cells(s);
        verdicts(out, &head, &rows);
    }
    for (report, s) in session_rates::answers(runs) {
        let _ = writeln!(
            out,
            "### {} in session arrivals: {}\n",
            cell(&session_rates::title(s)),
            cell(&session_rates::headline(s))
        );
        for (label, text) in session_rates::facts(report, s) {
            let _ = writeln!(out, "- {label}: {}", cell(&text));
        }
        let (head, rows) = session_rates::cells(s);
        verdicts(out, &head, &rows);
    }
}

/// A table of judged loads (probes, or session cells), right-aligned.
fn verdicts(out: &mut String, head: &[String], rows: &[Vec<String>]) {
    let _ = writeln!(out, "\n| {} |", head.join(" | "));
    let _ = writeln!(out, "|{}|", vec!["--:"; head.len()].join("|"));
    for row in rows {
        let row: Vec<String> = row.iter().map(|t| cell(t)).collect();
        let _ = writeln!(out, "| {} |", row.join(" | "));
    }
    out.push('\n');
}

/// Each headline number's spread across the runs of each cell, run by run.
fn repeats_section(out: &mut String, runs: &[PerRun<RepeatsReport>]) {
    let _ = writeln!(out, "## Repeats\n\n{}\n", repeats::note(runs));
    let (head, rows) = repeats::table(runs);
    let _ = writeln!(out, "| {} |", head.join(" | "));
    let _ = writeln!(out, "|:--|:--|{}|", vec!["--:"; head.len() - 2].join("|"));
    for row in rows {
        let row: Vec<String> = row.iter().map(|t| cell(t)).collect();
        let _ = writeln!(out, "| {} |", row.join(" | "));
    }
    out.push('\n');
}

/// `text` safe inside a table cell or a line: pipes escaped, line breaks as spaces.
pub fn cell(text: &str) -> String {
    text.replace('|', "\\|").replace(['\n', '\r'], " ")
}
