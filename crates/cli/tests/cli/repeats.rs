//! `repeats`: each cell runs K times, interleaved across endpoints with the first endpoint
//! rotating, repeat k >= 2 in `c<N>-<k>`; `repeats.json` holds every headline number's
//! values across the runs with their mean, spread and interval; the report shows them.

use serde_json::Value;

use crate::common::{plateau, run, temp, tiny_config};

fn json(path: &std::path::Path) -> Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

#[test]
fn three_repeats_of_two_endpoints_interleave_and_spread() {
    let tmp = temp("repeats");
    let dir = tmp.path();
    let sim =
        |itl: u32| serde_json::json!({"profile": "fixed", "fixed": {"ttft_ms": 20, "itl_ms": itl}});
    let config = tiny_config(
        dir,
        serde_json::json!({
            "endpoints": [{"name": "fast", "engine": "sim", "sim": sim(5)},
                          {"name": "slow", "engine": "sim", "sim": sim(10)}],
            "measure_seconds": 1.5,
            "repeats": 3
        }),
    );
    let (code, out, err) = run(&mut plateau(&["run", "--config", config.to_str().unwrap()]));
    assert!(code == 0 || code == 1, "{out}\n{err}");
    let results = dir.join("results");

    // Run order: each pass has both endpoints, and the one that goes first rotates.
    let info = json(&results.join("run.json"));
    let order: Vec<&str> = info["cells"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["path"].as_str().unwrap())
        .collect();
    assert_eq!(
        order,
        [
            "fast/m/A1/c2",
            "slow/m/A1/c2",
            "slow/m/A1/c2-2",
            "fast/m/A1/c2-2",
            "fast/m/A1/c2-3",
            "slow/m/A1/c2-3"
        ]
    );
    let first = json(&results.join("fast/m/A1/c2/summary.json"));
    assert!(
        first["cell"].get("repeat").is_none(),
        "repeat 1 is not written"
    );
    let third = json(&results.join("fast/m/A1/c2-3/summary.json"));
    assert_eq!(third["cell"]["repeat"], 3);

    // repeats.json: each run's value as its summary says, and their statistics.
    let repeats = json(&results.join("repeats.json"));
    assert_eq!(repeats["repeats"], 3);
    let cells = repeats["cells"].as_array().unwrap();
    assert_eq!(cells.len(), 2);
    for (cell, itl) in cells.iter().zip([5.0, 10.0]) {
        let name = cell["endpoint"].as_str().unwrap();
        assert_eq!(cell["runs"], serde_json::json!([1, 2, 3]), "{name}");
        let metric = |key: &str| {
            cell["metrics"]
                .as_array()
                .unwrap()
                .iter()
                .find(|m| m["metric"] == key)
                .unwrap_or_else(|| panic!("{name}: no {key}"))
                .clone()
        };
        let tps = metric("throughput.server_direct_tps");
        let per_run: Vec<f64> = ["c2", "c2-2", "c2-3"]
            .iter()
            .map(|d| {
                let s = json(&results.join(format!("{name}/m/A1/{d}/summary.json")));
                s["throughput"]["server_direct_tps"].as_f64().unwrap()
            })
            .collect();
        assert_eq!(tps["values"], serde_json::json!(per_run), "{name}");
        let mean = per_run.iter().sum::<f64>() / 3.0;
        assert!(
            (tps["mean"].as_f64().unwrap() - mean).abs() < 1e-9,
            "{name}"
        );
        let [lo, hi] = [0, 1].map(|i| tps["ci95"][i].as_f64().unwrap());
        assert!(lo <= mean && mean <= hi, "{name}: {lo} .. {hi}");
        // The exact-timing simulator paces every token: TPOT is its ITL in every run,
        // so it barely moves between runs.
        let tpot = metric("tpot_ms.p50");
        assert!(
            (tpot["mean"].as_f64().unwrap() - itl).abs() < 0.5,
            "{name}: {tpot}"
        );
        assert!(tpot["cv"].as_f64().unwrap() < 0.02, "{name}: {tpot}");
    }

    // The report shows the repeats and keeps the first run on its axes.
    let (code, out, err) = run(&mut plateau(&[
        "report",
        "--results-dir",
        results.to_str().unwrap(),
    ]));
    assert_eq!(code, 0, "{out}\n{err}");
    let md = std::fs::read_to_string(results.join("summary.md")).unwrap();
    assert!(md.contains("## Repeats"), "{md}");
    assert!(
        md.contains("| fast · m · A1 · c2 | tpot_ms.p50 | 3 |"),
        "{md}"
    );
    let html = std::fs::read_to_string(results.join("report.html")).unwrap();
    assert!(html.contains("<h2 id=\"repeats\">Repeats</h2>"));

    // Each repeat exports to its own vLLM file and its own long-CSV rows.
    let (code, out, err) = run(&mut plateau(&[
        "export",
        "--format",
        "vllm",
        results.to_str().unwrap(),
    ]));
    assert_eq!(code, 0, "{out}\n{err}");
    let vllm = results.join("export/vllm");
    for name in [
        "fast_m_A1_c2.json",
        "fast_m_A1_c2-2.json",
        "slow_m_A1_c2-3.json",
    ] {
        assert!(vllm.join(name).exists(), "{name}");
    }
}
