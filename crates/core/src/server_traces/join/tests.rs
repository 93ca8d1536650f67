//! The join on parts put straight into the held list (the receiver is exercised over
//! sockets in `plateau-otlp`'s tests and the sim end to end).

use super::*;
use crate::server_traces::part;
use plateau_model::config::ServerTracesConfig;
use plateau_otlp::hex;

fn spans() -> Spans {
    Spans::start(&ServerTracesConfig {
        listen: "127.0.0.1:0".into(),
        wait_seconds: 0.0,
        ..ServerTracesConfig::default()
    })
    .expect("a receiver")
}

fn id(n: u8) -> TraceId {
    let mut id = [0x11; 16];
    id[15] = n;
    id
}

fn record(seq: u64, trace: Option<TraceId>, ok: bool) -> Sample {
    let outcome = if ok { "ok" } else { "connect" };
    let mut s: Sample = serde_json::from_str(&format!(
        r#"{{"seq":{seq},"slot":0,"phase":"measure","t_sent_us":0,"t_end_us":1,"chunks":[],"outcome":{{"kind":"{outcome}"}}}}"#
    ))
    .expect("a sample");
    s.trace_id = trace.map(|t| hex(&t));
    s
}

fn vllm(trace: TraceId, ttft_s: f64) -> Part {
    Part {
        trace_id: trace,
        kind: PartKind::Timing(Box::new(Attributes {
            detected: Some(&engines::VLLM),
            queue_s: Some(0.012),
            ttft_s: Some(ttft_s),
            prefill_s: Some(0.045),
            output_tokens: Some(128.0),
            ..Attributes::default()
        })),
    }
}

#[tokio::test]
async fn records_match_by_trace_and_the_rest_is_counted_by_reason() {
    let mut s = spans();
    let mut samples: Vec<Sample> = (0..3).map(|i| record(i, Some(id(i as u8)), true)).collect();
    samples.push(record(3, Some(id(3)), true));
    samples.push(record(4, None, true));
    s.held.extend([
        vllm(id(0), 0.0581),
        vllm(id(1), 0.05),
        vllm(id(2), 0.05),
        vllm(id(9), 0.05),
    ]);
    let join = s.join(&mut samples, Some(&engines::VLLM)).await;
    let matched = samples.iter().filter(|x| x.server.is_some()).count();
    assert_eq!(matched, 3);
    let t = samples[0].server.as_ref().expect("matched");
    assert_eq!(
        (t.queue_us, t.ttft_us, t.prefill_us, t.output_tokens),
        (Some(12_000), Some(58_100), Some(45_000), Some(128))
    );
    assert_eq!(
        join.spans,
        SpanCounts {
            kept: 3,
            unmatched: 1,
            ..SpanCounts::default()
        }
    );
    assert_eq!(join.table, Some("vllm"));
    // The next cell: a late span of this one, and two spans of one trace.
    let mut next = vec![record(10, Some(id(20)), true)];
    s.held
        .extend([vllm(id(3), 0.05), vllm(id(20), 0.05), vllm(id(20), 0.06)]);
    let join = s.join(&mut next, Some(&engines::VLLM)).await;
    assert_eq!(
        join.spans,
        SpanCounts {
            kept: 1,
            late: 1,
            duplicate: 1,
            ..SpanCounts::default()
        }
    );
    assert_eq!(
        next[0].server.as_ref().and_then(|t| t.ttft_us),
        Some(50_000)
    );
}

#[tokio::test]
async fn records_sharing_a_users_traceparent_stay_unmatched() {
    let mut s = spans();
    let mut samples = vec![record(0, Some(id(5)), true), record(1, Some(id(5)), true)];
    s.held.push(vllm(id(5), 0.05));
    let join = s.join(&mut samples, Some(&engines::VLLM)).await;
    assert_eq!(join.spans.ambiguous_records, 2);
    assert_eq!(join.spans.unmatched, 0);
    assert!(samples.iter().all(|x| x.server.is_none()));
}

#[tokio::test]
async fn a_span_in_a_fresh_trace_matches_by_its_request_id() {
    let mut s = spans();
    let mut samples = vec![record(7, Some(id(1)), true)];
    let mut part = vllm(id(99), 0.05);
    if let PartKind::Timing(a) = &mut part.kind {
        a.request_id = Some(format!("chatcmpl-{}", hex(&id(1))));
    }
    s.held.push(part);
    let join = s.join(&mut samples, None).await;
    assert!(samples[0].server.is_some());
    assert_eq!(join.by_request_id, HashSet::from([7]));
    assert_eq!(join.spans.kept, 1);
}

#[tokio::test]
async fn sglangs_queue_span_is_taken_off_its_prefill_across_two_exports() {
    let mut s = spans();
    let mut samples = vec![record(0, Some(id(1)), true)];
    let root = Part {
        trace_id: id(1),
        kind: PartKind::Timing(Box::new(Attributes {
            detected: Some(&engines::SGLANG),
            ttft_s: Some(0.104),
            prefill_s: Some(0.100),
            cached_tokens: Some(2032.0),
            ..Attributes::default()
        })),
    };
    // The tokenizer's export first, the scheduler's (the queue span) in a later one.
    s.held.push(root);
    s.held.push(Part {
        trace_id: id(1),
        kind: PartKind::Queue(20_000_000),
    });
    let join = s.join(&mut samples, None).await;
    let t = samples[0].server.as_ref().expect("matched");
    assert_eq!(
        (t.queue_us, t.prefill_us, t.cached_tokens),
        (Some(20_000), Some(80_000), Some(2032))
    );
    assert_eq!(join.table, Some("sglang"));
}

#[test]
fn parts_are_read_from_the_fixture_names() {
    use plateau_otlp::{Span, Value};
    let span = |name: &str, attributes: Vec<(String, Value)>| Span {
        trace_id: id(1),
        span_id: [1; 8],
        parent_span_id: None,
        name: name.into(),
        start_unix_ns: 1_000,
        end_unix_ns: 20_001_000,
        attributes,
    };
    let attrs = vec![
        (
            "gen_ai.latency.time_to_first_token".to_owned(),
            Value::Double(0.0581),
        ),
        ("gen_ai.usage.prompt_tokens".to_owned(), Value::Int(2500)),
        (
            "gen_ai.request.id".to_owned(),
            Value::Str("chatcmpl-x".into()),
        ),
    ];
    let Some(Part {
        kind: PartKind::Timing(a),
        ..
    }) = part(span("llm_request", attrs))
    else {
        panic!("a timing part");
    };
    assert_eq!((a.ttft_s, a.prompt_tokens), (Some(0.0581), Some(2500.0)));
    assert_eq!(a.request_id.as_deref(), Some("chatcmpl-x"));
    assert_eq!(a.detected.map(|t| t.name), Some("vllm"));
    assert_eq!(
        part(span("prefill_waiting", vec![])).map(|p| p.kind),
        Some(PartKind::Queue(20_000_000))
    );
    assert_eq!(part(span("decode_loop", vec![])), None);
}

/// The spans of an upstream fixture (`tools/otlp-fixtures/generate.py`, written the way each
/// engine builds its spans), decoded from protobuf and held as the receiver holds them.
fn upstream(name: &str) -> Vec<Part> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../otlp/tests/fixtures")
        .join(format!("{name}.bin"));
    let body = std::fs::read(&path).expect("the fixture");
    let spans = plateau_otlp::decode(&body, plateau_otlp::Encoding::Protobuf).expect("decodes");
    spans.into_iter().filter_map(part).collect()
}

fn trace(hex: &str) -> TraceId {
    let mut id = [0; 16];
    for (i, byte) in id.iter_mut().enumerate() {
        *byte = u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).expect("hex");
    }
    id
}

#[tokio::test]
async fn the_upstream_fixtures_join_with_exact_server_timings() {
    let timings = |samples: &[Sample]| -> Vec<[Option<u64>; 8]> {
        samples
            .iter()
            .map(|s| {
                let t = s.server.as_ref().expect("matched");
                let n = |v: Option<u32>| v.map(u64::from);
                [
                    t.queue_us,
                    t.ttft_us,
                    t.prefill_us,
                    t.decode_us,
                    t.e2e_us,
                    n(t.prompt_tokens),
                    n(t.cached_tokens),
                    n(t.output_tokens),
                ]
            })
            .collect()
    };
    let mut s = spans();
    s.held.extend(upstream("vllm"));
    let mut samples = vec![
        record(0, Some(trace("0af7651916cd43dd8448eb211c80319c")), true),
        record(1, Some(trace("4bf92f3577b34da6a3ce929d0e0e4736")), true),
    ];
    let join = s.join(&mut samples, None).await;
    assert_eq!((join.table, join.spans.kept), (Some("vllm"), 2));
    assert_eq!(
        timings(&samples),
        [
            [12_000, 58_100, 45_000, 900_000, 960_100, 2500, 0, 128].map(Some),
            [250_000, 753_200, 500_000, 1_250_000, 2_004_400, 50, 0, 64].map(Some),
        ]
        .map(|mut t| {
            t[6] = None; // vLLM sends no cached tokens
            t
        })
    );
    // SGLang: the root span " Req 9f86d081" holds the timings, its queue is the
    // prefill_waiting stage span (20 ms), taken off its prefill (dispatch to first token).
    s.held.extend(upstream("sglang"));
    let mut samples = vec![record(
        2,
        Some(trace("5b8aa5a2d2c872e8321cf37308d69df2")),
        true,
    )];
    let join = s.join(&mut samples, None).await;
    assert_eq!((join.table, join.spans.kept), (Some("sglang"), 1));
    assert_eq!(
        timings(&samples),
        [[20_000, 104_000, 80_000, 600_000, 704_000, 2048, 2032, 100].map(Some)]
    );
}
