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

/// `plateau run` in `dir` of the realistic simulator on B1 with 64 output tokens, open
/// loop, phases of 2, 3, 10 and 15 s, and `extra` keys; its stdout and stderr, having
/// gone to its end (exit 0, or 1 for findings).
fn realistic_b1(dir: &std::path::Path, extra: serde_json::Value) -> (String, String) {
    let mut keys = serde_json::json!({
        "endpoints": [{"name": "sim", "engine": "sim", "sim": {"profile": "realistic"}}],
        "scenarios": ["B1"],
        "batch_sizes": [],
        "max_tokens": 64,
        "fill_seconds": 2, "stabilize_seconds": 3, "measure_seconds": 10,
        "drain_seconds": 15
    });
    keys.as_object_mut()
        .unwrap()
        .extend(extra.as_object().unwrap().clone());
    let config = tiny_config(dir, keys);
    let (code, out, err) = run(&mut plateau(&["run", "--config", config.to_str().unwrap()]));
    assert!(code == 0 || code == 1, "{out}\n{err}");
    (out, err)
}

/// The case: the realistic simulator (about 30 req/s on B1 with 64 output tokens)
/// offered 400 req/s. Its queue grows without bound and every measured request is still
/// queued when Drain ends; the cell is `overloaded` with the rate the server completed,
/// never `failed` ("once the endpoint works") and never steady.
#[test]
fn a_rate_the_server_cannot_carry_is_overloaded_not_failed() {
    let tmp = temp("overload");
    let dir = tmp.path();
    let (out, err) = realistic_b1(dir, serde_json::json!({"request_rates": [400]}));
    let path = dir.join("results/sim/m/B1/r400/summary.json");
    let s: serde_json::Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    assert_eq!(s["status"], "complete", "{s:#}");
    let steady = &s["steady"];
    assert_eq!(steady["overloaded"], true, "{steady:#}");
    assert_eq!(steady["steady"], false, "{steady:#}");
    let why = steady["reasons"][0].as_str().unwrap();
    assert!(
        why.starts_with("overloaded: the server completed "),
        "{why}"
    );
    assert!(!why.contains("endpoint works"), "{why}");
    let load = &s["load"];
    let (offered, achieved) = (
        load["offered_rps"].as_f64().unwrap(),
        load["achieved_rps"].as_f64().unwrap(),
    );
    // Offered: 400 req/s within Poisson noise over 10 s; achieved: what the simulator
    // carries (29.6 req/s in a closed loop at N = 32), far below.
    assert!((380.0..=420.0).contains(&offered), "{offered}");
    assert!(achieved < 40.0, "{achieved}");
    let console = format!("{out}\n{err}");
    assert!(console.contains("overloaded: completed "), "{console}");
    assert!(!console.contains("FAILED"), "{console}");
}

/// The capacity case: the realistic simulator carries about 29.6 req/s on B1 with
/// 64 output tokens; a search with 10 s probes (TTFT p99 <= 1 s) answered 32 req/s, which
/// a 40 s window shows overloaded. Probes held to 10 s cannot show a small overload, so
/// the answer must rest on what the server completed: never above what it carries, and
/// below the saturation throughput the search measured. (Run by hand with probes up to
/// 300 s, the same search answered 28 req/s: see the open-loop guide.)
#[test]
fn with_short_probes_the_capacity_answer_stays_at_or_below_what_the_server_carries() {
    let tmp = temp("capacity-short");
    let dir = tmp.path();
    realistic_b1(
        dir,
        serde_json::json!({
            "request_rates": [],
            "capacity": {"slo": {"ttft_p99_ms": 1000}, "start_rps": 8, "resolution": 0.1,
                         "max_probes": 8, "max_probe_seconds": 10}
        }),
    );
    let capacity: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("results/capacity.json")).unwrap()).unwrap();
    let search = &capacity["searches"][0];
    let answer = search["max_rps"].as_f64().expect("an answer");
    let ceiling = search["ceiling_rps"].as_f64().expect("a saturated probe");
    assert!(answer <= 29.6, "{answer} req/s: {search:#}");
    assert!(
        answer < ceiling,
        "{answer} at or above {ceiling}: {search:#}"
    );
    // Each probe measured no longer than the config allows.
    for p in search["probes"].as_array().unwrap() {
        assert!(p["measure_s"].as_f64().unwrap() <= 10.0, "{p:#}");
    }
}
