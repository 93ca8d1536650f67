//! report.html: one self-contained page (figures embedded as PNG data URIs, no scripts, no
//! external resources) opening with the headline of each scenario, then the capacity answer
//! when a run searched for one, the run's metadata, the warnings, the results tables of
//! each scenario (closed loop, open loop), every figure and the latency distributions. All
//! text from result files is escaped ([`escape`]).

pub mod capacity;
pub mod headline;
pub mod repeats;
pub mod run;
pub mod table;

use std::fmt::Write;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use plateau_model::results::capacity::CapacityReport;
use plateau_model::results::repeats::RepeatsReport;
use plateau_model::validate::{Finding, Severity, Thresholds};

use crate::figures::Rendered;
use crate::headline::Card;
use crate::matrix::Matrix;
use crate::per_run::PerRun;
use crate::tables;

/// Everything the page shows.
pub struct Page<'a> {
    /// The cells.
    pub m: &'a Matrix<'a>,
    /// The results directory as given.
    pub results_dir: &'a str,
    /// `run.json`, or why it is missing.
    pub run: Result<&'a plateau_model::results::run_info::RunInfo, String>,
    /// `capacity.json` of each run that searched for capacity.
    pub capacity: &'a [PerRun<CapacityReport>],
    /// `repeats.json` of each run whose cells ran more than once.
    pub repeats: &'a [PerRun<RepeatsReport>],
    /// Findings of the checks.
    pub findings: &'a [Finding],
    /// The limits the findings were checked against (the verdict column uses them too).
    pub thresholds: &'a Thresholds,
    /// The overview figures.
    pub overview: &'a [Rendered],
    /// The latency distributions and the TTFT-vs-prompt figures.
    pub distributions: &'a [Rendered],
    /// The timeline figures.
    pub timelines: &'a [Rendered],
    /// The headline of each scenario and series.
    pub headline: &'a [Card],
}

/// The page style, shared with compare.html.
pub const STYLE: &str = "
body { font-family: 'DejaVu Sans', 'Helvetica Neue', Arial, sans-serif; margin: 0 auto;
  max-width: 1500px; padding: 16px 28px 48px; color: #1e1e1e; background: #fff; }
h1 { margin-bottom: 4px; } .sub { color: #646464; margin-top: 0; }
nav a { margin-right: 14px; }
table { border-collapse: collapse; margin: 8px 0 24px; font-size: 14px; }
th, td { border: 1px solid #ddd; padding: 4px 8px; text-align: right; white-space: nowrap; }
th { background: #f3f3f3; white-space: normal; vertical-align: bottom; max-width: 92px; }
td.text, th.text { text-align: left; } .scroll { overflow-x: auto; }
table.meta td, table.meta th { text-align: left; white-space: normal; max-width: none; }
table.meta th { white-space: nowrap; vertical-align: top; }
details.checks { margin: 4px 0 4px 18px; } details.checks summary { cursor: pointer; }
td.small { color: #8a6d00; font-style: italic; }
td.yes { color: #0a7d32; font-weight: bold; } td.NO, td.interrupted { color: #c81e1e; font-weight: bold; }
li.fail { color: #c81e1e; } li.warn { color: #8a6d00; }
li code { color: #1e1e1e; }
figure { margin: 18px 0 30px; } figure img { max-width: 100%; height: auto; border: 1px solid #eee; }
figcaption { color: #646464; font-size: 14px; }
.grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(820px, 1fr)); gap: 12px; }
.note { color: #646464; font-size: 14px; }
.card { border: 1px solid #ddd; border-radius: 6px; padding: 2px 16px 4px; margin: 12px 0; }
.kpis { display: flex; flex-wrap: wrap; gap: 12px; margin: 6px 0 18px; }
.kpi { border: 1px solid #ddd; border-radius: 6px; padding: 10px 14px; flex: 1 1 220px; max-width: 320px; }
.kpi .v { font-size: 26px; font-weight: bold; } .kpi .k { font-size: 14px; margin-top: 2px; }
.kpi .d { color: #646464; font-size: 13px; margin-top: 4px; }
p.series { font-weight: bold; margin: 4px 0; }
";

/// The page's HTML.
pub fn render(page: &Page) -> String {
    let mut out = String::with_capacity(1 << 20);
    let title = format!("plateau report: {}", page.results_dir);
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n\
         <title>{}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n",
        escape(&title)
    );
    let _ = write!(
        out,
        "<h1>plateau report</h1>\n<p class=\"sub\">{} · {} cells · {}</p>\n<nav>\
         <a href=\"#headline\">Headline</a>{}\
         <a href=\"#run\">Run</a><a href=\"#warnings\">Warnings</a>\
         <a href=\"#results\">Results</a><a href=\"#figures\">Figures</a>\
         <a href=\"#distributions\">Distributions</a><a href=\"#timelines\">Timelines</a></nav>\n",
        escape(page.results_dir),
        page.m.all().count(),
        escape(&page.m.subtitle()),
        if page.capacity.is_empty() {
            ""
        } else {
            "<a href=\"#capacity\">Capacity</a>"
        }
    );
    headline::section(&mut out, page.headline);
    if !page.capacity.is_empty() {
        capacity::section(&mut out, page.capacity);
    }
    run::section(&mut out, &page.run);
    warnings(&mut out, page.findings);
    results(&mut out, page.m, page.thresholds);
    if !page.repeats.is_empty() {
        repeats::section(&mut out, page.repeats);
    }
    out.push_str("<h2 id=\"figures\">Figures</h2>\n");
    for r in page.overview {
        figure(&mut out, r);
    }
    out.push_str(
        "<h2 id=\"distributions\">Distributions</h2>\n<p class=\"note\">Every measured \
         request's TTFT and every gap between its content chunks (ITL per chunk), as \
         cumulative distributions, one line per load; for multi-turn scenarios, each \
         request's TTFT against its prompt length.</p>\n",
    );
    if page.distributions.is_empty() {
        out.push_str("<p class=\"note\">No cell's requests could be read.</p>\n");
    }
    for r in page.distributions {
        figure(&mut out, r);
    }
    out.push_str(
        "<h2 id=\"timelines\">Timelines</h2>\n<p class=\"note\">Each cell over its whole life: \
         output tokens/s and requests in flight, phases shaded. A steady Measure window is flat.</p>\n",
    );
    for scenario in &page.m.scenarios {
        let title = scenario.title();
        let _ = writeln!(out, "<h3>{}</h3>\n<div class=\"grid\">", escape(&title));
        for r in page
            .timelines
            .iter()
            .filter(|r| r.scenario.as_ref() == Some(&title))
        {
            figure(&mut out, r);
        }
        out.push_str("</div>\n");
    }
    out.push_str(
        "<p class=\"note\">Every number on this page was read from summary.json and \
         requests.jsonl.gz, computed by plateau's core metric definitions (SPEC section 5).</p>\n\
         </body>\n</html>\n",
    );
    out
}

fn warnings(out: &mut String, findings: &[Finding]) {
    let fails: Vec<&Finding> = findings
        .iter()
        .filter(|f| f.severity == Severity::Fail)
        .collect();
    let _ = write!(
        out,
        "<h2 id=\"warnings\">Warnings</h2>\n<p>{} failed check(s), {} warning(s).</p>\n",
        fails.len(),
        findings.len() - fails.len()
    );
    if !fails.is_empty() {
        out.push_str("<ul>\n");
        for f in fails {
            item(out, f);
        }
        out.push_str("</ul>\n");
    }
    // Warnings grouped by check, folded: a long run repeats the same one in many cells.
    let mut checks: Vec<&str> = findings
        .iter()
        .filter(|f| f.severity == Severity::Warn)
        .map(|f| f.check)
        .collect();
    checks.sort_unstable();
    checks.dedup();
    for check in checks {
        let these: Vec<&Finding> = findings
            .iter()
            .filter(|f| f.severity == Severity::Warn && f.check == check)
            .collect();
        let _ = writeln!(
            out,
            "<details class=\"checks\"><summary><b>warn</b> {}: {} finding(s)</summary><ul>",
            escape(check),
            these.len()
        );
        for f in these {
            item(out, f);
        }
        out.push_str("</ul></details>\n");
    }
}

fn item(out: &mut String, f: &Finding) {
    let (class, word) = match f.severity {
        Severity::Fail => ("fail", "FAIL"),
        Severity::Warn => ("warn", "warn"),
    };
    let _ = writeln!(
        out,
        "<li class=\"{class}\" data-check=\"{}\"><b>{word}</b> <code>{}</code> {}: {}</li>",
        escape(f.check),
        escape(&f.cell),
        escape(f.check),
        escape(&f.message)
    );
}

fn results(out: &mut String, m: &Matrix, thresholds: &Thresholds) {
    out.push_str(
        "<h2 id=\"results\">Results</h2>\n<p class=\"note\">Latencies in ms over the requests \
         started in the measure window; throughputs in output tokens/s. <i>Italic</i>: a \
         percentile from too few samples (p99 below 1000). jitter = ITL p99 / ITL p50. \
         Open loop: latencies from the intended send; schedule lag and queue are the client's \
         share; an overloaded cell's percentiles say only how long its window was.</p>\n",
    );
    for g in tables::groups(m) {
        let _ = writeln!(
            out,
            "<h3>{}</h3>\n<div class=\"scroll\"><table>\n<tr>",
            escape(&g.title())
        );
        if g.rows.iter().any(|r| r.series.is_some()) {
            out.push_str("<th class=\"text\">series</th>");
        }
        for q in &g.columns {
            let _ = write!(out, "<th>{}</th>", escape(&tables::header(q)));
        }
        if g.open {
            out.push_str("<th class=\"text\">overloaded</th>");
        }
        out.push_str("<th class=\"text\">verdict</th></tr>\n");
        for row in &g.rows {
            let _ = write!(out, "<tr data-cell=\"{}\">", escape(row.rel));
            if let Some(series) = row.series {
                let _ = write!(out, "<td class=\"text\">{}</td>", escape(series));
            }
            for q in &g.columns {
                match ((q.read)(row.summary), q.text(row.summary)) {
                    (Some(r), Some(text)) => {
                        let class = if r.small_sample {
                            " class=\"small\""
                        } else {
                            ""
                        };
                        let _ = write!(
                            out,
                            "<td data-field=\"{}\" data-value=\"{}\"{class}>{}</td>",
                            q.field,
                            r.value,
                            escape(&text)
                        );
                    }
                    _ => {
                        let _ = write!(out, "<td data-field=\"{}\">–</td>", q.field);
                    }
                }
            }
            if g.open {
                let (word, why) = tables::overloaded(row.summary);
                let class = if word == "no" { "" } else { " NO" };
                let _ = write!(
                    out,
                    "<td class=\"text{class}\" title=\"{}\">{word}</td>",
                    escape(&why)
                );
            }
            let v = tables::verdict(row.summary, thresholds);
            let class = if v.failed || v.word == "interrupted" {
                "NO"
            } else {
                "yes"
            };
            let _ = writeln!(
                out,
                "<td class=\"text {class}\" title=\"{}\">{}</td></tr>",
                escape(&v.why),
                escape(&v.word)
            );
        }
        out.push_str("</table></div>\n");
    }
}

/// `r` as an embedded PNG with its caption.
pub fn figure(out: &mut String, r: &Rendered) {
    let files: Vec<String> = r
        .files
        .iter()
        .filter_map(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .collect();
    let _ = writeln!(
        out,
        "<figure id=\"{}\"><img width=\"{}\" height=\"{}\" alt=\"{}\" \
         src=\"data:image/png;base64,{}\"/><figcaption>{} — {}</figcaption></figure>",
        escape(&r.name),
        r.size.0,
        r.size.1,
        escape(&r.title),
        STANDARD.encode(&r.png),
        escape(&r.title),
        escape(&files.join(", "))
    );
}

/// `text` with `& < > " '` escaped, safe in element content and quoted attributes.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::escape;

    #[test]
    fn escapes_markup() {
        assert_eq!(
            escape(r#"<b a="x">'&'</b>"#),
            "&lt;b a=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/b&gt;"
        );
    }
}
