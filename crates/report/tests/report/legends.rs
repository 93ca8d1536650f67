//! What the figures draw and say they draw: a heatmap colours on a log scale where its
//! values span more than tenfold and says so, linearly otherwise; a legend names the
//! not-steady outline, the empty square, the confidence band and the overloaded marker only
//! when the figure has one; the server's gauges are steps between scrapes.

use std::path::Path;

use plateau_report::figures::heatmap::ColourScale;
use plateau_report::style;
use plotters::style::RGBColor;

use crate::common::{self, fixture_copy, svg};

/// `#RRGGBB`, as the SVG writes a fill.
fn hex(c: RGBColor) -> String {
    format!("#{:02X}{:02X}{:02X}", c.0, c.1, c.2)
}

/// Sets `ttft_ms.p99` of the cell at `rel` under `results`.
fn set_ttft_p99(results: &Path, rel: &str, ms: f64) {
    let path = results.join(rel).join("summary.json");
    let mut v: serde_json::Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    v["ttft_ms"]["p99"] = serde_json::json!(ms);
    std::fs::write(&path, serde_json::to_vec(&v).unwrap()).unwrap();
}

/// Every closed-loop TTFT p99 of the results at `dir`.
fn ttft_p99s(dir: &Path) -> Vec<f64> {
    plateau_model::results::find_cells(dir)
        .unwrap()
        .iter()
        .map(|d| {
            let v: serde_json::Value =
                plateau_model::results::read_json(&d.join("summary.json")).unwrap();
            v["ttft_ms"]["p99"].as_f64().unwrap()
        })
        .collect()
}

fn span(values: &[f64]) -> (f64, f64) {
    values.iter().fold((f64::INFINITY, 0.0f64), |(lo, hi), &v| {
        (lo.min(v), hi.max(v))
    })
}

#[test]
fn a_heatmap_spanning_more_than_tenfold_is_coloured_on_a_log_scale() {
    // The clean fixture's TTFT p99s span less than 10x: linear, and the legend says so.
    let (results, figures, _) = common::clean();
    let (lo, hi) = span(&ttft_p99s(results));
    assert!(hi / lo < 10.0, "{lo} .. {hi}");
    let linear = svg(figures, "heatmap_ttft_p99");
    assert!(linear.contains("(linear colour scale)"));
    assert!(!linear.contains("log colour scale"));
    assert_eq!(ColourScale::of(lo, hi), ColourScale::Linear { lo, hi });

    // One slow cell (1,347 ms) makes the span more than tenfold: log.
    let (_tmp, results, figures) = fixture_copy("clean", "heatmap-log");
    set_ttft_p99(&results, "sglang/llama-8b/B2/c4", 1347.0);
    plateau_report::render(&plateau_report::Options::new(&results, &figures)).unwrap();
    let values = ttft_p99s(&results);
    let (lo, hi) = span(&values);
    assert_eq!(hi, 1347.0);
    let log = svg(&figures, "heatmap_ttft_p99");
    let spanned = format!(
        "(log colour scale: the values span {}×)",
        style::number(hi / lo)
    );
    assert!(log.contains(&spanned), "legend lacks {spanned:?}");
    // Each square is filled by its log position, not its linear one: the fastest cells
    // are told apart instead of sharing the darkest colour.
    let filled = |c: RGBColor| common::count(&log, "rect", &[("fill", &hex(c))]);
    let by_log = |v: f64| style::scale((v / lo).ln() / (hi / lo).ln());
    let by_line = |v: f64| style::scale((v - lo) / (hi - lo));
    let log_colours: Vec<RGBColor> = values.iter().map(|&v| by_log(v)).collect();
    for &v in values.iter().filter(|&&v| v != lo && v != hi) {
        assert_ne!(by_log(v), by_line(v), "{v}");
        assert!(
            filled(by_log(v)) >= 1,
            "no square of {v} ms in its log colour"
        );
        if !log_colours.contains(&by_line(v)) {
            assert_eq!(
                filled(by_line(v)),
                0,
                "a square of {v} ms in its linear colour"
            );
        }
    }
}

#[test]
fn heatmap_legends_name_the_outline_and_the_empty_square_only_when_drawn() {
    const UNSTEADY: &str = "measure window not steady";
    const EMPTY: &str = "no such cell or no value";
    // Clean: every cell steady, every square filled.
    let (_, figures, _) = common::clean();
    for name in ["heatmap_ttft_p99", "heatmap_server_throughput"] {
        let text = svg(figures, name);
        assert!(!text.contains(UNSTEADY) && !text.contains(EMPTY), "{name}");
    }
    // Unsteady fixture: N = 4 was not steady; the outline is drawn and named.
    let (_tmp, results, figures) = fixture_copy("unsteady", "legend-unsteady");
    plateau_report::render(&plateau_report::Options::new(&results, &figures)).unwrap();
    let text = svg(&figures, "heatmap_ttft_p99");
    assert!(text.contains(UNSTEADY));
    let outlined = common::count(&text, "rect", &[("stroke", &hex(style::ALERT))]);
    assert_eq!(
        outlined,
        1 + 1,
        "the legend's swatch and the one unsteady square"
    );
    // A cell missing from one series: its square is empty and the legend says why.
    let (_tmp, results, figures) = fixture_copy("clean", "legend-empty");
    std::fs::remove_dir_all(results.join("sglang/llama-8b/B2/c4")).unwrap();
    plateau_report::render(&plateau_report::Options::new(&results, &figures)).unwrap();
    assert!(svg(&figures, "heatmap_ttft_p99").contains(EMPTY));
}

#[test]
fn scaling_legends_name_the_confidence_band_only_where_one_is_drawn() {
    const BAND: &str = "95% confidence interval";
    let (_, figures, _) = common::clean();
    // TTFT p50 has an interval in every summary, jitter none.
    assert!(svg(figures, "ttft_vs_concurrency").contains(BAND));
    assert!(!svg(figures, "jitter_vs_concurrency").contains(BAND));
}

#[test]
fn open_loop_legends_name_the_overloaded_marker_only_when_a_cell_is() {
    const CROSSED: &str = "crossed: overloaded";
    let names = ["ttft_vs_rate", "tpot_vs_rate", "achieved_vs_offered_rate"];
    let (_, figures, _) = common::open();
    for name in names {
        assert!(svg(figures, name).contains(CROSSED), "{name}");
    }
    // Without its one overloaded cell (8 req/s), no figure names the marker.
    let (_tmp, results, figures) = fixture_copy("open", "legend-not-overloaded");
    std::fs::remove_dir_all(results.join("vllm/llama-8b/A1/r8")).unwrap();
    plateau_report::render(&plateau_report::Options::new(&results, &figures)).unwrap();
    for name in names {
        assert!(!svg(&figures, name).contains(CROSSED), "{name}");
    }
}

/// The default-size run's N = 4 cells: the server ran 4, then 3, then 4, ... requests,
/// one scrape every 250 ms. Its running line holds each level until the next scrape: two
/// points a scrape, every segment flat or upright, only the two levels ever drawn.
#[test]
fn server_gauges_are_steps_between_scrapes() {
    let (results, figures, _) = common::default_size();
    let cell = results.join("vllm/llama-8b/A1/c4");
    let scrapes =
        plateau_model::scrape::read(&cell.join(plateau_model::scrape::SERVER_METRICS_FILE))
            .unwrap();
    let text = svg(figures, "timeline_vllm_llama-8b_A1_c4");
    let lines = common::polyline_points(&text, "#009E73", 2);
    assert_eq!(lines.len(), 1, "one running line");
    let points = &lines[0];
    assert_eq!(points.len(), 2 * scrapes.len());
    for w in points.windows(2) {
        assert!(w[0].0 == w[1].0 || w[0].1 == w[1].1, "a ramp: {w:?}");
    }
    let mut levels: Vec<i64> = points.iter().map(|p| p.1 as i64).collect();
    levels.sort_unstable();
    levels.dedup();
    assert_eq!(
        levels.len(),
        2,
        "4 and 3 running, nothing between: {levels:?}"
    );
}
