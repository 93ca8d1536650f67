//! The server's configuration and the user's hardware, end to end: a run against the
//! simulator with labels and a hardware block keeps the server's `/v1/models` and
//! `/version` answers and the labels in `run.json`, and each cell's per-GPU throughput and
//! cost follow the formula from the cell's own server throughput.

use plateau_model::results::summary::CellSummary;
use plateau_model::results::{self, CSV_FILE, RUN_FILE, SUMMARY_FILE};
use plateau_sim::SimConfig;
use serde_json::{Value, json};

use crate::common;

const RUN_SCHEMA: &str = include_str!("../../../../schemas/run.schema.json");
const GPUS: u32 = 2;
const USD_PER_HOUR: f64 = 4.5;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hardware_labels_and_server_info_reach_the_results() {
    let (_tmp, out) = common::out_dir("server-info");
    let mut config = json!({
        "endpoints": [{
            "name": "s", "engine": "sim", "url": "http://placeholder/v1",
            "labels": {"quantization": "fp8", "tp": "2"},
            "hardware": {"gpu": "H100 80GB", "gpu_count": GPUS, "cost_per_hour": USD_PER_HOUR}
        }],
        "models": [{"id": "m", "name": "plateau-sim"}],
        "scenarios": ["A1"],
        "batch_sizes": [2],
        "fill_seconds": 1, "stabilize_seconds": 1, "measure_seconds": 3, "drain_seconds": 3,
        "request_timeout_seconds": 5,
        "max_tokens": 10
    });
    let report = common::run(sim_config(), config.clone(), &out).await;
    let hardware = json!({"gpu": "H100 80GB", "gpu_count": GPUS, "cost_per_hour": USD_PER_HOUR});
    let labels = json!({"quantization": "fp8", "tp": "2"});

    let run: Value = results::read_json(&out.join(RUN_FILE)).unwrap();
    run_json_keeps_the_server_and_the_labels(&run, &labels, &hardware);

    // summary.json: the same labels and hardware, and the cost block by its formula on the
    // summary's own throughput.
    let path = out.join("s/m/A1/c2").join(SUMMARY_FILE);
    let raw: Value = results::read_json(&path).unwrap();
    assert_eq!(raw["cell"]["labels"], labels);
    assert_eq!(raw["cell"]["hardware"], hardware);
    let s: CellSummary = serde_json::from_value(raw).unwrap();
    assert_eq!(s.cell, common::at(&report, 2).cell);
    let tps = s.metrics.throughput.server_direct_tps;
    // Truth: 2 slots each producing 10 tokens per 50 + 9 x 20 = 230 ms give 86.96 tok/s.
    // The client's turnaround between requests on a loaded 2-core machine only lowers it
    // (30% allowed); the 3 s window can catch at most one extra reply's tokens per slot at
    // its edges (2 x 10 tokens / 3 s).
    let truth = 2.0 * 10.0 / 0.230;
    assert!(
        tps > truth * 0.7 && tps <= truth + 20.0 / 3.0,
        "{tps} tok/s against {truth}"
    );
    cost_follows_the_formula(&s, tps);

    tokenize_check_counts_the_prompt(&s);

    csv_has_the_same_numbers(&out, tps);

    // --resume after a price change keeps the cell (the fingerprint leaves price out) and
    // restates its cost at the new price from the same throughput.
    config["endpoints"][0]["hardware"]["cost_per_hour"] = json!(9.0);
    let url = run["endpoints"][0]["url"].as_str().unwrap().to_owned();
    let addr = url
        .trim_start_matches("http://")
        .trim_end_matches("/v1")
        .to_owned();
    let resumed = common::run_with(sim_config(), config, &out, true, &addr).await;
    let run: Value = results::read_json(&out.join(RUN_FILE)).unwrap();
    assert_eq!(run["cells"][0]["state"], "resumed");
    assert_eq!(run["endpoints"][0]["hardware"]["cost_per_hour"], 9.0);
    let again: CellSummary = results::read_json(&path).unwrap();
    assert_eq!(&again, common::at(&resumed, 2));
    let cost = again.cost.as_ref().expect("a cost block");
    assert_eq!(cost.cost_per_hour, Some(9.0));
    close(
        cost.usd_per_million_output_tokens,
        9.0 / (tps * 3600.0) * 1e6,
        "USD per million after the price change",
    );
}

/// `got` equals `want` to a relative 1e-12: summary.json's floats go through text and back
/// (one ulp at most).
fn close(got: Option<f64>, want: f64, what: &str) {
    let got = got.unwrap_or_else(|| panic!("{what} missing"));
    assert!(
        (got - want).abs() <= want.abs() * 1e-12,
        "{what}: {got} != {want}"
    );
}

/// run.json: the simulator's /v1/models and /version answers, labels and hardware.
fn run_json_keeps_the_server_and_the_labels(run: &Value, labels: &Value, hardware: &Value) {
    let e = &run["endpoints"][0];
    assert_eq!(e["models"]["data"][0]["id"], "plateau-sim");
    assert_eq!(
        e["server"]["responses"],
        json!([{"path": "/version", "status": 200,
                "body": {"version": env!("CARGO_PKG_VERSION")}}])
    );
    // The configuration the server states as Prometheus `*_info` metrics.
    assert_eq!(
        e["server"]["info_metrics"]["vllm:cache_config_info"],
        json!({"model_name": "plateau-sim", "num_gpu_blocks": "0"}),
        "the fixed profile has no KV cache: {e}"
    );
    assert_eq!(&e["labels"], labels);
    assert_eq!(&e["hardware"], hardware);
    let schema: Value = serde_json::from_str(RUN_SCHEMA).unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let errors: Vec<String> = validator.iter_errors(run).map(|e| e.to_string()).collect();
    assert!(
        errors.is_empty(),
        "run.json against its schema: {errors:#?}"
    );
}

/// The cost block by its formula on the summary's own throughput `tps`.
fn cost_follows_the_formula(s: &CellSummary, tps: f64) {
    let cost = s.cost.as_ref().expect("a cost block");
    println!(
        "server {tps:.2} tok/s; {:?} tok/s per GPU; {:?} USD per million output tokens",
        cost.output_tps_per_gpu, cost.usd_per_million_output_tokens
    );
    assert_eq!(cost.gpu_count, Some(GPUS));
    assert_eq!(cost.cost_per_hour, Some(USD_PER_HOUR));
    close(cost.output_tps_per_gpu, tps / f64::from(GPUS), "per GPU");
    close(
        cost.usd_per_million_output_tokens,
        USD_PER_HOUR / (tps * 3600.0) * 1e6,
        "USD per million",
    );
}

/// The `/tokenize` check: the simulator counts the fixed prompt with cl100k_base, these
/// tests with whitespace words; its template adds 7 tokens to one user message.
fn tokenize_check_counts_the_prompt(s: &CellSummary) {
    let text = common::PROMPT;
    let words = text.split_whitespace().count() as f64;
    let bpe = tiktoken_rs::cl100k_base_singleton()
        .encode_ordinary(text)
        .len() as f64;
    let check = s.token_check.as_ref().expect("the simulator has /tokenize");
    assert_eq!(check.path, "/tokenize");
    assert_eq!(check.prompts, 1);
    assert_eq!(check.client_tokens_mean, words);
    assert_eq!(check.server_tokens_mean, Some(bpe));
    assert_eq!(check.rel_diff, Some(bpe / words - 1.0));
    assert_eq!(check.template_tokens_mean(), Some(7.0));
    let findings = plateau_model::validate::check_cell(s, &Default::default());
    let mismatch = findings.iter().find(|f| f.check == "tokenizer_mismatch");
    assert_eq!(
        mismatch.is_some(),
        (bpe / words - 1.0).abs() > 0.05,
        "{bpe} tokens for {words} words: {findings:?}"
    );
}

/// summary.csv: the same numbers in its columns.
fn csv_has_the_same_numbers(out: &std::path::Path, tps: f64) {
    let csv = std::fs::read_to_string(out.join(CSV_FILE)).unwrap();
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let row: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |name: &str| row[header.iter().position(|h| *h == name).unwrap()];
    assert_eq!(col("gpu"), "H100 80GB");
    assert_eq!(col("gpu_count"), "2");
    assert_eq!(col("labels"), "quantization=fp8;tp=2");
    let per_gpu: f64 = col("output_tps_per_gpu").parse().unwrap();
    close(Some(per_gpu), tps / f64::from(GPUS), "CSV per GPU");
    let usd: f64 = col("usd_per_million_output_tokens").parse().unwrap();
    close(Some(usd), USD_PER_HOUR / (tps * 3600.0) * 1e6, "CSV USD");
}

/// The simulator: fixed timing, TTFT 50 ms and 20 ms between tokens.
fn sim_config() -> SimConfig {
    serde_json::from_value(json!({
        "profile": "fixed",
        "fixed": {"ttft_ms": 50.0, "itl_ms": 20.0},
    }))
    .unwrap()
}
