//! report.html opens on the answer: for a run the size of the default config's, the page
//! stays under 2 MB with every figure an embedded SVG; the headline, the summary table and
//! the key figures come first; the per-cell tables and the timelines are folded below. The
//! summary table's rows are summary.md's, and its numbers are summary.csv's.

use std::collections::HashMap;

use roxmltree::{Document, Node, ParsingOptions};

use crate::common;
use crate::fixtures::default_size::{CONCURRENCIES, SCENARIOS};

/// The default run's report.html must stay under this, bytes.
const MAX_BYTES: u64 = 2_000_000;

fn parse(html: &str) -> Document<'_> {
    let options = ParsingOptions {
        allow_dtd: true,
        ..Default::default()
    };
    Document::parse_with_options(html, options).unwrap()
}

fn class_is(n: &Node, class: &str) -> bool {
    n.attribute("class") == Some(class)
}

fn folded(n: &Node) -> bool {
    n.ancestors().any(|a| a.has_tag_name("details"))
}

#[test]
fn a_default_size_report_is_small_and_opens_on_the_answer() {
    let (_, _, out) = common::default_size();
    let bytes = std::fs::metadata(&out.html).unwrap().len();
    assert!(bytes <= MAX_BYTES, "report.html is {bytes} bytes");
    let html = std::fs::read_to_string(&out.html).unwrap();
    let figures = out.figures.len();
    assert_eq!(
        figures,
        12 + 24,
        "the overview, the distributions, 24 timelines"
    );
    assert_eq!(html.matches("src=\"data:image/svg+xml").count(), figures);
    assert!(!html.contains("data:image/png"));

    let doc = parse(&html);
    let nodes: Vec<Node> = doc.descendants().collect();
    let at = |f: &dyn Fn(&Node) -> bool| nodes.iter().position(f);
    let headline = at(&|n| n.attribute("id") == Some("headline")).unwrap();
    let summary = at(&|n| n.has_tag_name("table") && class_is(n, "summary")).unwrap();
    let figure = at(&|n| n.has_tag_name("figure")).unwrap();
    let per_cell = |n: &Node| {
        n.has_tag_name("table")
            && n.attribute("class").is_none()
            && n.descendants().any(|d| d.attribute("data-cell").is_some())
    };
    let first_per_cell = at(&per_cell).unwrap();
    assert!(headline < summary, "the headline opens the page");
    assert!(
        summary < figure,
        "the summary table comes before the figures"
    );
    assert!(
        figure < first_per_cell,
        "the key figures before the per-cell tables"
    );
    // Nothing but the summary table stands between the headline and the first figure.
    let tables_before = nodes[..figure].iter().filter(|n| n.has_tag_name("table"));
    assert_eq!(tables_before.count(), 1);

    // The summary table: a row per cell, the scenario named once beside its rows.
    let table = &nodes[summary];
    let rows: Vec<Node> = table
        .descendants()
        .filter(|n| n.attribute("data-cell").is_some())
        .collect();
    assert_eq!(rows.len(), SCENARIOS.len() * CONCURRENCIES.len());
    let named: Vec<&str> = table
        .descendants()
        .filter(|n| class_is(n, "scenario"))
        .map(|n| n.text().unwrap())
        .collect();
    assert_eq!(named.len(), SCENARIOS.len());
    assert!(named[0].starts_with("A1 · "), "{named:?}");

    // Folded: every per-cell table and every timeline; not folded: the rest.
    let tables: Vec<&Node> = nodes.iter().filter(|n| per_cell(n)).collect();
    assert_eq!(tables.len(), SCENARIOS.len());
    assert!(tables.iter().all(|n| folded(n)));
    assert!(!folded(table));
    for f in nodes.iter().filter(|n| n.has_tag_name("figure")) {
        let id = f.attribute("id").unwrap();
        assert_eq!(folded(f), id.starts_with("timeline_"), "{id}");
    }
}

/// One row of the summary table: its cell and the text of each column after the
/// scenario (load, numbers, verdict), with `(field, value)` of each number.
struct Row {
    rel: String,
    scenario: String,
    texts: Vec<String>,
    values: Vec<(String, String)>,
}

fn summary_rows(html: &str) -> Vec<Row> {
    let doc = parse(html);
    let table = doc
        .descendants()
        .find(|n| n.has_tag_name("table") && class_is(n, "summary"))
        .unwrap();
    let mut scenario = String::new();
    let mut rows = Vec::new();
    for tr in table
        .children()
        .filter(|n| n.attribute("data-cell").is_some())
    {
        let mut texts = Vec::new();
        let mut values = Vec::new();
        for td in tr.children().filter(|n| n.has_tag_name("td")) {
            let text = td.text().unwrap_or("").to_owned();
            if class_is(&td, "scenario") {
                scenario = text;
                continue;
            }
            if let (Some(f), Some(v)) = (td.attribute("data-field"), td.attribute("data-value")) {
                values.push((f.to_owned(), v.to_owned()));
            }
            texts.push(text);
        }
        rows.push(Row {
            rel: tr.attribute("data-cell").unwrap().to_owned(),
            scenario: scenario.clone(),
            texts,
            values,
        });
    }
    rows
}

/// The rows of summary.md's summary table, split into cells.
fn markdown_rows(md: &str) -> Vec<Vec<String>> {
    common::section(md, "## Summary", "\n## ")
        .lines()
        .filter(|l| l.starts_with("| ") && !l.starts_with("| scenario"))
        .map(|l| {
            l.trim_matches(|c| c == '|' || c == ' ')
                .split(" | ")
                .map(str::to_owned)
                .collect()
        })
        .collect()
}

/// summary.csv's rows by cell path (`endpoint/model/scenario/c<N>`), each by header.
fn csv_rows(csv: &str) -> HashMap<String, HashMap<String, String>> {
    let mut reader = csv::Reader::from_reader(csv.as_bytes());
    let head = reader.headers().unwrap().clone();
    reader
        .records()
        .map(|r| {
            let r = r.unwrap();
            let row: HashMap<String, String> = head
                .iter()
                .zip(r.iter())
                .map(|(h, v)| (h.to_owned(), v.to_owned()))
                .collect();
            let rel = format!(
                "{}/{}/{}/c{}",
                row["endpoint"], row["model"], row["scenario"], row["concurrency"]
            );
            (rel, row)
        })
        .collect()
}

#[test]
fn summary_md_and_csv_say_what_the_summary_table_says() {
    for (_, _, out) in [common::clean(), common::default_size()] {
        let html = std::fs::read_to_string(&out.html).unwrap();
        let md = std::fs::read_to_string(&out.markdown).unwrap();
        let csv = csv_rows(&std::fs::read_to_string(&out.csv).unwrap());
        let rows = summary_rows(&html);
        let md_rows = markdown_rows(&md);
        assert_eq!(rows.len(), out.cells);
        assert_eq!(md_rows.len(), rows.len(), "summary.md:\n{md}");
        for (row, md_row) in rows.iter().zip(&md_rows) {
            // The same words and numbers, in the same order, the scenario on every md row.
            assert_eq!(md_row[0], row.scenario, "{}", row.rel);
            assert_eq!(md_row[1..], row.texts[..], "{}", row.rel);
            // Every number as the CSV has it, in full precision, under its column.
            assert_eq!(row.values.len(), 6, "{}", row.rel);
            for (field, value) in &row.values {
                let q = plateau_report::tables::SUMMARY_COLUMNS
                    .iter()
                    .find(|q| q.field == field)
                    .unwrap();
                assert_eq!(&csv[&row.rel][q.column], value, "{} {field}", row.rel);
            }
        }
    }
}
