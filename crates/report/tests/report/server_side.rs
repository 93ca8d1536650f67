//! The server's side of a run: the clean fixture with the server's timing added to vllm's
//! A1 cells and GPU energy to A1's cells of both engines gets `ttft_parts_A1` and
//! `energy_A1` (and none for B2, which has neither), listed in report.html and summary.md,
//! and the data behind them is the summaries' numbers exactly.

use plateau_model::metrics::Distribution;
use plateau_model::results::dir::ResultsDir;
use plateau_model::results::summary::CellSummary;
use plateau_model::results::{read_json, write_json};
use plateau_report::figures::energy::{self, Axis};
use plateau_report::figures::ttft_parts::{self, Bar, PERCENTILES, Part};
use plateau_report::matrix::Matrix;
use plateau_report::{Options, render};
use serde_json::{Value, json};

use std::path::PathBuf;

use crate::common;

/// Two requests' values: p50 is their mean, p99 `a + 0.99 (b - a)`.
fn dist(a: f64, b: f64) -> Value {
    serde_json::to_value(Distribution::from_values(&[a, b]).unwrap()).unwrap()
}

/// The server's timing of a cell at N: queue 1 and 1 + 2N ms, prefill 4 and 8 ms, the
/// rest 0.5 ms, the gap 0.2 and 1.2 ms.
fn timing(n: f64) -> Value {
    json!({
        "source": "span", "table": "vllm", "records": 2, "matched": 2, "match_rate": 1.0,
        "unmatched_records": 0, "negative_gaps": 0, "output_token_mismatches": 0,
        "gap_basis": "server_ttft",
        "queue_ms": dist(1.0, 1.0 + 2.0 * n), "prefill_ms": dist(4.0, 8.0),
        "other_ms": dist(0.5, 0.5), "gap_ms": dist(0.2, 1.2),
    })
}

/// GPU energy of a cell: `tokens_per_joule` output tokens per joule over Measure.
fn gpu(tokens_per_joule: f64) -> Value {
    let phase = json!({"samples": 0});
    json!({
        "sources": ["nvidia-smi"], "file": "gpu_metrics.jsonl.gz", "interval_ms": 250,
        "samples": 40, "failed_samples": 0, "gpus": [{"gpu": "GPU-0"}],
        "fill": phase, "stabilize": phase, "measure": phase, "drain": phase,
        "joules_per_output_token": 1.0 / tokens_per_joule,
        "output_tokens_per_joule": tokens_per_joule,
    })
}

fn edit(results: &std::path::Path, cell: &str, change: impl FnOnce(&mut CellSummary)) {
    let path = results.join(cell).join("summary.json");
    let mut s: CellSummary = read_json(&path).unwrap();
    change(&mut s);
    write_json(&path, &s).unwrap();
}

/// The clean fixture with the server's side added, rendered: `(guard, results, figures,
/// output)`.
fn rendered(test: &str) -> (tempfile::TempDir, PathBuf, PathBuf, plateau_report::Output) {
    let (guard, results, figures) = common::fixture_copy("clean", test);
    for n in [1u32, 2, 4] {
        edit(&results, &format!("vllm/llama-8b/A1/c{n}"), |s| {
            s.server_timing = Some(serde_json::from_value(timing(f64::from(n))).unwrap());
            s.gpu = Some(serde_json::from_value(gpu(10.0 * f64::from(n))).unwrap());
        });
    }
    edit(&results, "sglang/llama-8b/A1/c2", |s| {
        s.gpu = Some(serde_json::from_value(gpu(15.0)).unwrap());
    });
    let out = render(&Options::new(&results, &figures)).unwrap();
    (guard, results, figures, out)
}

#[test]
fn the_servers_side_gets_its_figures_where_cells_have_it() {
    let (_guard, _, figures, out) = rendered("server-side-figures");
    let names: Vec<&str> = out.figures.iter().map(|f| f.name.as_str()).collect();
    for name in ["ttft_parts_A1", "energy_A1"] {
        assert!(names.contains(&name), "{name} missing from {names:?}");
        for ext in ["png", "svg"] {
            assert!(
                figures.join(format!("{name}.{ext}")).is_file(),
                "{name}.{ext}"
            );
        }
    }
    for name in ["ttft_parts_B2", "energy_B2"] {
        assert!(
            !names.contains(&name),
            "{name}: B2 has no server timing or GPU energy"
        );
    }
    let html = std::fs::read_to_string(&out.html).unwrap();
    assert!(html.contains("TTFT taken apart by load: server queue, prefill and the gap · A1"));
    assert!(html.contains("Energy efficiency vs load: output tokens per joule · A1"));
    let md = std::fs::read_to_string(&out.markdown).unwrap();
    assert!(
        md.contains("ttft_parts_A1.png") && md.contains("energy_A1.png"),
        "{md}"
    );

    let svg = common::svg(&figures, "ttft_parts_A1");
    let texts = common::texts(&svg);
    for label in [
        "server queue",
        "server prefill",
        "rest of the server's TTFT",
        "gap: plateau's TTFT − the server's (network, HTTP, API layer)",
        "tick: plateau's TTFT at the percentile, from the send",
        "vllm · p50",
        "vllm · p99",
    ] {
        assert!(texts.iter().any(|t| t == label), "{label} not in {texts:?}");
    }
    assert!(svg.contains("do not add up exactly to the tick"));
    assert!(
        !texts.iter().any(|t| t.starts_with("sglang")),
        "sglang has no timing"
    );
}

#[test]
fn the_figures_data_is_the_summaries_numbers() {
    let (_guard, results, figures, _) = rendered("server-side-data");
    let dir = ResultsDir::read(&results).unwrap();
    let m = Matrix::new(&dir);
    let vllm = m.series.iter().position(|s| s.endpoint == "vllm").unwrap();
    let sglang = m
        .series
        .iter()
        .position(|s| s.endpoint == "sglang")
        .unwrap();
    let parts = ttft_parts::all(&m);
    assert_eq!(parts.len(), 1);
    assert_eq!(parts[0].series(), [vllm]);
    let client = |n: u32, at: fn(&Distribution) -> f64| {
        let s: CellSummary =
            read_json(&results.join(format!("vllm/llama-8b/A1/c{n}/summary.json"))).unwrap();
        at(s.metrics.ttft_ms.as_ref().unwrap())
    };
    let p50 = parts[0].bars(vllm, PERCENTILES[0].1);
    let expected: Vec<Bar> = [1u32, 2, 4]
        .into_iter()
        .map(|n| Bar {
            series: vllm,
            load: plateau_model::load::Load::Concurrency(n),
            parts: vec![
                (Part::Queue, 1.0 + f64::from(n)),
                (Part::Prefill, 6.0),
                (Part::Rest, 0.5),
                (Part::Gap, 0.7),
            ],
            client: Some(client(n, |d| d.p50)),
        })
        .collect();
    assert_eq!(p50, expected);
    // The fixture's own TTFT p50 at N = 2 (32 ms) is the tick.
    assert_eq!(p50[1].client, Some(32.0));
    let p99 = parts[0].bars(vllm, PERCENTILES[1].1);
    let at_4: Vec<f64> = p99[2].parts.iter().map(|p| p.1).collect();
    let close = |a: f64, b: f64| (a - b).abs() < 1e-9;
    for (got, want) in at_4
        .iter()
        .zip([1.0 + 0.99 * 8.0, 4.0 + 0.99 * 4.0, 0.5, 0.2 + 0.99])
    {
        assert!(close(*got, want), "{at_4:?}");
    }
    assert_eq!(p99[2].client, Some(client(4, |d| d.p99)));

    let energy = energy::all(&m);
    assert_eq!(energy.len(), 1);
    assert_eq!(energy[0].axes(), [Axis::Concurrency]);
    let xy = |s| -> Vec<(f64, f64)> {
        energy[0]
            .points(s, Axis::Concurrency)
            .iter()
            .map(|p| (p.x, p.y))
            .collect()
    };
    assert_eq!(xy(vllm), [(1.0, 10.0), (2.0, 20.0), (4.0, 40.0)]);
    assert_eq!(xy(sglang), [(2.0, 15.0)]);
    let texts = common::texts(&common::svg(&figures, "energy_A1"));
    assert!(
        texts.iter().any(|t| t == "A1 · Same Short · closed loop"),
        "{texts:?}"
    );
}
