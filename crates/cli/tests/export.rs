//! `plateau export` as the real binary on a results directory made by a short `plateau
//! run` against the in-process simulator (fixed profile: TTFT 20 ms, ITL 5 ms, 8 tokens
//! per request, N = 2): the vLLM file has vLLM's key set and the summary's numbers, the
//! long CSV has the summary's TTFT p50, and a missing directory is bad input.

#![allow(clippy::unwrap_used, missing_docs)]

use std::collections::BTreeSet;
use std::fs;
use std::path::Path;
use std::process::Command;

use serde_json::Value;

fn plateau(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_plateau"))
        .args(args)
        .env_remove("RUST_LOG")
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A fresh, empty directory for `test`, removed when the guard is dropped.
fn scratch(test: &str) -> tempfile::TempDir {
    plateau_testkit::scratch(&format!("cli-export-{test}"))
}

fn read(path: &Path) -> Value {
    serde_json::from_slice(&fs::read(path).unwrap()).unwrap()
}

#[test]
fn export_of_a_simulator_run() {
    let tmp = scratch("sim");
    let dir = tmp.path();
    let results = dir.join("results");
    let config = serde_json::json!({
        "endpoints": [{"name": "sim", "engine": "sim",
            "sim": {"profile": "fixed", "fixed": {"ttft_ms": 20, "itl_ms": 5}}}],
        "models": [{"id": "m", "name": "plateau-sim"}],
        "scenarios": ["A1"],
        "batch_sizes": [2],
        "fill_seconds": 1, "stabilize_seconds": 1, "measure_seconds": 3, "drain_seconds": 2,
        "max_tokens": 8,
        "output_dir": results,
    });
    let config_path = dir.join("config.json");
    fs::write(&config_path, serde_json::to_vec(&config).unwrap()).unwrap();
    let (code, stdout, stderr) =
        plateau(&["run", "--quiet", "--config", config_path.to_str().unwrap()]);
    // Exit 1 is a failed validation check (a busy 2-core machine can flag the client);
    // the export reads the result files either way.
    assert!(code == 0 || code == 1, "{code}\n{stdout}\n{stderr}");
    let summary = read(&results.join("sim/m/A1/c2/summary.json"));

    let out = dir.join("vllm");
    let (code, stdout, stderr) = plateau(&[
        "export",
        "--format",
        "vllm",
        results.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    assert!(stdout.contains("1 cells exported"), "{stdout}");
    let v = read(&out.join("sim_m_A1_c2.json"));
    let fixture = read(
        &Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../report/tests/fixtures/export/vllm_save_result.json"),
    );
    let want: BTreeSet<&String> = fixture.as_object().unwrap().keys().collect();
    let got: BTreeSet<&String> = v
        .as_object()
        .unwrap()
        .keys()
        .filter(|k| *k != "metadata")
        .collect();
    assert_eq!(got, want);
    let measured = summary["requests"]["measured"].as_u64().unwrap();
    assert!(
        measured > 10,
        "3 s at N = 2 and ~55 ms a request: ~100 requests"
    );
    assert_eq!(v["num_prompts"], measured);
    assert_eq!(v["max_concurrency"], 2);
    assert_eq!(v["request_rate"], "inf");
    assert_eq!(v["model_id"], "plateau-sim");
    assert_eq!(v["median_ttft_ms"], summary["ttft_ms"]["p50"]);
    assert_eq!(v["p99_tpot_ms"], summary["tpot_ms"]["p99"]);
    assert_eq!(
        v["output_throughput"],
        summary["throughput"]["server_direct_tps"]
    );
    let lens = v["output_lens"].as_array().unwrap();
    assert_eq!(lens.len() as u64, measured);
    assert!(
        lens.iter().all(|n| n == 8),
        "ignore_eos: every request 8 tokens"
    );
    // The simulator holds TTFT at 20 ms and ITL at 5 ms; the client adds loopback and
    // scheduling time on a shared 2-core machine, hence up to +10 ms on TTFT. TPOT spans 7
    // gaps from the first to the last chunk: a first chunk read up to 7 ms late (or a last
    // one late) moves it by up to 1 ms either way (one run read 4.99 ms).
    let ttft = v["median_ttft_ms"].as_f64().unwrap();
    assert!((20.0..30.0).contains(&ttft), "TTFT p50 {ttft} ms");
    let tpot = v["median_tpot_ms"].as_f64().unwrap();
    assert!((4.0..6.0).contains(&tpot), "TPOT p50 {tpot} ms");
    // Kernel arrival stamps are wall-clock times moved onto the cell's monotonic clock; the
    // two clocks may drift apart by microseconds, hence 19.9 ms, not 20.
    let first_ttft_s = v["ttfts"][0].as_f64().unwrap();
    assert!(
        (0.0199..0.2).contains(&first_ttft_s),
        "ttfts in seconds: {first_ttft_s}"
    );

    let (code, stdout, stderr) = plateau(&[
        "export",
        "--format",
        "long-csv",
        "--results-dir",
        results.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    let csv = fs::read_to_string(results.join("export/metrics_long.csv")).unwrap();
    let header: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
    let value = header.iter().position(|h| *h == "value").unwrap();
    let p50: Vec<&str> = csv
        .lines()
        .find(|l| l.contains(",ttft_ms,p50,"))
        .unwrap()
        .split(',')
        .collect();
    assert_eq!(p50[..4], ["sim", "sim", "m", "A1"]);
    assert_eq!(
        p50[value].parse::<f64>().unwrap(),
        summary["ttft_ms"]["p50"].as_f64().unwrap()
    );
}

#[test]
fn a_missing_results_dir_is_bad_input() {
    let tmp = scratch("missing");
    let dir = tmp.path();
    let missing = dir.join("nothing-here");
    let (code, _, stderr) = plateau(&["export", "--format", "vllm", missing.to_str().unwrap()]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("nothing-here"), "{stderr}");
    assert!(!missing.exists());
    let (code, _, stderr) = plateau(&["export", "--format", "parquet", missing.to_str().unwrap()]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("vllm") && stderr.contains("long-csv"),
        "{stderr}"
    );
}
