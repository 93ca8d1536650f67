//! `plateau export` from the report fixtures: the vLLM files carry exactly the key set of a
//! real `vllm bench serve --save-result --save-detailed` file with the same JSON types, and
//! their numbers are the summaries'; the long CSV parses back with one row per cell x
//! metric x statistic.
//!
//! `fixtures/export/vllm_save_result.json` has the keys `vllm/benchmarks/serve.py` writes at
//! vllm-project/vllm@009e6d4a1cd6ba3fb2a9fc00f4ec06f5297232a1 (`result_json` in
//! `main_async` merged with `benchmark()`'s `result`, with `--max-concurrency 2
//! --save-detailed --percentile-metrics ttft,tpot,itl,e2el,client_queue_time
//! --metric-percentiles 50,90,95,99,99.9`), four requests, written by `json.dump`.

#![allow(clippy::unwrap_used, missing_docs)]

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

use plateau_model::metrics::{Distribution, Window};
use plateau_model::results::summary::CellSummary;
use plateau_model::results::{read_json, read_samples};
use plateau_report::export::{long_csv, vllm};
use serde_json::Value;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

/// A fresh, empty directory for `test`, removed when the guard is dropped.
fn scratch(test: &str) -> tempfile::TempDir {
    plateau_testkit::scratch(&format!("export-{test}"))
}

fn vllm_keys() -> BTreeMap<String, Value> {
    let v: Value = read_json(&fixtures().join("export/vllm_save_result.json")).unwrap();
    v.as_object().unwrap().clone().into_iter().collect()
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "bool",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// Exports fixture `name` and returns each file's JSON with its cell's summary.
fn export(name: &str, test: &str) -> Vec<(Value, CellSummary)> {
    let tmp = scratch(test);
    let out = tmp.path();
    let written = vllm::write(&fixtures().join(name), out).unwrap();
    assert!(written.unreadable.is_empty(), "{:?}", written.unreadable);
    let cells = plateau_report::export::read(&fixtures().join(name)).unwrap();
    assert_eq!(written.files.len(), cells.cells.len());
    cells
        .cells
        .into_iter()
        .map(|(_, s)| {
            let file = out.join(vllm::file_name(&s));
            (read_json::<Value>(&file).unwrap(), s)
        })
        .collect()
}

/// The export of the clean fixture's sglang A1 cell at N = 2.
fn sglang_a1_c2(files: &[(Value, CellSummary)]) -> &(Value, CellSummary) {
    files
        .iter()
        .find(|(_, s)| {
            s.cell.endpoint == "sglang"
                && s.cell.scenario == "A1"
                && s.cell.load.concurrency == Some(2)
        })
        .unwrap()
}

fn num(v: &Value, key: &str) -> f64 {
    v[key]
        .as_f64()
        .unwrap_or_else(|| panic!("{key}: {}", v[key]))
}

/// Every statistic vLLM writes for `name` is the distribution's.
fn assert_stats(v: &Value, name: &str, d: &Distribution) {
    assert_eq!(num(v, &format!("mean_{name}_ms")), d.mean, "{name}");
    assert_eq!(num(v, &format!("median_{name}_ms")), d.p50, "{name}");
    assert_eq!(num(v, &format!("std_{name}_ms")), d.std, "{name}");
    for (p, want) in [
        ("50", d.p50),
        ("90", d.p90),
        ("95", d.p95),
        ("99", d.p99),
        ("99.9", d.p999),
    ] {
        assert_eq!(num(v, &format!("p{p}_{name}_ms")), want, "p{p} {name}");
    }
}

#[test]
fn every_key_vllm_writes_is_exported_with_its_json_type() {
    let want = vllm_keys();
    for (v, s) in export("clean", "keys")
        .iter()
        .chain(&export("open", "keys-open"))
    {
        let got = v.as_object().unwrap();
        let got_keys: BTreeSet<&String> = got.keys().filter(|k| *k != "metadata").collect();
        let want_keys: BTreeSet<&String> = want.keys().collect();
        assert_eq!(got_keys, want_keys, "{}", vllm::file_name(s));
        for (key, value) in &want {
            let exported = &got[key];
            // Where serve.py writes one of two types, the fixture shows one: `request_rate`
            // is "inf" or the rate, `label` null without --label, `request_goodput` null
            // without --goodput.
            let alternative = match key.as_str() {
                "request_rate" | "request_goodput" => "number",
                "label" => "string",
                _ => kind(value),
            };
            let k = kind(exported);
            assert!(
                k == kind(value) || k == alternative || k == "null",
                "{key}: vLLM {value}, plateau {exported}"
            );
        }
        let nulls = got["metadata"]["null_keys"].as_object().unwrap();
        let null_keys: BTreeSet<&String> = got
            .iter()
            .filter(|(_, v)| v.is_null())
            .map(|(k, _)| k)
            .collect();
        assert_eq!(null_keys, nulls.keys().collect(), "every null key says why");
    }
}

#[test]
fn closed_loop_numbers_are_the_summarys() {
    let files = export("clean", "closed");
    let (v, s) = sglang_a1_c2(&files);
    let m = &s.metrics;
    assert_eq!(v["request_rate"], "inf");
    assert_eq!(v["max_concurrency"], 2);
    assert_eq!(v["burstiness"], Value::Null);
    assert_eq!(v["model_id"], "meta-llama/Llama-3.1-8B-Instruct");
    assert_eq!(v["backend"], "openai-chat");
    assert_eq!(num(v, "duration"), m.throughput.window_s);
    assert_eq!(num(v, "num_prompts"), m.requests.measured as f64);
    assert_eq!(num(v, "completed"), m.requests.measured_ok as f64);
    assert_eq!(num(v, "failed"), m.requests.measured_errors as f64);
    assert_eq!(
        num(v, "total_output_tokens"),
        m.throughput.output_tokens as f64
    );
    assert_eq!(
        num(v, "total_input_tokens"),
        m.throughput.input_tokens.unwrap() as f64
    );
    assert_eq!(num(v, "output_throughput"), m.throughput.server_direct_tps);
    assert_eq!(num(v, "request_throughput"), m.throughput.request_rps);
    assert_eq!(
        num(v, "total_token_throughput"),
        m.throughput.input_tps.unwrap() + m.throughput.server_direct_tps
    );
    assert_eq!(
        num(v, "max_concurrent_requests"),
        f64::from(m.concurrency.max)
    );
    let peak = m
        .steady
        .output_tps_per_second
        .iter()
        .copied()
        .fold(0.0, f64::max);
    assert_eq!(num(v, "max_output_tokens_per_s"), peak);
    assert_stats(v, "ttft", m.ttft_ms.as_ref().unwrap());
    assert_stats(v, "tpot", m.tpot_ms.as_ref().unwrap());
    assert_stats(v, "itl", m.itl_chunk_ms.as_ref().unwrap());
    assert_stats(v, "e2el", m.e2e_ms.as_ref().unwrap());
    assert_eq!(v["mean_client_queue_time_ms"], Value::Null);
    assert_eq!(v["metadata"]["load"]["kind"], "closed");
    assert_eq!(v["metadata"]["window"]["m0_us"], s.phases.m0_us);
}

#[test]
fn per_request_lists_are_the_measured_records_in_seconds() {
    let files = export("clean", "lists");
    let (v, s) = sglang_a1_c2(&files);
    let records = fixtures().join("clean/sglang/llama-8b/A1/c2/requests.jsonl.gz");
    let window = Window {
        m0_us: s.phases.m0_us,
        m1_us: s.phases.m1_us,
        concurrency: Some(2),
    };
    let mut measured: Vec<_> = read_samples(&records)
        .unwrap()
        .into_iter()
        .filter(|r| window.measures(r))
        .collect();
    measured.sort_by_key(|r| (r.t_sent_us, r.seq));
    assert_eq!(measured.len() as u64, s.metrics.requests.measured);
    for key in [
        "input_lens",
        "output_lens",
        "ttfts",
        "itls",
        "latencies",
        "errors",
    ] {
        assert_eq!(v[key].as_array().unwrap().len(), measured.len(), "{key}");
    }
    // Truth from the raw instants, not through the Sample methods the export uses.
    let first = &measured[0];
    let ttft_s = (first.chunks[0].t_us - first.t_sent_us) as f64 / 1e6;
    let e2e_s = (first.chunks.last().unwrap().t_us - first.t_sent_us) as f64 / 1e6;
    assert_eq!(v["ttfts"][0].as_f64().unwrap(), ttft_s);
    assert_eq!(v["latencies"][0].as_f64().unwrap(), e2e_s);
    assert_eq!(
        v["start_times"][0].as_f64().unwrap(),
        first.t_sent_us as f64 / 1e6
    );
    let gaps: Vec<f64> = first
        .chunks
        .windows(2)
        .map(|w| (w[1].t_us - w[0].t_us) as f64 / 1e6)
        .collect();
    let itls: Vec<f64> = v["itls"][0]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect();
    assert_eq!(itls, gaps);
    assert_eq!(v["output_lens"][0], first.n_out.unwrap());
    assert_eq!(v["input_lens"][0], first.n_in.unwrap());
    assert_eq!(v["errors"][0], "");
    // The lists in s and the statistics in ms describe the same requests: the mean of
    // `ttfts` is `mean_ttft_ms` / 1000 up to float summation order (1e-12 relative).
    let ttfts: Vec<f64> = v["ttfts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect();
    let mean_ms = ttfts.iter().sum::<f64>() / ttfts.len() as f64 * 1000.0;
    let want = num(v, "mean_ttft_ms");
    assert!((mean_ms - want).abs() < want * 1e-12, "{mean_ms} vs {want}");
    // The fixture stored no text: every entry says so with null.
    assert!(
        v["generated_texts"]
            .as_array()
            .unwrap()
            .iter()
            .all(Value::is_null)
    );
}

#[test]
fn open_loop_uses_the_rate_and_latencies_from_the_send() {
    let files = export("open", "open");
    let (v, s) = files
        .iter()
        .find(|(_, s)| s.cell.load.request_rate == Some(4.0))
        .unwrap();
    let m = &s.metrics;
    let from_send = m.load.as_ref().unwrap().from_send.as_ref().unwrap();
    assert_eq!(num(v, "request_rate"), 4.0);
    assert_eq!(num(v, "burstiness"), 1.0, "poisson arrivals");
    assert_eq!(v["max_concurrency"], Value::Null, "no cap configured");
    assert_stats(v, "ttft", from_send.ttft_ms.as_ref().unwrap());
    assert_stats(v, "e2el", from_send.e2e_ms.as_ref().unwrap());
    assert_stats(v, "tpot", m.tpot_ms.as_ref().unwrap());
    assert_eq!(v["metadata"]["load"]["kind"], "open");
    assert_eq!(v["metadata"]["load"]["arrival"], "poisson");
    let n = v["ttfts"].as_array().unwrap().len() as u64;
    assert_eq!(n, m.requests.measured);
}

#[test]
fn unreadable_records_leave_the_lists_null_and_say_why() {
    let tmp = scratch("no-records");
    let root = tmp.path();
    let cell = root.join("results/sglang/llama-8b/A1/c2");
    fs::create_dir_all(&cell).unwrap();
    let src = fixtures().join("clean/sglang/llama-8b/A1/c2/summary.json");
    fs::copy(&src, cell.join("summary.json")).unwrap();
    let out = root.join("out");
    let written = vllm::write(&root.join("results"), &out).unwrap();
    assert_eq!(written.files.len(), 1, "the cell is still exported");
    assert_eq!(written.unreadable.len(), 1);
    assert!(
        written.unreadable[0].contains("requests.jsonl.gz"),
        "{:?}",
        written.unreadable
    );
    let v: Value = read_json(&written.files[0]).unwrap();
    assert_eq!(v["ttfts"], Value::Null);
    let why = v["metadata"]["null_keys"]["ttfts"].as_str().unwrap();
    assert!(why.contains("requests.jsonl.gz"), "{why}");
    let s: CellSummary = read_json(&src).unwrap();
    assert_eq!(num(&v, "mean_ttft_ms"), s.metrics.ttft_ms.unwrap().mean);
}

#[test]
fn a_missing_results_dir_is_named() {
    let tmp = scratch("missing");
    let missing = tmp.path().join("nope");
    let err = vllm::write(&missing, &missing.join("out"))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("nope") && err.contains("no such results directory"),
        "{err}"
    );
    assert!(!missing.exists(), "nothing written");
}

/// A long CSV's header and its rows, each keyed by the header's names.
fn long_rows(path: &Path) -> (Vec<String>, Vec<BTreeMap<String, String>>) {
    let mut reader = csv::Reader::from_path(path).unwrap();
    let header: Vec<String> = reader.headers().unwrap().iter().map(String::from).collect();
    let rows = reader
        .records()
        .map(|r| {
            header
                .iter()
                .cloned()
                .zip(r.unwrap().iter().map(String::from))
                .collect()
        })
        .collect();
    (header, rows)
}

#[test]
fn long_csv_parses_back_one_row_per_cell_metric_statistic() {
    let tmp = scratch("long");
    let out = tmp.path().join("long.csv");
    let written = long_csv::write(&fixtures().join("open"), &out).unwrap();
    assert_eq!(written.files, vec![out.clone()]);
    let (header, rows) = long_rows(&out);
    assert_eq!(header, long_csv::HEADER);
    let key = |r: &BTreeMap<String, String>| {
        [
            "endpoint",
            "model",
            "scenario",
            "load_kind",
            "load",
            "metric",
            "statistic",
        ]
        .map(|c| r[c].clone())
    };
    let unique: BTreeSet<_> = rows.iter().map(key).collect();
    assert_eq!(
        unique.len(),
        rows.len(),
        "no duplicate cell x metric x statistic"
    );
    let cells = plateau_report::export::read(&fixtures().join("open")).unwrap();
    assert_eq!(written.cells, cells.cells.len());
    for (_, s) in &cells.cells {
        let (kind, load) = match s.cell.load.concurrency {
            Some(n) => ("concurrency", n.to_string()),
            None => (
                "request_rate",
                s.cell.load.request_rate.unwrap().to_string(),
            ),
        };
        let find = |metric: &str, statistic: &str| {
            rows.iter()
                .find(|r| {
                    r["load_kind"] == kind
                        && r["load"] == load
                        && r["metric"] == metric
                        && r["statistic"] == statistic
                })
                .unwrap_or_else(|| panic!("{kind} {load} {metric} {statistic}"))
        };
        let ttft = s.metrics.ttft_ms.as_ref().unwrap();
        let p50 = find("ttft_ms", "p50");
        assert_eq!(p50["value"].parse::<f64>().unwrap(), ttft.p50);
        assert_eq!(p50["unit"], "ms");
        match ttft.p50_ci {
            Some([lo, hi]) => {
                assert_eq!(p50["ci_low"].parse::<f64>().unwrap(), lo);
                assert_eq!(p50["ci_high"].parse::<f64>().unwrap(), hi);
            }
            None => assert_eq!((p50["ci_low"].as_str(), p50["ci_high"].as_str()), ("", "")),
        }
        assert_eq!(find("ttft_ms", "n")["value"], ttft.n.to_string());
        assert_eq!(
            find("ttft_ms", "p99.9")["value"].parse::<f64>().unwrap(),
            ttft.p999
        );
        let rps = find("throughput.request_rps", "value");
        assert_eq!(
            rps["value"].parse::<f64>().unwrap(),
            s.metrics.throughput.request_rps
        );
        assert_eq!(rps["unit"], "req/s");
        let ttft_rows = rows
            .iter()
            .filter(|r| r["load"] == load && r["load_kind"] == kind && r["metric"] == "ttft_ms")
            .count();
        assert_eq!(ttft_rows, 10, "n mean std min max p50 p90 p95 p99 p99.9");
    }
}

#[test]
fn long_csv_has_the_gpu_block_with_its_units() {
    let tmp = scratch("long-gpu");
    let results = tmp.path().join("results");
    plateau_testkit::tree::copy_tree(&fixtures().join("open"), &results);
    let cells = plateau_report::export::read(&results).unwrap();
    let (dir, _) = &cells.cells[0];
    let path = results.join(dir).join("summary.json");
    let mut v: Value = read_json(&path).unwrap();
    v["gpu"] = serde_json::json!({
        "sources": ["http://n1:9400/metrics"], "file": "gpu_metrics.jsonl.gz",
        "interval_ms": 250, "samples": 60, "failed_samples": 0, "gpus": [{"gpu": "GPU-a"}],
        "fill": {"samples": 0}, "stabilize": {"samples": 0}, "drain": {"samples": 0},
        "measure": {"samples": 40, "power_w": {"mean": 500.0, "max": 510.0}, "energy_j": 5000.0,
                    "energy_source": "counter", "covered_s": 10.0, "distinct_readings": 40},
        "joules_per_output_token": 0.25, "output_tokens_per_joule": 4.0
    });
    fs::write(&path, serde_json::to_vec(&v).unwrap()).unwrap();
    let out = tmp.path().join("long.csv");
    long_csv::write(&results, &out).unwrap();
    let (_, rows) = long_rows(&out);
    let find = |metric: &str, statistic: &str| {
        let r = rows
            .iter()
            .find(|r| r["metric"] == metric && r["statistic"] == statistic)
            .unwrap_or_else(|| panic!("{metric} {statistic}"));
        (r["value"].clone(), r["unit"].clone())
    };
    assert_eq!(
        find("gpu.joules_per_output_token", "value"),
        ("0.25".into(), String::new())
    );
    assert_eq!(
        find("gpu.measure.energy_j", "value"),
        ("5000".into(), "J".into())
    );
    assert_eq!(
        find("gpu.measure.power_w.max", "value"),
        ("510".into(), "W".into())
    );
    let gpu_rows = rows
        .iter()
        .filter(|r| r["metric"].starts_with("gpu."))
        .count();
    assert!(gpu_rows >= 10, "{gpu_rows} gpu rows");
}
