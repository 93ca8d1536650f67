//! `plateau run` with request rates and a capacity search: `r<rate>` directories, the
//! capacity answer printed at the end and written to capacity.json, and an overloaded
//! probe that warns without failing the run.

use crate::common::{plateau, run, temp, tiny_config};

#[test]
fn a_capacity_search_prints_its_answer_and_writes_capacity_json() {
    let tmp = temp("capacity");
    let dir = tmp.path();
    let config = tiny_config(
        dir,
        serde_json::json!({
            "endpoints": [{"name": "sim", "engine": "sim",
                           "sim": {"profile": "realistic", "engine": {"max_num_seqs": 4}}}],
            "batch_sizes": [],
            "request_rates": [2],
            "fill_seconds": 0.5, "stabilize_seconds": 0.5, "measure_seconds": 2,
            "drain_seconds": 10,
            "capacity": {"slo": {"ttft_p99_ms": 150}, "start_rps": 20, "max_probes": 4,
                         "resolution": 0.5, "target_rps": 100}
        }),
    );
    let (code, out, err) = run(&mut plateau(&["run", "--config", config.to_str().unwrap()]));
    assert!(code == 0 || code == 1, "{out}\n{err}");
    assert!(out.contains("capacity within TTFT p99 <= 150 ms:"), "{out}");
    assert!(out.contains("  sim/m/A1: "), "{out}");
    let results = dir.join("results");
    assert!(results.join("sim/m/A1/r2/summary.json").exists());
    assert!(
        results.join("sim/m/A1/r20/summary.json").exists(),
        "the first probe"
    );
    let capacity: serde_json::Value =
        serde_json::from_slice(&std::fs::read(results.join("capacity.json")).unwrap()).unwrap();
    let search = &capacity["searches"][0];
    assert_eq!(search["start"]["source"], "configured");
    assert_eq!(search["probes"][0]["rps"], 20.0);
    assert!(search["probes"].as_array().unwrap().len() <= 4);
    let csv = std::fs::read_to_string(results.join("summary.csv")).unwrap();
    let header = csv.lines().next().unwrap();
    assert!(header.contains(",request_rate,arrival,"), "{header}");
    assert!(csv.lines().any(|l| l.contains(",2,poisson,")), "{csv}");
}
