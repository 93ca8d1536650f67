//! One `vllm bench serve --save-result` JSON per cell: vLLM's key names and units (as
//! written by `vllm/benchmarks/serve.py` at vllm-project/vllm@[`VLLM_COMMIT`]), filled
//! from the cell's `summary.json` and, for the per-request lists, its measured records
//! through the core's per-request definitions. A `metadata` object states plateau's window
//! semantics, and a key plateau cannot fill honestly is `null` with its reason there.
//!
//! The file is what vLLM writes with `--save-result --save-detailed --max-concurrency N
//! --percentile-metrics ttft,tpot,itl,e2el,client_queue_time --metric-percentiles
//! 50,90,95,99,99.9`: latency statistics in ms, the per-request lists (`ttfts`, `itls`,
//! `latencies`, `start_times`, `queue_times`) in seconds.

use std::path::Path;

use plateau_model::config::{Api, Arrival};
use plateau_model::load::cell_dir_name;
use plateau_model::metrics::{Distribution, Window};
use plateau_model::quantity as q;
use plateau_model::results::summary::{CellStatus, CellSummary};
use plateau_model::results::{read_samples, write_json};
use plateau_model::sample::Sample;
use serde_json::{Map, Value, json};

use super::{Written, read};
use crate::error::ReportError;
use crate::figures::timeline::file_part;

/// The vLLM commit whose `vllm/benchmarks/serve.py` the key set was read from.
pub const VLLM_COMMIT: &str = "009e6d4a1cd6ba3fb2a9fc00f4ec06f5297232a1";

/// Where a statistic lives in a [`Distribution`].
pub type Statistic = fn(&Distribution) -> f64;

/// The percentiles written for each latency (`p50_ttft_ms` ... `p99.9_ttft_ms`), named as
/// vLLM names them (`str(int(p))`, or `str(p)` for a fraction), with where plateau keeps
/// each in a [`Distribution`].
pub const PERCENTILES: [(&str, Statistic); 5] = [
    ("50", |d| d.p50),
    ("90", |d| d.p90),
    ("95", |d| d.p95),
    ("99", |d| d.p99),
    ("99.9", |d| d.p999),
];

/// The per-request lists vLLM writes with `--save-detailed`, in its order.
const PER_REQUEST: [&str; 9] = [
    "input_lens",
    "output_lens",
    "ttfts",
    "itls",
    "latencies",
    "start_times",
    "queue_times",
    "generated_texts",
    "errors",
];

/// Microseconds per second: the per-request lists are in seconds, as vLLM writes them.
const US_PER_S: f64 = 1e6;

/// Writes one vLLM result file per cell of `results_dir` into `out` (created if missing).
pub fn write(results_dir: &Path, out: &Path) -> Result<Written, ReportError> {
    let cells = read(results_dir)?;
    let mut unreadable = cells.unreadable;
    let mut files = Vec::new();
    for (dir, summary) in &cells.cells {
        let records = dir.join(&summary.records.file);
        let samples = read_samples(&records).map_err(|e| e.to_string());
        if let Err(e) = &samples {
            unreadable.push(e.clone());
        }
        let path = out.join(file_name(summary));
        write_json(
            &path,
            &cell(summary, samples.as_deref().map_err(String::as_str)),
        )
        .map_err(ReportError::Output)?;
        files.push(path);
    }
    Ok(Written {
        files,
        cells: cells.cells.len(),
        unreadable,
        missing: cells.missing,
        warnings: cells.warnings,
    })
}

/// `<endpoint>_<model>_<scenario>_<cell>.json`, the cell being its directory name (`c8`,
/// `r2.5`, `c8-2` for a second repeat); any character unsafe in a file name becomes `-`.
pub fn file_name(s: &CellSummary) -> String {
    let dir = s.cell.load.load().map_or_else(
        || "load-unknown".to_owned(),
        |l| cell_dir_name(&l, s.cell.repeat),
    );
    let parts = [&s.cell.endpoint, &s.cell.model, &s.cell.scenario, &dir];
    let safe: Vec<String> = parts.iter().map(|p| file_part(p)).collect();
    format!("{}.json", safe.join("_"))
}

/// The vLLM result object of one cell. `samples` are the cell's records, or why they could
/// not be read (the per-request lists are then `null`).
pub fn cell(s: &CellSummary, samples: Result<&[Sample], &str>) -> Value {
    let m = &s.metrics;
    let mut out = Map::new();
    run_fields(s, &mut out);
    let window = Window {
        m0_us: s.phases.m0_us,
        m1_us: s.phases.m1_us,
        concurrency: s.cell.load.concurrency,
    };
    for (key, list) in per_request(samples, &window) {
        out.insert(key.to_owned(), list);
    }
    let peak_tps = m
        .steady
        .output_tps_per_second
        .iter()
        .copied()
        .reduce(f64::max);
    out.insert("max_output_tokens_per_s".to_owned(), json!(peak_tps));
    out.insert(
        "max_concurrent_requests".to_owned(),
        json!(m.concurrency.max),
    );
    out.insert("rtfx".to_owned(), Value::Null);
    latency_fields(s, &mut out);
    let mut nulls = Map::new();
    for (key, value) in &out {
        if value.is_null() {
            nulls.insert(key.clone(), json!(null_reason(key, s, samples.err())));
        }
    }
    out.insert("metadata".to_owned(), metadata(s, nulls));
    Value::Object(out)
}

/// The run's description, load and totals in vLLM's keys.
fn run_fields(s: &CellSummary, out: &mut Map<String, Value>) {
    let m = &s.metrics;
    let mut put = |key: &str, value: Value| {
        out.insert(key.to_owned(), value);
    };
    let backend = match s.cell.api {
        Api::Chat => "openai-chat",
        Api::Completions => "openai",
    };
    put(
        "date",
        json!(s.started_at.format("%Y%m%d-%H%M%S").to_string()),
    );
    put("endpoint_type", json!(backend));
    put("backend", json!(backend));
    put("label", json!(s.cell.endpoint));
    put("model_id", json!(s.cell.model_name));
    put("tokenizer_id", json!(s.tokenizer));
    put("num_prompts", json!(m.requests.measured));
    let load = &s.cell.load;
    put(
        "request_rate",
        load.request_rate.map_or(json!("inf"), |r| json!(r)),
    );
    put(
        "burstiness",
        match load.arrival {
            Some(Arrival::Poisson) => json!(1.0),
            Some(Arrival::Gamma(g)) => json!(g.burstiness),
            Some(Arrival::Constant) | None => Value::Null,
        },
    );
    put(
        "max_concurrency",
        json!(load.concurrency.or(load.max_concurrency)),
    );
    put("duration", json!(m.throughput.window_s));
    put("completed", json!(q::OK.value(s).map(|v| v as u64)));
    put("failed", json!(q::ERRORS.value(s).map(|v| v as u64)));
    put("total_input_tokens", json!(m.throughput.input_tokens));
    put("total_output_tokens", json!(m.throughput.output_tokens));
    put("request_throughput", json!(q::REQUEST_RPS.value(s)));
    put("request_goodput", json!(q::GOODPUT_RPS.value(s)));
    put("output_throughput", json!(q::SERVER_TPS.value(s)));
    put(
        "total_token_throughput",
        json!(
            m.throughput
                .input_tps
                .map(|i| i + m.throughput.server_direct_tps)
        ),
    );
}

/// Mean, median, standard deviation and percentiles of each latency vLLM reports.
fn latency_fields(s: &CellSummary, out: &mut Map<String, Value>) {
    let m = &s.metrics;
    // vLLM's TTFT and E2EL run from the actual send; an open loop's headline ones run from
    // the intended send, so its from-send distributions are the ones vLLM means.
    let from_send = m.load.as_ref().and_then(|l| l.from_send.as_ref());
    let queue = m.load.as_ref().and_then(|l| l.queue_ms.as_ref());
    let stats = [
        (
            "ttft",
            from_send.map_or(m.ttft_ms.as_ref(), |f| f.ttft_ms.as_ref()),
        ),
        ("tpot", m.tpot_ms.as_ref()),
        ("itl", m.itl_chunk_ms.as_ref()),
        (
            "e2el",
            from_send.map_or(m.e2e_ms.as_ref(), |f| f.e2e_ms.as_ref()),
        ),
        ("client_queue_time", queue),
    ];
    for (name, d) in stats {
        out.insert(format!("mean_{name}_ms"), json!(d.map(|d| d.mean)));
        out.insert(format!("median_{name}_ms"), json!(d.map(|d| d.p50)));
        out.insert(format!("std_{name}_ms"), json!(d.map(|d| d.std)));
        for (p, read) in PERCENTILES {
            out.insert(format!("p{p}_{name}_ms"), json!(d.map(read)));
        }
    }
}

/// The per-request lists, over the measured requests (started in `[m0, m1)`, any outcome)
/// in order of start; a value a request does not have is `null`, never 0.
fn per_request(samples: Result<&[Sample], &str>, window: &Window) -> Vec<(&'static str, Value)> {
    let Ok(samples) = samples else {
        return PER_REQUEST.iter().map(|&k| (k, Value::Null)).collect();
    };
    let mut measured: Vec<&Sample> = samples.iter().filter(|s| window.measures(s)).collect();
    measured.sort_by_key(|s| (s.t_start_us(), s.seq));
    let s_of = |us: u64| us as f64 / US_PER_S;
    let list = |f: &dyn Fn(&Sample) -> Value| Value::Array(measured.iter().map(|s| f(s)).collect());
    let values = [
        list(&|s| json!(s.n_in)),
        list(&|s| json!(s.outcome.is_ok().then_some(s.n_out).flatten())),
        list(&|s| json!(s.ttft_from_send_us().map(s_of))),
        list(&|s| json!(s.itl_chunk_us().map(|us| us / US_PER_S).collect::<Vec<_>>())),
        list(&|s| json!(s.e2e_from_send_us().map(s_of))),
        list(&|s| json!(s_of(s.t_sent_us))),
        list(&|s| json!(s.queue_us.map(s_of))),
        list(&|s| json!(s.response)),
        list(&|s| {
            if s.outcome.is_ok() {
                json!("")
            } else {
                json!(s.error.clone().unwrap_or_else(|| s.outcome.key()))
            }
        }),
    ];
    PER_REQUEST.into_iter().zip(values).collect()
}

/// Why `key` is `null` in this cell's file.
fn null_reason(key: &str, s: &CellSummary, records_error: Option<&str>) -> String {
    match key {
        "burstiness" if s.cell.load.request_rate.is_some() => {
            "constant arrivals: vLLM's burstiness would be infinite, which JSON cannot hold"
        }
        "burstiness" => "closed loop: no arrival process (vLLM's request_rate is inf)",
        "rtfx" => "not an audio benchmark: plateau sends no audio",
        "request_goodput" => "no SLO configured (vLLM also writes null without --goodput)",
        "total_input_tokens" | "total_token_throughput" => {
            "a request completed in the window lacks a prompt token count"
        }
        "max_output_tokens_per_s" => "the window holds no whole second of output",
        k if k.contains("client_queue_time") => {
            "plateau queues client-side only in an open loop with max_concurrency; a closed \
             loop sends each request the moment its slot frees"
        }
        k if PER_REQUEST.contains(&k) => {
            return records_error.map_or_else(
                || "not recorded".to_owned(),
                |e| format!("the request records could not be read: {e}"),
            );
        }
        _ => "plateau measured no value for it in this cell (see summary.json)",
    }
    .to_owned()
}

/// plateau's semantics of the numbers, the cell's coordinates and verdicts, and why each
/// `null` key is empty.
fn metadata(s: &CellSummary, nulls: Map<String, Value>) -> Value {
    let load = &s.cell.load;
    let loop_ = match (load.concurrency, load.request_rate) {
        (Some(n), _) => json!({"kind": "closed", "concurrency": n,
            "meaning": format!("closed loop: exactly {n} requests in flight, each sent the \
                moment the previous one of its slot ended (vLLM's max_concurrency with \
                request_rate inf, but without the initial burst)")}),
        (None, Some(r)) => json!({"kind": "open", "request_rate": r,
            "arrival": load.arrival.map(Arrival::label),
            "max_concurrency": load.max_concurrency,
            "meaning": format!("open loop: arrivals at {r} req/s, never delayed by slow \
                requests; ttft/e2el statistics and lists run from the actual send, as \
                vLLM's do (plateau's summary.json headline ones run from the intended send)")}),
        (None, None) => Value::Null,
    };
    json!({
        "source": "plateau",
        "plateau_version": s.plateau_version,
        "format": format!("vllm bench serve --save-result --save-detailed, key set of \
            vllm-project/vllm@{VLLM_COMMIT} vllm/benchmarks/serve.py"),
        "equivalent_vllm_flags": "--save-result --save-detailed --max-concurrency N \
            --percentile-metrics ttft,tpot,itl,e2el,client_queue_time \
            --metric-percentiles 50,90,95,99,99.9",
        "cell": {
            "endpoint": s.cell.endpoint,
            "engine": s.cell.engine.as_str(),
            "model": s.cell.model,
            "model_name": s.cell.model_name,
            "scenario": s.cell.scenario,
            "concurrency": load.concurrency,
            "request_rate": load.request_rate,
        },
        "status": match s.status {
            CellStatus::Complete => "complete",
            CellStatus::Interrupted => "interrupted",
            CellStatus::Failed => "failed",
        },
        "steady": s.metrics.steady.steady,
        "steady_reasons": s.metrics.steady.reasons,
        "load": loop_,
        "window": {
            "m0_us": s.phases.m0_us,
            "m1_us": s.phases.m1_us,
            "meaning": "the numbers are from plateau's measure window [m0, m1) after Fill \
                and Stabilize, not from a burst run: duration is m1 - m0",
        },
        "requests": "num_prompts, completed, failed, the per-request lists and every \
            mean/median/std/pXX statistic cover only requests started inside [m0, m1) \
            (successful ones for the statistics); start_times are seconds since the cell \
            started; a value a request does not have is null, never 0",
        "throughput": "output_throughput and total_output_tokens count output tokens \
            arriving inside [m0, m1] over m1 - m0; request_throughput and \
            total_input_tokens count successful requests ending inside [m0, m1]; \
            max_output_tokens_per_s is the busiest whole second of the window; \
            max_concurrent_requests is the peak in flight within the window",
        "tpot": "TPOT = (t_last - t_first) / (n_out - 1) per request with n_out >= 2 \
            (plateau SPEC section 5, the same definition as vLLM)",
        "itl": "ITL per chunk: every gap between content chunks (plateau's itl_chunk_ms)",
        "null_keys": nulls,
    })
}
