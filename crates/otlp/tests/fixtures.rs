//! The fixtures written by the OpenTelemetry Python SDK the way vLLM and SGLang build their
//! spans (`tools/otlp-fixtures/generate.py`) decode, in protobuf and in JSON, to exactly
//! the spans and attribute values generated.

#![allow(clippy::unwrap_used, missing_docs)]

use plateau_otlp::{Encoding, Span, Value, decode, hex};

fn fixture(name: &str) -> Vec<u8> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn both(name: &str) -> Vec<Span> {
    let proto = decode(&fixture(&format!("{name}.bin")), Encoding::Protobuf).unwrap();
    let json = decode(&fixture(&format!("{name}.json")), Encoding::Json).unwrap();
    assert_eq!(proto, json, "protobuf and JSON say the same");
    proto
}

fn f(s: &Span, key: &str) -> f64 {
    s.attr(key)
        .and_then(Value::as_f64)
        .unwrap_or_else(|| panic!("{key} in {s:?}"))
}

#[test]
fn vllm_sends_one_llm_request_span_per_request_in_the_callers_trace() {
    let spans = both("vllm");
    assert_eq!(spans.len(), 2);
    let first = &spans[0];
    assert_eq!(hex(&first.trace_id), "0af7651916cd43dd8448eb211c80319c");
    assert_eq!(
        first.parent_span_id.map(|p| hex(&p)).as_deref(),
        Some("b7ad6b7169203331")
    );
    assert_eq!(first.name, "llm_request");
    assert_eq!(first.start_unix_ns, 1_767_225_600_000_000_000);
    assert_eq!(first.duration_ns(), 960_100_000);
    assert_eq!(f(first, "gen_ai.latency.time_in_queue"), 0.012);
    assert_eq!(f(first, "gen_ai.latency.time_in_model_prefill"), 0.045);
    assert_eq!(f(first, "gen_ai.latency.time_to_first_token"), 0.0581);
    assert_eq!(f(first, "gen_ai.latency.time_in_model_decode"), 0.9);
    assert_eq!(f(first, "gen_ai.latency.e2e"), 0.9601);
    assert_eq!(
        first.attr("gen_ai.usage.prompt_tokens"),
        Some(&Value::Int(2500))
    );
    assert_eq!(
        first.attr("gen_ai.usage.completion_tokens"),
        Some(&Value::Int(128))
    );
    assert_eq!(hex(&spans[1].trace_id), "4bf92f3577b34da6a3ce929d0e0e4736");
    assert_eq!(f(&spans[1], "gen_ai.latency.time_in_queue"), 0.25);
}

#[test]
fn sglang_sends_a_root_span_with_the_timings_and_stage_spans_under_it() {
    let spans = both("sglang");
    let names: Vec<&str> = spans.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "prefill_waiting",
            "prefill_forward",
            "decode_loop",
            "Scheduler [TP 0] (host:0a1b2c3d | pid:4242)",
            " Req 9f86d081"
        ]
    );
    assert!(
        spans
            .iter()
            .all(|s| hex(&s.trace_id) == "5b8aa5a2d2c872e8321cf37308d69df2")
    );
    let root = &spans[4];
    assert_eq!(
        root.parent_span_id.map(|p| hex(&p)).as_deref(),
        Some("051581bf3cb55c13")
    );
    assert_eq!(f(root, "gen_ai.latency.time_to_first_token"), 0.104);
    assert_eq!(f(root, "gen_ai.usage.cached_tokens"), 2032.0);
    assert!(
        root.attr("gen_ai.latency.time_in_queue").is_none(),
        "SGLang sends none"
    );
    assert_eq!(
        spans[0].duration_ns(),
        20_000_000,
        "the wait for the prefill"
    );
}
