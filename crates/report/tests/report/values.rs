//! report.html, summary.csv and summary.md show exactly the fixture's numbers: every value
//! is looked up independently in the cell's summary.json by its field path.

use std::path::Path;

use plateau_core::results::read_json;

use crate::common;

fn summary(results: &Path, rel: &str) -> serde_json::Value {
    read_json(&results.join(rel).join("summary.json")).unwrap()
}

/// The number at `path` (`ttft_ms.p50`) of a summary; `None` when null.
fn field(summary: &serde_json::Value, path: &str) -> Option<f64> {
    let mut v = summary;
    for key in path.split('.') {
        v = v.get(key)?;
    }
    v.as_f64()
}

#[test]
fn report_html_shows_the_summary_values() {
    let (results, _, out) = common::clean();
    let html = std::fs::read_to_string(&out.html).unwrap();
    let doc = roxmltree::Document::parse_with_options(
        &html,
        roxmltree::ParsingOptions {
            allow_dtd: true,
            ..Default::default()
        },
    )
    .unwrap();
    let rows: Vec<_> = doc
        .descendants()
        .filter(|n| n.has_tag_name("tr") && n.attribute("data-cell").is_some())
        .collect();
    assert_eq!(rows.len(), 12, "one row per cell");
    let mut checked = 0;
    for row in rows {
        let rel = row.attribute("data-cell").unwrap();
        let s = summary(results, rel);
        for td in row.children().filter(|n| n.has_tag_name("td")) {
            let Some(path) = td.attribute("data-field") else {
                continue;
            };
            let want = field(&s, path);
            let got = td
                .attribute("data-value")
                .map(|v| v.parse::<f64>().unwrap());
            assert_eq!(got, want, "{rel} {path}");
            if let Some(want) = want {
                let shown: f64 = td.text().unwrap().parse().unwrap();
                let tolerance = want.abs() * 0.005 + 0.0005;
                assert!(
                    (shown - want).abs() <= tolerance,
                    "{rel} {path}: {shown} vs {want}"
                );
                checked += 1;
            }
        }
    }
    assert!(checked >= 12 * 14, "checked {checked} values");
}

#[test]
fn report_html_lists_the_warnings() {
    let (_, _, out) = common::clean();
    let html = std::fs::read_to_string(&out.html).unwrap();
    for check in ["synthetic_data", "token_agreement", "small_sample"] {
        assert!(html.contains(&format!("data-check=\"{check}\"")), "{check}");
    }
    assert!(!html.contains("<script"), "no scripts");
    assert!(!html.contains("src=\"http"), "no external resources");
    assert_eq!(
        html.matches("data:image/png;base64,").count(),
        out.figures.len()
    );
}

#[test]
fn summary_csv_has_the_summary_values() {
    let (results, _, out) = common::clean();
    let csv = std::fs::read_to_string(&out.csv).unwrap();
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let column = |name: &str| header.iter().position(|h| *h == name).unwrap();
    // CSV column -> summary.json field.
    let pairs = [
        ("concurrency", "cell.concurrency"),
        ("ok", "requests.measured_ok"),
        ("errors", "requests.measured_errors"),
        ("ttft_ms_p50", "ttft_ms.p50"),
        ("ttft_ms_p99", "ttft_ms.p99"),
        ("tpot_ms_p50", "tpot_ms.p50"),
        ("itl_chunk_ms_p99", "itl_chunk_ms.p99"),
        ("jitter_chunk", "jitter.chunk"),
        ("user_throughput_tps_mean", "user_throughput_tps.mean"),
        ("server_direct_tps", "throughput.server_direct_tps"),
        ("request_rps", "throughput.request_rps"),
    ];
    let mut rows = 0;
    for line in lines {
        let cells: Vec<&str> = line.split(',').collect();
        let rel = format!(
            "{}/{}/{}/c{}",
            cells[column("endpoint")],
            cells[column("model")],
            cells[column("scenario")],
            cells[column("concurrency")]
        );
        let s = summary(results, &rel);
        for (name, path) in pairs {
            let got: f64 = cells[column(name)].parse().unwrap();
            assert_eq!(Some(got), field(&s, path), "{rel} {name}");
        }
        rows += 1;
    }
    assert_eq!(rows, 12);
}

#[test]
fn summary_md_has_a_table_per_scenario() {
    let (_, _, out) = common::clean();
    let md = std::fs::read_to_string(&out.markdown).unwrap();
    assert!(md.contains("## A1 · Same Short"));
    assert!(md.contains("## B2 · Diverse Long"));
    let rows = md
        .lines()
        .filter(|l| l.starts_with("| vllm") || l.starts_with("| sglang"));
    assert_eq!(rows.count(), 12);
}
