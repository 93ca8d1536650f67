//! report.html: one self-contained page (figures embedded as SVG data URIs, no scripts, no
//! external resources) that opens on the answer: the headline of each scenario, one line of
//! checks, the capacity answer when a run searched for one, the summary table (a row per
//! cell, the numbers a user quotes) and the key figures. The other figures and the latency
//! distributions follow; the per-cell results tables, the timelines, the full list of
//! checks and the run's metadata come last, the tables and timelines folded in
//! `<details>` so that a 24-cell run stays a short page of about a megabyte. Past
//! [`crate::pipeline::INLINE_CELLS`] cells, the summary table, the per-cell tables and the
//! timelines go to pages of their own ([`pages`]) that report.html lists in place of the
//! summary table, so it stays small whatever the run's size. All text from result files is
//! escaped ([`escape`]).

pub mod capacity;
pub mod cells;
pub mod checks;
pub mod headline;
pub mod pages;
pub mod repeats;
pub mod run;
pub mod sessions;
pub mod summary;
pub mod table;

use std::fmt::Write;

use percent_encoding::{AsciiSet, CONTROLS, utf8_percent_encode};
use plateau_model::results::capacity::CapacityReport;
use plateau_model::results::repeats::RepeatsReport;
use plateau_model::validate::{Finding, Thresholds};

use crate::figures::Rendered;
use crate::headline::Card;
use crate::matrix::Matrix;
use crate::per_run::PerRun;

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
    /// The timeline figures (none when the cells are on pages).
    pub timelines: &'a [Rendered],
    /// With many cells, the pages that hold the summary rows, the per-cell tables and the
    /// timelines ([`pages`]); report.html lists them instead.
    pub pages: Option<&'a [pages::PageRef]>,
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
.figs { display: flex; flex-wrap: wrap; gap: 0 16px; align-items: flex-start; }
.figs figure { margin: 10px 0 18px; max-width: 100%; }
.note { color: #646464; font-size: 14px; }
.card { border: 1px solid #ddd; border-radius: 6px; padding: 2px 16px 4px; margin: 12px 0; }
.cards { display: grid; grid-template-columns: repeat(auto-fit, minmax(420px, 1fr)); gap: 10px; margin: 8px 0 6px; }
.cards.wide { grid-template-columns: repeat(auto-fit, minmax(600px, 1fr)); }
.hcard { border: 1px solid #ddd; border-radius: 6px; padding: 8px 12px; }
.hcard h3 { margin: 0 0 6px; font-size: 16px; }
.kpis { display: grid; grid-auto-flow: column; grid-auto-columns: 1fr; gap: 12px; }
.kpi .v { font-size: 21px; font-weight: bold; } .kpi .k { font-size: 13px; margin-top: 1px; }
.kpi .d { color: #646464; font-size: 12px; margin-top: 2px; }
p.series { font-weight: bold; margin: 0 0 6px; color: #646464; }
p.shared { margin: 4px 0; }
p.brief { margin: 12px 0; font-size: 15px; } .brief .fail { color: #c81e1e; font-weight: bold; }
.brief .warn { color: #8a6d00; }
table.summary td.scenario { text-align: left; vertical-align: top; font-weight: bold; white-space: normal; }
table.summary tr.first td { border-top: 2px solid #bbb; }
td.overloaded { color: #c81e1e; font-weight: bold; }
details.fold { margin: 6px 0; } details.fold > summary { cursor: pointer; font-size: 17px; font-weight: bold; margin: 8px 0; }
";

/// The page's HTML.
pub fn render(page: &Page) -> String {
    let mut out = String::with_capacity(1 << 20);
    let title = format!("plateau report: {}", page.results_dir);
    head(&mut out, &title);
    let _ = writeln!(
        out,
        "<h1>plateau report</h1>\n<p class=\"sub\">{} · {} cells · {}</p>",
        escape(page.results_dir),
        page.m.all().count(),
        escape(&page.m.subtitle()),
    );
    nav(&mut out, page);
    headline::section(&mut out, page.headline);
    checks::brief(&mut out, page.findings);
    if !page.capacity.is_empty() {
        capacity::section(&mut out, page.capacity);
    }
    match page.pages {
        Some(list) => pages::index(&mut out, list),
        None => summary::section(&mut out, page.m, page.thresholds),
    }
    let (key, more): (Vec<&Rendered>, Vec<&Rendered>) = page.overview.iter().partition(|r| r.key);
    out.push_str("<h2 id=\"figures\">Key figures</h2>\n");
    figures(&mut out, &key);
    if !more.is_empty() {
        out.push_str("<h2 id=\"more-figures\">More figures</h2>\n");
        figures(&mut out, &more);
    }
    distributions(&mut out, page.distributions);
    if page.pages.is_none() {
        cells::section(&mut out, page.m, page.thresholds);
        sessions::section(&mut out, page.m);
    }
    if !page.repeats.is_empty() {
        repeats::section(&mut out, page.repeats);
    }
    if page.pages.is_none() {
        timelines(&mut out, page);
    }
    checks::section(&mut out, page.findings);
    run::section(&mut out, &page.run);
    out.push_str(
        "<p class=\"note\">Every number on this page was read from summary.json and \
         requests.jsonl.gz, computed by plateau's core metric definitions (SPEC section 5).</p>\n\
         </body>\n</html>\n",
    );
    out
}

/// The start of a page of the report: its `<head>` (title, [`STYLE`]) and `<body>`.
pub fn head(out: &mut String, title: &str) {
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n\
         <title>{}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n",
        escape(title)
    );
}

/// The links to the sections, in page order (those the page has).
fn nav(out: &mut String, page: &Page) {
    let more = page.overview.iter().any(|r| !r.key);
    let one = page.pages.is_none();
    let links = [
        ("headline", "Headline", !page.headline.is_empty()),
        ("capacity", "Capacity", !page.capacity.is_empty()),
        ("summary", if one { "Summary" } else { "Cells" }, true),
        ("figures", "Key figures", true),
        ("more-figures", "More figures", more),
        ("distributions", "Distributions", true),
        ("results", "Per-cell results", one),
        ("repeats", "Repeats", !page.repeats.is_empty()),
        ("timelines", "Timelines", one),
        ("checks", "Checks", true),
        ("run", "Run", true),
    ];
    out.push_str("<nav>");
    for (id, name, _) in links.iter().filter(|l| l.2) {
        let _ = write!(out, "<a href=\"#{id}\">{name}</a>");
    }
    out.push_str("</nav>\n");
}

/// `figures` side by side where they fit, each at its own size or the page's width.
fn figures(out: &mut String, figures: &[&Rendered]) {
    out.push_str("<div class=\"figs\">\n");
    for r in figures {
        figure(out, r);
    }
    out.push_str("</div>\n");
}

fn distributions(out: &mut String, distributions: &[Rendered]) {
    out.push_str(
        "<h2 id=\"distributions\">Distributions</h2>\n<p class=\"note\">Every measured \
         request's TTFT and every gap between its content chunks (ITL per chunk), as \
         cumulative distributions, one line per load; for multi-turn scenarios, each \
         request's TTFT against its prompt length.</p>\n",
    );
    if distributions.is_empty() {
        out.push_str("<p class=\"note\">No cell's requests could be read.</p>\n");
    }
    let all: Vec<&Rendered> = distributions.iter().collect();
    figures(out, &all);
}

/// Each scenario's timelines, folded.
fn timelines(out: &mut String, page: &Page) {
    out.push_str(
        "<h2 id=\"timelines\">Timelines</h2>\n<p class=\"note\">Each cell over its whole life: \
         output tokens/s and requests in flight, phases shaded, the server's own gauges where \
         its /metrics was scraped. A steady Measure window is flat. Open a scenario to see \
         its cells.</p>\n",
    );
    for scenario in &page.m.scenarios {
        let title = scenario.title();
        let these: Vec<&Rendered> = page
            .timelines
            .iter()
            .filter(|r| r.scenario.as_ref() == Some(&title))
            .collect();
        if these.is_empty() {
            continue;
        }
        let _ = writeln!(
            out,
            "<details class=\"fold\"><summary>{}: {} timeline(s)</summary>\n<div class=\"grid\">",
            escape(&title),
            these.len()
        );
        for r in these {
            figure(out, r);
        }
        out.push_str("</div></details>\n");
    }
}

/// What a data URI of an SVG must not hold as is: controls, `%`, `#` (a fragment), and
/// the markup characters an HTML attribute would otherwise spell as longer entities.
const SVG_URI: &AsciiSet = &CONTROLS
    .add(b'%')
    .add(b'#')
    .add(b'"')
    .add(b'\'')
    .add(b'<')
    .add(b'>')
    .add(b'&');

/// `r` as an embedded SVG with its caption.
pub fn figure(out: &mut String, r: &Rendered) {
    let files: Vec<String> = r
        .files
        .iter()
        .filter_map(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .collect();
    let _ = writeln!(
        out,
        "<figure id=\"{}\"><img width=\"{}\" height=\"{}\" alt=\"{}\" \
         src=\"data:image/svg+xml;charset=utf-8,{}\"/><figcaption>{} — {}</figcaption></figure>",
        escape(&r.name),
        r.size.0,
        r.size.1,
        escape(&r.title),
        utf8_percent_encode(&r.svg, SVG_URI),
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
