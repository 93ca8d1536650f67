//! What the figures mark, counted in their SVGs against the fixtures' known data: failed
//! and turned-away requests on timelines, the Pareto frontier, hollow (too few samples)
//! and crossed (overloaded) points in the Pareto and rate figures, and the comparison's
//! confidence-interval legend only where a whisker is drawn.

use plateau_model::results::summary::CellSummary;
use plateau_model::results::{SUMMARY_FILE, read_json, write_json};
use plateau_model::sample::Outcome;
use plateau_report::Options;

use crate::common::{self, count, polylines, svg};

/// The alert colour of error marks (`style::ALERT`).
const ALERT: &str = "#C81E1E";
/// Series 0's colour (vllm).
const VLLM: &str = "#0072B2";

/// In vllm A1 N=2, three measured requests fail with a 500 mid-stream and two are turned
/// away with a 429: its timeline draws three crosses and two triangles with a legend entry
/// each (counts in it), the other timelines draw none, and the headline's error rate for
/// vllm A1 is 5 of the scenario's 146 measured requests (25 + 45 + 76).
#[test]
fn failed_requests_are_marked_on_their_timeline() {
    let (_tmp, results, figures) = common::fixture_copy("clean", "timeline-errors");
    let cell = results.join("vllm/llama-8b/A1/c2");
    let summary = common::rewrite_requests(&cell, |samples| {
        let measured: Vec<usize> = (0..samples.len())
            .filter(|&i| (2_000_000..6_000_000).contains(&samples[i].t_sent_us))
            .take(5)
            .collect();
        for (k, &i) in measured.iter().enumerate() {
            let s = &mut samples[i];
            if k < 3 {
                s.chunks.truncate(4);
                s.outcome = Outcome::HttpStatus { status: 500 };
            } else {
                s.chunks.clear();
                s.t_end_us = s.t_sent_us + 2_000;
                s.outcome = Outcome::HttpStatus { status: 429 };
            }
            s.n_out = None;
        }
    });
    assert_eq!(summary.metrics.requests.measured_errors, 5);
    assert_eq!(summary.metrics.requests.measured, 45);
    let out = plateau_report::render(&Options::new(&results, &figures)).unwrap();

    let marked = svg(&figures, "timeline_vllm_llama-8b_A1_c2");
    assert!(marked.contains("failed request, at its end (3)"));
    assert!(marked.contains("turned away: 429, 503 or no connection (2)"));
    // A cross is two strokes; the legend's swatch is one more cross and one more triangle.
    assert_eq!(polylines(&marked, ALERT, 2).len(), 2 * (3 + 1));
    assert_eq!(count(&marked, "polygon", &[("fill", ALERT)]), 2 + 1);
    for f in out
        .figures
        .iter()
        .filter(|f| f.name.starts_with("timeline_"))
    {
        if f.name == "timeline_vllm_llama-8b_A1_c2" {
            continue;
        }
        let clean = svg(&figures, &f.name);
        assert!(!clean.contains("failed request"), "{}", f.name);
        assert_eq!(polylines(&clean, ALERT, 2).len(), 0, "{}", f.name);
        assert_eq!(
            count(&clean, "polygon", &[("fill", ALERT)]),
            0,
            "{}",
            f.name
        );
    }

    let html = std::fs::read_to_string(&out.html).unwrap();
    let headline = common::section(&html, "<h2 id=\"headline\">", "<h2 ");
    // 5 / 146 = 3.42%.
    assert!(headline.contains("3.42%"), "{headline}");
    assert!(headline.contains("5 of 146 measured requests failed"));
    assert!(
        headline.contains("0 of 166 measured requests failed"),
        "sglang A1: 28 + 52 + 86"
    );
}

/// In the clean fixture every series' TTFT p99 and throughput both climb with N, so the
/// frontier runs through all three points of each panel. Lowering vllm A1 N=4's throughput
/// to 100 tok/s (below N=2's 136 at a higher p99: 44 vs 34 ms) takes it off the frontier:
/// that line has two points and N=4 stays a mark.
#[test]
fn the_pareto_line_is_the_frontier() {
    const NAME: &str = "pareto_throughput_vs_ttft_p99";
    let (_, figures, _) = common::clean();
    let lines = |svg: &str| {
        // Legend swatch first (2 points), then the A1 and B2 panels' frontiers.
        polylines(svg, VLLM, 3)
    };
    assert_eq!(lines(&svg(figures, NAME)), vec![2, 3, 3]);

    let (_tmp, results, figures) = common::fixture_copy("clean", "pareto-frontier");
    let path = results.join("vllm/llama-8b/A1/c4").join(SUMMARY_FILE);
    let mut s: CellSummary = read_json(&path).unwrap();
    s.metrics.throughput.server_direct_tps = 100.0;
    write_json(&path, &s).unwrap();
    plateau_report::render(&Options::new(&results, &figures)).unwrap();
    let text = svg(&figures, NAME);
    assert_eq!(lines(&text), vec![2, 2, 3]);
    assert!(text.contains("line: the frontier"));
    // Every point is still drawn: 6 vllm markers (a fill and an edge each), N=4 among them.
    let vllm_edges = count(&text, "circle", &[("stroke", VLLM), ("r", "5")]);
    assert_eq!(vllm_edges, 6);
}

/// The clean fixture's TTFT p99s rest on under 1,000 samples: all 12 Pareto points are
/// hollow and the legend says so; with no small-sample flag none is.
#[test]
fn pareto_points_from_too_few_samples_are_hollow() {
    const NAME: &str = "pareto_throughput_vs_ttft_p99";
    const LEGEND: &str = "hollow: too few samples for this percentile";
    let white = |svg: &str| count(svg, "circle", &[("fill", "#FFFFFF")]);
    let (_, figures, _) = common::clean();
    let small = svg(figures, NAME);
    assert!(small.contains(LEGEND));
    // 12 points and the legend's swatch.
    assert_eq!(white(&small), 12 + 1);

    let (_tmp, results, figures) = common::fixture_copy("clean", "pareto-no-small");
    for dir in plateau_model::results::find_cells(&results).unwrap() {
        let path = dir.join(SUMMARY_FILE);
        let mut s: CellSummary = read_json(&path).unwrap();
        if let Some(d) = s.metrics.ttft_ms.as_mut() {
            d.small_sample = Default::default();
        }
        write_json(&path, &s).unwrap();
    }
    plateau_report::render(&Options::new(&results, &figures)).unwrap();
    let solid = svg(&figures, NAME);
    assert!(!solid.contains(LEGEND));
    assert_eq!(white(&solid), 0);
}

/// The open fixture's TTFT vs rate: r8 is overloaded (crossed, on both the p50 and p99
/// lines), the p99s of r2, r4 and r6 and the p50s of r2 and r4 rest on too few samples
/// (hollow); the legend has an entry for each meaning. The closed-and-open Pareto figure
/// crosses r8 too.
#[test]
fn rate_figures_tell_overloaded_from_too_few_samples() {
    let (_, figures, _) = common::open();
    let text = svg(figures, "ttft_vs_rate");
    assert!(text.contains("crossed: overloaded"));
    assert!(text.contains("hollow: too few samples for this percentile"));
    // White squares: 5 hollow + 2 crossed points, and the two legend swatches.
    let white = count(&text, "rect", &[("fill", "#FFFFFF")]);
    let background = 1;
    assert_eq!(white - background, 5 + 2 + 2);
    // The cross inside a crossed square: two 1 px strokes in the series' colour, per point.
    assert_eq!(polylines(&text, VLLM, 1).len(), 2 * 2);

    let pareto = svg(figures, "pareto_closed_and_open_vs_ttft_p99");
    assert!(pareto.contains("crossed: overloaded"));
    assert_eq!(polylines(&pareto, VLLM, 1).len(), 2, "r8 crossed");
}

/// No summary in the fixtures has a p99 interval (under 368 samples) or one on the
/// throughputs, so the comparison draws no whisker and claims none; with one series it is
/// titled a scenario comparison. Give one cell a TTFT p99 interval: one whisker, and the
/// legend names it.
#[test]
fn the_comparison_claims_an_interval_only_where_one_is_drawn() {
    const WHISKER: &str = "whisker: 95% confidence interval";
    let (_, figures, out) = common::open();
    let names: Vec<&str> = out.figures.iter().map(|f| f.name.as_str()).collect();
    assert!(names.contains(&"scenario_comparison_c4"), "{names:?}");
    let one = svg(figures, "scenario_comparison_c4");
    assert!(one.contains("Scenario comparison at concurrency N = 4 (vllm)"));
    assert!(!one.contains("confidence interval"));

    let (_, figures, _) = common::clean();
    let two = svg(figures, "engine_comparison_c4");
    assert!(two.contains("Engine comparison at concurrency N = 4"));
    assert!(!two.contains("confidence interval"));
    assert_eq!(polylines(&two, "#1E1E1E", 2).len(), 0);

    let (_tmp, results, figures) = common::fixture_copy("clean", "compare-whisker");
    let path = results.join("vllm/llama-8b/A1/c4").join(SUMMARY_FILE);
    let mut s: CellSummary = read_json(&path).unwrap();
    s.metrics.ttft_ms.as_mut().unwrap().p99_ci = Some([40.0, 48.0]);
    write_json(&path, &s).unwrap();
    plateau_report::render(&Options::new(&results, &figures)).unwrap();
    let whisker = svg(&figures, "engine_comparison_c4");
    assert!(whisker.contains(WHISKER));
    // The legend's swatch and the one whisker.
    assert_eq!(polylines(&whisker, "#1E1E1E", 2).len(), 1);
    assert_eq!(polylines(&whisker, "#1E1E1E", 3).len(), 1);
}
