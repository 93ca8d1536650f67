//! The latency distributions (CDFs of TTFT and ITL per chunk) hold the same quantiles as
//! each cell's summary and draw one line per cell; TTFT vs prompt length is drawn for
//! multi-turn cells only, one dot per measured successful request.

use std::collections::BTreeMap;

use plateau_model::metrics::Distribution;
use plateau_model::results::summary::CellSummary;
use plateau_model::results::{SUMMARY_FILE, find_cells, read_json, read_samples};
use plateau_report::Options;
use plateau_report::figures::requests::{Cdf, CellRequests, STEPS};

use crate::common::{self, count, svg, texts};
use crate::fixtures;

/// `cdf` agrees with the summary's `d`: same count, min, median, p99 and max. Both come
/// from the core's percentile over the same values; the tolerance only absorbs the JSON
/// round trip of the summary's floats (1 ulp).
fn agrees(cdf: &Cdf, d: &Distribution, what: &str) {
    let close = |a: f64, b: f64| (a - b).abs() <= 1e-9 * b.abs().max(1.0);
    assert_eq!(cdf.n as u64, d.n, "{what}: n");
    assert_eq!(cdf.at.len(), STEPS + 1, "{what}");
    for (i, want, name) in [
        (0, d.min, "min"),
        (STEPS / 2, d.p50, "p50"),
        (STEPS * 99 / 100, d.p99, "p99"),
        (STEPS, d.max, "max"),
    ] {
        assert!(
            close(cdf.at[i], want),
            "{what} {name}: {} vs {want}",
            cdf.at[i]
        );
    }
}

#[test]
fn each_cells_cdfs_hold_its_summarys_quantiles() {
    let cells = find_cells(&fixtures::path("clean")).unwrap();
    assert_eq!(cells.len(), 12);
    for dir in cells {
        let s: CellSummary = read_json(&dir.join(SUMMARY_FILE)).unwrap();
        let samples = read_samples(&dir.join(&s.records.file)).unwrap();
        let r = CellRequests::new(&s, &samples);
        let what = dir.display().to_string();
        agrees(&r.ttft_ms, s.metrics.ttft_ms.as_ref().unwrap(), &what);
        agrees(&r.itl_ms, s.metrics.itl_chunk_ms.as_ref().unwrap(), &what);
        // 11 gaps per request (12 one-token chunks).
        assert_eq!(r.itl_ms.n, 11 * r.ttft_ms.n, "{what}");
        assert!(!r.multi_turn && r.prompt_ttft.is_empty(), "{what}");
    }
}

/// Clean fixture: two scenarios, N = 1, 2, 4 for each of two series. The first series
/// (vllm) is drawn solid: one 201-point line per cell, in one colour per N, each colour in
/// both panels; the second (sglang) dashed. The legend lists the loads and the series.
#[test]
fn the_cdf_figures_draw_a_line_per_cell() {
    let (_, figures, out) = common::clean();
    for name in ["ttft_cdf", "itl_cdf"] {
        let text = svg(figures, name);
        let doc = roxmltree::Document::parse(&text).unwrap();
        let mut by_color: BTreeMap<&str, usize> = BTreeMap::new();
        for n in doc.descendants().filter(|n| n.has_tag_name("polyline")) {
            let points = n.attribute("points").unwrap().split_whitespace().count();
            if points == STEPS + 1 && n.attribute("stroke-width") == Some("2") {
                *by_color.entry(n.attribute("stroke").unwrap()).or_default() += 1;
            }
        }
        assert_eq!(by_color.len(), 3, "{name}: one colour per N: {by_color:?}");
        assert!(by_color.values().all(|&k| k == 2), "{name}: {by_color:?}");
        let labels = texts(&text);
        for label in ["N=1", "N=2", "N=4", "A1 · Same Short", "B2 · Diverse Long"] {
            assert!(labels.iter().any(|l| l == label), "{name} lacks {label:?}");
        }
        for series in ["vllm", "sglang"] {
            assert!(labels.iter().any(|l| l == series), "{name}: {series}");
        }
    }
    let html = std::fs::read_to_string(&out.html).unwrap();
    let section = common::section(&html, "<h2 id=\"distributions\">", "<h2 ");
    assert!(section.contains("<figure id=\"ttft_cdf\">"));
    assert!(section.contains("<figure id=\"itl_cdf\">"));
    let md = std::fs::read_to_string(&out.markdown).unwrap();
    assert!(md.contains("figures/ttft_cdf.png`"), "{md}");
    assert!(md.contains("figures/itl_cdf.png`"));
    // No request carries a turn: no TTFT-vs-prompt figure.
    assert!(
        !out.figures
            .iter()
            .any(|f| f.name == "ttft_vs_prompt_length")
    );
}

/// vllm A1 N=1 and N=2 made multi-turn (turn `seq % 4`, prompt 100 + 400 x turn tokens):
/// one dot per measured successful request (25 + 45), in one panel, the legend naming
/// N=1 and N=2 only, and summary.md lists the figure.
#[test]
fn multi_turn_cells_draw_ttft_against_prompt_length() {
    let (_tmp, results, _) = common::fixture_copy("clean", "prompt-ttft");
    // Figures inside the results directory (`plateau report`'s default): summary.md names
    // them relative to itself.
    let figures = results.join("figures");
    let mut measured = 0;
    for n in [1, 2] {
        let dir = results.join(format!("vllm/llama-8b/A1/c{n}"));
        let s = common::rewrite_requests(&dir, |samples| {
            for s in samples.iter_mut() {
                let turn = (s.seq % 4) as u32;
                s.turn = Some(turn);
                s.n_in = Some(100 + 400 * turn);
            }
        });
        measured += s.metrics.requests.measured_ok;
    }
    assert_eq!(measured, 25 + 45);
    let out = plateau_report::render(&Options::new(&results, &figures)).unwrap();
    assert!(
        out.figures
            .iter()
            .any(|f| f.name == "ttft_vs_prompt_length")
    );
    let md = std::fs::read_to_string(&out.markdown).unwrap();
    assert!(
        md.contains(
            "- TTFT vs prompt length, multi-turn scenarios: `figures/ttft_vs_prompt_length.png`"
        ),
        "{md}"
    );
    let text = svg(&figures, "ttft_vs_prompt_length");
    assert_eq!(count(&text, "circle", &[("r", "3")]), 70);
    let labels = texts(&text);
    let has = |t: &str| labels.iter().any(|l| l == t);
    assert!(has("A1 · Same Short · vllm"), "one panel, named");
    assert!(!text.contains("B2 · Diverse Long"));
    assert!(has("N=1") && has("N=2"));
    assert!(!has("N=4"), "N=4 has no multi-turn requests");
    assert!(has("prompt tokens"));
}
