//! The wire zoo: the simulator misbehaving as real servers, proxies and APIs do (its `wire`
//! switches), and plateau's numbers against the truth the simulator's timing implies.
//!
//! Every cell: fixed profile, TTFT 50 ms, 20 ms between tokens, 10 tokens per reply, N = 2.

use plateau_model::results::summary::CellSummary;
use plateau_model::validate::{Severity, Thresholds, check_cell};
use plateau_sim::SimConfig;
use serde_json::{Value, json};

use crate::common;

const TTFT_MS: f64 = 50.0;
const ITL_MS: f64 = 20.0;
const TOKENS: u32 = 10;

/// Runs one cell against the simulator with `wire` switches (and `extra` config keys).
async fn cell(name: &str, wire: Value, extra: Value) -> CellSummary {
    let sim: SimConfig = serde_json::from_value(json!({
        "profile": "fixed",
        "fixed": {"ttft_ms": TTFT_MS, "itl_ms": ITL_MS},
        "wire": wire,
    }))
    .unwrap();
    let mut config = json!({
        "endpoints": [{"name": "zoo", "engine": "sim", "url": "http://placeholder/v1"}],
        "models": [{"id": "m", "name": "plateau-sim"}],
        "scenarios": ["A1"],
        "batch_sizes": [2],
        "fill_seconds": 0.2, "stabilize_seconds": 0.4, "measure_seconds": 1.5, "drain_seconds": 3,
        "request_timeout_seconds": 5,
        "max_tokens": TOKENS
    });
    for (k, v) in extra.as_object().unwrap() {
        config[k] = v.clone();
    }
    let (_tmp, out) = common::out_dir(&format!("wire-{name}"));
    let report = common::run(sim, config, &out).await;
    common::at(&report, 2).clone()
}

fn p50(d: &Option<plateau_model::metrics::Distribution>) -> f64 {
    d.as_ref().expect("the distribution exists").p50
}

fn near(got: f64, want: f64, tol: f64, what: &str) {
    assert!(
        (got - want).abs() <= tol,
        "{what}: {got:.2} is not within {tol} of {want}"
    );
}

fn checks(s: &CellSummary) -> Vec<(&'static str, Severity)> {
    check_cell(s, &Thresholds::default())
        .into_iter()
        .map(|f| (f.check, f.severity))
        .collect()
}

fn no_failures(s: &CellSummary) {
    let r = &s.metrics.requests;
    assert_eq!(
        r.measured_errors, 0,
        "errors: {:?}",
        r.measured_errors_by_kind
    );
    assert!(r.measured_ok > 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_closes_after_every_response_fails_no_request() {
    let s = cell("close", json!({"close_after_response": true}), json!({})).await;
    no_failures(&s);
    // Not one failure in any phase either.
    assert!(
        s.metrics.requests.errors_by_kind.is_empty(),
        "{:?}",
        s.metrics.requests.errors_by_kind
    );
    let c = s.metrics.connections.as_ref().unwrap();
    // Every request after a slot's first needed a new connection.
    assert!(c.reconnects > 0 && c.reused <= 2, "{c:?}");
    assert!(c.connect_ms.is_some());
    near(
        p50(&s.metrics.ttft_ms),
        TTFT_MS,
        8.0,
        "TTFT p50 (connect time is not in it)",
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_keep_alive_server_reuses_its_connections() {
    let s = cell("keepalive", json!({}), json!({})).await;
    let c = s.metrics.connections.as_ref().unwrap();
    assert_eq!((c.reconnects, c.resends), (0, 0), "{c:?}");
    assert!(c.reused > c.opened, "{c:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_events_per_write_are_one_chunk_of_three_tokens() {
    let s = cell("grouped", json!({"events_per_write": 3}), json!({})).await;
    no_failures(&s);
    let m = &s.metrics;
    near(p50(&m.itl_token_ms), ITL_MS, 3.0, "ITL per token p50");
    near(p50(&m.itl_chunk_ms), 3.0 * ITL_MS, 6.0, "ITL per chunk p50");
    assert!(m.jitter.token.is_some(), "jitter exists");
    let reads = m.reads.as_ref().unwrap();
    assert!(reads.multi_event_fraction > 0.5, "{reads:?}");
    assert!(checks(&s).contains(&("buffered_stream", Severity::Warn)));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stream_that_arrives_at_once_has_no_tpot() {
    let s = cell("whole", json!({"whole_stream_at_end": true}), json!({})).await;
    no_failures(&s);
    let m = &s.metrics;
    assert_eq!(
        (&m.tpot_ms, &m.itl_chunk_ms, &m.itl_token_ms),
        (&None, &None, &None)
    );
    assert_eq!(m.jitter.token, None);
    for key in [
        "tpot_ms",
        "itl_chunk_ms",
        "itl_token_ms",
        "generation_throughput_tps",
    ] {
        assert!(m.unmeasured.contains_key(key), "{key}: {:?}", m.unmeasured);
    }
    // All of it arrives when generation ends.
    near(
        p50(&m.ttft_ms),
        TTFT_MS + f64::from(TOKENS - 1) * ITL_MS,
        10.0,
        "TTFT p50",
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_streaming_ttft_is_labelled_and_tpot_absent() {
    let s = cell("nostream", json!({}), json!({"stream": false})).await;
    no_failures(&s);
    let m = &s.metrics;
    assert_eq!(
        m.ttft_basis,
        plateau_model::metrics::TtftBasis::WholeResponse
    );
    assert_eq!(m.tpot_ms, None);
    assert!(m.unmeasured["tpot_ms"].contains("stream: false"));
    assert!(checks(&s).contains(&("not_streamed", Severity::Warn)));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_usage_the_whole_text_is_counted() {
    let s = cell("nousage", json!({"usage": "none"}), json!({})).await;
    no_failures(&s);
    let m = &s.metrics;
    assert_eq!(
        m.tokens.n_out_sources.get("tokenizer"),
        Some(&m.requests.measured_ok)
    );
    let out = m.output_tokens.as_ref().unwrap();
    assert_eq!((out.min, out.max), (f64::from(TOKENS), f64::from(TOKENS)));
    near(p50(&m.tpot_ms), ITL_MS, 3.0, "TPOT p50");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn usage_that_disagrees_with_the_content_fails_the_cell() {
    let s = cell(
        "scaled",
        json!({"usage": "scaled", "usage_scale": 3.0}),
        json!({}),
    )
    .await;
    assert!(
        checks(&s).contains(&("usage_mismatch", Severity::Fail)),
        "{:?}",
        checks(&s)
    );
    let honest = cell("unscaled", json!({}), json!({})).await;
    assert!(!checks(&honest).iter().any(|c| c.0 == "usage_mismatch"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tokens_without_text_still_end_the_request() {
    // Every 5th token decodes to no text, the last one among them.
    let s = cell("empty", json!({"empty_text_every": 5}), json!({})).await;
    no_failures(&s);
    let m = &s.metrics;
    near(
        p50(&m.e2e_ms),
        TTFT_MS + f64::from(TOKENS - 1) * ITL_MS,
        8.0,
        "E2E p50 ends at the last token",
    );
    near(p50(&m.tpot_ms), ITL_MS, 2.0, "TPOT p50");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tool_call_deltas_are_output() {
    let s = cell("tools", json!({"tool_calls": true}), json!({})).await;
    no_failures(&s);
    let m = &s.metrics;
    assert_eq!(p50(&m.output_tokens), f64::from(TOKENS));
    near(p50(&m.ttft_ms), TTFT_MS, 8.0, "TTFT p50");
    near(p50(&m.tpot_ms), ITL_MS, 2.0, "TPOT p50");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reasoning_has_its_own_time_to_first_answer() {
    let s = cell("reasoning", json!({"reasoning_tokens": 4}), json!({})).await;
    no_failures(&s);
    let m = &s.metrics;
    near(
        p50(&m.ttft_ms),
        TTFT_MS,
        8.0,
        "TTFT p50 (first token of any kind)",
    );
    near(
        p50(&m.time_to_first_answer_ms),
        TTFT_MS + 4.0 * ITL_MS,
        8.0,
        "time to first answer token p50",
    );
    assert_eq!(p50(&m.reasoning_tokens), 4.0);
    assert_eq!(p50(&m.output_tokens), f64::from(TOKENS));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slow_start_then_burst_keeps_the_mean_rate() {
    let s = cell("burst", json!({"burst_after_first": true}), json!({})).await;
    no_failures(&s);
    let m = &s.metrics;
    near(p50(&m.tpot_ms), ITL_MS, 3.0, "TPOT p50");
    near(
        p50(&m.itl_chunk_ms),
        f64::from(TOKENS - 1) * ITL_MS,
        10.0,
        "the one gap",
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn requests_that_time_out_produce_no_throughput() {
    // 1,000 tokens at 20 ms would take 20 s; every request times out after 0.5 s.
    let s = cell(
        "timeouts",
        json!({}),
        json!({"max_tokens": 1000, "request_timeout_seconds": 0.5}),
    )
    .await;
    let m = &s.metrics;
    assert_eq!(m.requests.measured_ok, 0);
    assert!(
        m.requests
            .measured_errors_by_kind
            .get("timeout")
            .copied()
            .unwrap_or(0)
            > 0
    );
    assert_eq!(m.throughput.output_tokens, 0);
    assert_eq!(m.throughput.server_direct_tps, 0.0);
    assert!(!m.steady.steady, "{:?}", m.steady);
}
