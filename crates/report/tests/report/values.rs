//! report.html, summary.csv and summary.md show exactly the fixture's numbers: every value
//! is looked up independently in the cell's summary.json by its field path, and the
//! capacity answer as capacity.json has it.

use std::path::Path;

use plateau_model::results::read_json;

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

/// Checks every `data-field` cell of every results row of `html` against the summary of
/// its cell; returns `(rows, values checked)`.
pub(crate) fn check_rows(results: &Path, html: &str) -> (usize, usize) {
    let doc = roxmltree::Document::parse_with_options(
        html,
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
    let mut checked = 0;
    for row in &rows {
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
    (rows.len(), checked)
}

#[test]
fn report_html_shows_the_summary_values() {
    let (results, _, out) = common::clean();
    let html = std::fs::read_to_string(&out.html).unwrap();
    let (rows, checked) = check_rows(results, &html);
    assert_eq!(
        rows,
        2 * 12,
        "one row per cell in the summary and in the per-cell tables"
    );
    assert!(checked >= 12 * (14 + 6), "checked {checked} values");
}

#[test]
fn open_loop_rows_show_the_load_columns() {
    let (results, _, out) = common::open();
    let html = std::fs::read_to_string(&out.html).unwrap();
    let (rows, checked) = check_rows(results, &html);
    assert_eq!(
        rows,
        2 * (3 + 4),
        "three closed-loop and four open-loop cells, in the summary and per-cell tables"
    );
    // Four open-loop rows of 13 numeric columns (queue p99 is absent: no client queue),
    // and the summary's 6 of every cell.
    assert!(
        checked >= 3 * 13 + 4 * 13 + 7 * 6,
        "checked {checked} values"
    );
    for field in [
        "cell.request_rate",
        "load.offered_rps",
        "load.achieved_rps",
        "load.schedule_lag_ms.p99",
        "load.queue_ms.p99",
        "goodput.rate_rps",
    ] {
        assert_eq!(
            html.matches(&format!("data-field=\"{field}\"")).count(),
            4,
            "{field}"
        );
    }
    assert!(html.contains("<summary>A1 · Same Short, open loop: 4 cell(s)</summary>"));
    // 8 req/s outpaced the server: its rows (summary, per-cell) say so, the others do not.
    let r8 = html
        .lines()
        .find(|l| l.contains("data-cell=\"vllm/llama-8b/A1/r8\""))
        .unwrap();
    assert!(r8.contains(">overloaded</td>"), "{r8}");
    let overloaded_rows = html
        .lines()
        .filter(|l| l.contains("data-cell=") && l.contains(">overloaded</td>"));
    assert_eq!(overloaded_rows.count(), 2);
}

#[test]
fn report_opens_with_the_capacity_answer() {
    let (_, _, out) = common::open();
    let html = std::fs::read_to_string(&out.html).unwrap();
    let md = std::fs::read_to_string(&out.markdown).unwrap();
    let capacity = html.find("<h2 id=\"capacity\">").expect("capacity section");
    assert!(
        capacity < html.find("<h2 id=\"run\">").unwrap(),
        "capacity comes first"
    );
    let want = [
        "vllm · llama-8b · A1: 6 req/s, 72.0 output tok/s",
        "TTFT p99 ≤ 100 ms, TPOT p99 ≤ 25 ms",
        "6 req/s within the SLO",
        "[6, 8) req/s",
        "ttft_p99_ms at 8 req/s",
        "medium: at 6 req/s ttft_p99_ms has too few samples for a confidence interval",
        "probes exhausted",
        "100 req/s target: 17 instances, 20 with 20% headroom",
        "7.00 req/s: what the server completed when its queue grew",
    ];
    for text in want {
        assert!(html.contains(text), "report.html lacks {text:?}");
        assert!(md.contains(text), "summary.md lacks {text:?}");
    }
    // The probes, in the order run, each check against its limit.
    let probes = [
        "| 4 | complete | yes | 34.2 ≤ 100 | 16.2 ≤ 25 | no | kept up | 4.00 | 48.0 | 4 | vllm/llama-8b/A1/r4 |",
        "| 8 | complete | NO | 767 > 100 | 18.7 ≤ 25 | overloaded | kept up | 7.00 | 83.5 | 4 | vllm/llama-8b/A1/r8 |",
        "| 6 | complete | yes | 39.2 ≤ 100 | 17.5 ≤ 25 | no | kept up | 6.00 | 72.0 | 4 | vllm/llama-8b/A1/r6 |",
    ];
    let at = |p: &str| {
        md.find(p)
            .unwrap_or_else(|| panic!("summary.md lacks {p:?}"))
    };
    assert!(at(probes[0]) < at(probes[1]) && at(probes[1]) < at(probes[2]));
    assert!(html.contains("<td>767 &gt; 100</td>"));
    assert!(md.contains("## A1 · Same Short, open loop"));
}

#[test]
fn a_closed_loop_run_has_no_capacity_section() {
    let (_, _, out) = common::clean();
    let html = std::fs::read_to_string(&out.html).unwrap();
    let md = std::fs::read_to_string(&out.markdown).unwrap();
    assert!(!html.contains("id=\"capacity\""));
    assert!(!html.contains("open loop"));
    assert!(!md.contains("Capacity"));
    assert!(!md.contains("open loop"));
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
        html.matches("src=\"data:image/svg+xml;charset=utf-8,")
            .count(),
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

#[test]
fn wide_characters_in_a_name_keep_the_columns_aligned() {
    let (results, _, _) = common::clean();
    let read = |rel: &str| -> plateau_model::results::summary::CellSummary {
        read_json(&results.join(rel).join("summary.json")).unwrap()
    };
    let mut cells = vec![read("vllm/llama-8b/A1/c1"), read("sglang/llama-8b/A1/c1")];
    // Three CJK characters: six terminal columns, three chars.
    cells[1].cell.endpoint = "服务器".into();
    let text = plateau_report::table::text(&cells);
    let display = |l: &str| {
        l.chars()
            .map(|c| if c > '\u{2e80}' { 2 } else { 1 })
            .sum::<usize>()
    };
    let lines: Vec<&str> = text.lines().take(3).collect();
    assert!(lines[2].starts_with("服务器/"), "{text}");
    // Every row ends with the steady verdict right-aligned at the header's last column.
    let width = display(lines[0]);
    for l in &lines[1..] {
        assert_eq!(display(l), width, "{text}");
    }
}

#[test]
fn a_row_of_a_cell_that_failed_a_check_names_the_check() {
    let (results, _, _) = common::clean();
    let mut s: plateau_model::results::summary::CellSummary =
        read_json(&results.join("vllm/llama-8b/A1/c1/summary.json")).unwrap();
    assert!(s.metrics.steady.steady, "the clean fixture is steady");
    let steady = plateau_report::table::text(std::slice::from_ref(&s));
    assert!(
        steady.lines().nth(1).unwrap().ends_with("  steady"),
        "{steady}"
    );
    // The same steady window, measured by a client on every core it had.
    s.client = Some(Box::new(plateau_model::results::health::ClientHealth {
        sched_lag_ms: None,
        bare_lag_ms: None,
        cpu_s: Some(19.0),
        cpu_cores_used: Some(1.9),
        cores: 2,
        window_s: 10.0,
        machine_cores_busy: Some(2.0),
        machine_cores: Some(2),
    }));
    let text = plateau_report::table::text(std::slice::from_ref(&s));
    let row = text.lines().nth(1).unwrap();
    assert!(row.ends_with("  FAIL client_bottleneck"), "{text}");
    let line = plateau_report::table::one_line(&s);
    assert!(line.ends_with("verdict: FAIL client_bottleneck"), "{line}");
    let t = plateau_model::validate::Thresholds::default();
    let v = plateau_report::tables::verdict(&s, &t);
    assert!(
        v.failed && v.why.starts_with("client_bottleneck: the client was"),
        "{v:?}"
    );
}
