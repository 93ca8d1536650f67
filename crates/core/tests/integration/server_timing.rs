//! The server's side of every request, end to end against a raw HTTP/1.1 server that
//! answers as llama.cpp does: every request carries a sampled W3C `traceparent` and an
//! `X-Request-Id` of its own (exactly one of each, the trace id in the request's record),
//! headers the user configured win, and llama.cpp's `timings` become each record's server
//! timing and the cell's distributions. The server derives each answer's `timings` from the
//! trace id it was sent, so a record joined to the wrong answer would show.

use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use plateau_model::results::{self, REQUESTS_FILE};
use plateau_model::sample::server::TimingSource;
use plateau_model::sample::{Outcome, Sample};
use plateau_testkit::raw::{read_head, server};
use serde_json::{Value, json};
use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;

use crate::common;

/// The heads of the completion requests the server received.
type Heads = Arc<Mutex<Vec<String>>>;

/// How long the server waits before it answers: longer than any `prompt_ms` it reports
/// (at most 255 / 8 ms), so the client's TTFT is always the longer.
const ANSWER_AFTER: Duration = Duration::from_millis(40);

/// The timings the server reports for a request with `trace` (32 hex digits): prompt_ms
/// its first byte / 8, predicted_ms its second / 4, cache_n its third mod 32, of 32 prompt
/// tokens; exact in binary, so the us in the record are exact too.
fn timings_of(trace: &str) -> (f64, f64, u32) {
    let byte = |i: usize| u8::from_str_radix(&trace[2 * i..2 * i + 2], 16).unwrap();
    (
        f64::from(byte(0)) / 8.0,
        f64::from(byte(1)) / 4.0,
        u32::from(byte(2)) % 32,
    )
}

/// The one value of header `name` in `head` (names compared without case); panics unless
/// it is there exactly once.
fn header<'a>(head: &'a str, name: &str) -> &'a str {
    let values: Vec<&str> = head
        .lines()
        .skip(1)
        .filter_map(|l| l.split_once(':'))
        .filter(|(n, _)| n.trim().eq_ignore_ascii_case(name))
        .map(|(_, v)| v.trim())
        .collect();
    assert_eq!(values.len(), 1, "{name} in:\n{head}");
    values[0]
}

/// A streamed chat answer in llama.cpp's exact format (captured from its server, build
/// xllamacpp 2026.10.11549): three content chunks, the finish chunk, the usage chunk with
/// `timings`, `[DONE]`.
fn answer(prompt_ms: f64, predicted_ms: f64, cache_n: u32) -> String {
    let head = r#""created":1795722953,"id":"chatcmpl-GTJeijABckCllYMtsffKWTWaG8ACqpTM","model":"tiny-llama","system_fingerprint":"b0-unknown","object":"chat.completion.chunk""#;
    let mut events = vec![format!(
        r#"{{"choices":[{{"finish_reason":null,"index":0,"delta":{{"role":"assistant","content":null}}}}],{head}}}"#
    )];
    for word in [" one", " two", " three"] {
        events.push(format!(
            r#"{{"choices":[{{"finish_reason":null,"index":0,"delta":{{"content":"{word}"}}}}],{head}}}"#
        ));
    }
    events.push(format!(
        r#"{{"choices":[{{"finish_reason":"length","index":0,"delta":{{}}}}],{head}}}"#
    ));
    let prompt_n = 32 - cache_n;
    let timings = json!({
        "cache_n": cache_n, "prompt_n": prompt_n, "prompt_ms": prompt_ms,
        "prompt_per_token_ms": prompt_ms / f64::from(prompt_n.max(1)),
        "prompt_per_second": 1e3 * f64::from(prompt_n) / prompt_ms.max(1e-3),
        "predicted_n": 3, "predicted_ms": predicted_ms,
        "predicted_per_token_ms": predicted_ms / 3.0,
        "predicted_per_second": 3e3 / predicted_ms.max(1e-3),
    });
    let usage = json!({"completion_tokens": 3, "prompt_tokens": 32, "total_tokens": 35,
        "prompt_tokens_details": {"cached_tokens": cache_n}});
    events.push(format!(
        r#"{{"choices":[],{head},"usage":{usage},"timings":{timings}}}"#
    ));
    events.push("[DONE]".into());
    events.iter().map(|e| format!("data: {e}\n\n")).collect()
}

/// Serves one connection: completion requests get [`answer`] after [`ANSWER_AFTER`] with
/// the timings of the trace id their `traceparent` carries (or of their `X-Request-Id` when
/// the user's `traceparent` is the same on every request); anything else a 404.
async fn serve(mut sock: TcpStream, heads: Heads) {
    while let Some(head) = read_head(&mut sock).await {
        if !head.starts_with("POST ") || !head.contains("/chat/completions") {
            let _ = sock
                .write_all(b"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n")
                .await;
            continue;
        }
        let rid = header(&head, "x-request-id").to_owned();
        let key = if rid.len() == 32 {
            rid
        } else {
            "00".repeat(16)
        };
        heads.lock().unwrap().push(head);
        tokio::time::sleep(ANSWER_AFTER).await;
        let (prompt_ms, predicted_ms, cache_n) = timings_of(&key);
        let body = answer(prompt_ms, predicted_ms, cache_n);
        let reply = format!(
            "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncontent-length: {}\r\n\r\n{body}",
            body.len()
        );
        if sock.write_all(reply.as_bytes()).await.is_err() {
            return;
        }
    }
}

/// Runs one cell at N=2 against the raw server with the endpoint's `headers`; the heads the
/// server got, the records and the cell's summary.
async fn cell(
    name: &str,
    headers: Value,
) -> (
    Vec<String>,
    Vec<Sample>,
    plateau_model::results::summary::CellSummary,
) {
    let heads: Heads = Arc::default();
    let port = server(vec![Arc::clone(&heads); 64], serve).await;
    let (_tmp, out) = common::out_dir(name);
    let config = json!({
        "endpoints": [{"name": "llama", "engine": "llamacpp", "url": "http://placeholder/v1",
                       "headers": headers}],
        "models": [{"id": "m", "name": "tiny-llama"}],
        "scenarios": ["A1"],
        "batch_sizes": [2],
        "fill_seconds": 0.5, "stabilize_seconds": 0.5, "measure_seconds": 2, "drain_seconds": 3,
        "request_timeout_seconds": 5,
        "max_tokens": 3,
        "server_metrics": {"enabled": false}
    });
    let url = format!("http://127.0.0.1:{port}/v1");
    let report = common::run_at(&url, config, &out, false).await;
    let summary = common::at(&report, 2).clone();
    let samples = results::read_samples(&out.join("llama/m/A1/c2").join(REQUESTS_FILE)).unwrap();
    let heads = heads.lock().unwrap().clone();
    (heads, samples, summary)
}

fn is_lower_hex(s: &str, len: usize) -> bool {
    s.len() == len
        && s.bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_request_carries_its_own_traceparent_and_request_id() {
    let (heads, samples, summary) = cell("join-key", json!([])).await;
    assert!(heads.len() >= 20, "only {} requests", heads.len());
    // Requests cancelled when Drain ends may or may not have reached the server.
    let unseen: Vec<&Sample> = samples
        .iter()
        .filter(|s| {
            !heads
                .iter()
                .any(|h| h.contains(s.trace_id.as_deref().unwrap_or("-")))
        })
        .collect();
    assert!(
        unseen.iter().all(|s| s.outcome == Outcome::Cancelled),
        "records the server did not see: {unseen:?}"
    );
    assert_eq!(heads.len() + unseen.len(), samples.len());
    let mut sent = BTreeSet::new();
    for head in &heads {
        let tp = header(head, "traceparent");
        let parts: Vec<&str> = tp.split('-').collect();
        assert_eq!(parts.len(), 4, "{tp}");
        assert_eq!(parts[0], "00", "version: {tp}");
        assert!(
            is_lower_hex(parts[1], 32) && parts[1] != "0".repeat(32),
            "{tp}"
        );
        assert!(
            is_lower_hex(parts[2], 16) && parts[2] != "0".repeat(16),
            "{tp}"
        );
        assert_eq!(parts[3], "01", "sampled: {tp}");
        assert_eq!(
            header(head, "x-request-id"),
            parts[1],
            "request id is the trace id"
        );
        assert!(
            sent.insert(parts[1].to_owned()),
            "trace id {} sent twice",
            parts[1]
        );
    }
    let recorded: BTreeSet<String> = samples
        .iter()
        .map(|s| s.trace_id.clone().expect("a trace id in every record"))
        .collect();
    let unseen: BTreeSet<String> = unseen.iter().filter_map(|s| s.trace_id.clone()).collect();
    let recorded_seen: BTreeSet<String> = recorded.difference(&unseen).cloned().collect();
    assert_eq!(
        recorded_seen, sent,
        "the records carry exactly the trace ids sent"
    );

    // Each answered record holds the timings its own answer carried, to the us.
    for s in samples.iter().filter(|s| s.outcome.is_ok()) {
        let (prompt_ms, predicted_ms, cache_n) = timings_of(s.trace_id.as_deref().unwrap());
        let t = s
            .server
            .as_ref()
            .unwrap_or_else(|| panic!("no timings: {s:?}"));
        assert_eq!(t.source, TimingSource::Timings);
        assert_eq!(t.prefill_us, Some((prompt_ms * 1e3) as u64), "{s:?}");
        assert_eq!(t.decode_us, Some((predicted_ms * 1e3) as u64));
        assert_eq!(t.cached_tokens, Some(cache_n));
        assert_eq!((t.prompt_tokens, t.output_tokens), (Some(32), Some(3)));
        let ttft = s.t_first_us().unwrap() - s.t_sent_us;
        assert!(
            ttft > t.prefill_us.unwrap(),
            "prefill below the client's TTFT: {s:?}"
        );
    }
    check_summary(&samples, &summary);
}

/// The cell's server timing is the distribution of its measured records' timings.
fn check_summary(samples: &[Sample], summary: &plateau_model::results::summary::CellSummary) {
    let st = summary
        .server_timing
        .as_ref()
        .expect("a server timing summary");
    let ok = summary.metrics.requests.measured_ok;
    assert!(ok > 0);
    assert_eq!((st.records, st.matched, st.unmatched_records), (ok, ok, 0));
    assert_eq!(st.match_rate, Some(1.0));
    assert_eq!(st.negative_gaps, 0);
    let measured: Vec<&Sample> = samples
        .iter()
        .filter(|s| {
            let window = summary.phases.m0_us..summary.phases.m1_us;
            window.contains(&s.t_start_us()) && s.outcome.is_ok()
        })
        .collect();
    assert_eq!(measured.len() as u64, ok);
    let max_prefill = measured
        .iter()
        .filter_map(|s| s.server.as_ref()?.prefill_us)
        .max()
        .unwrap();
    let prefill = st.prefill_ms.as_ref().expect("prefill");
    assert_eq!(prefill.n, ok);
    assert_eq!(prefill.max, max_prefill as f64 / 1e3);
    let gap = st.gap_ms.as_ref().expect("gap");
    assert!(gap.min > 0.0, "{gap:?}");
    assert_eq!(st.output_tokens.as_ref().unwrap().mean, 3.0);
    assert_eq!(st.output_token_mismatches, 0);
    let by_cache: HashMap<u32, usize> = measured
        .iter()
        .filter_map(|s| s.server.as_ref()?.cached_tokens)
        .fold(HashMap::new(), |mut m, c| {
            *m.entry(c).or_default() += 1;
            m
        });
    assert!(
        by_cache.len() > 1,
        "trace ids vary, so do cache_n: {by_cache:?}"
    );
    assert!(st.unmeasured.contains_key("queue_ms"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn headers_the_user_sets_win() {
    let theirs = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    // Their traceparent alone: sent as is on every request, its trace id recorded, and a
    // request id of plateau's, different on each request, beside it.
    let (heads, samples, _) = cell(
        "user-traceparent",
        json!([{"name": "traceparent", "value": theirs}]),
    )
    .await;
    assert!(!heads.is_empty());
    let mut ids = BTreeSet::new();
    for head in &heads {
        assert_eq!(header(head, "traceparent"), theirs);
        let rid = header(head, "x-request-id");
        assert!(is_lower_hex(rid, 32), "{rid}");
        assert!(ids.insert(rid.to_owned()), "request id {rid} sent twice");
    }
    assert!(
        samples
            .iter()
            .all(|s| s.trace_id.as_deref() == Some("4bf92f3577b34da6a3ce929d0e0e4736"))
    );

    // Both of theirs: sent as they are, nothing of plateau's added.
    let both = json!([{"name": "Traceparent", "value": theirs},
                      {"name": "X-Request-Id", "value": "run-7"}]);
    let (heads, _, _) = cell("user-both", both).await;
    assert!(!heads.is_empty());
    for head in &heads {
        assert_eq!(header(head, "traceparent"), theirs);
        assert_eq!(header(head, "x-request-id"), "run-7");
    }
}
