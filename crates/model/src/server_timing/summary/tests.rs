//! The cell summary of the server's timings: llama.cpp's timings and spans.

use super::*;
use crate::metrics::fixtures::{ok, sample};

fn ok_sample(seq: u64, t_sent_us: u64, chunks: &[(u64, u32)]) -> Sample {
    let end = chunks.last().map_or(t_sent_us, |c| c.0);
    Sample {
        seq,
        ..ok(sample(t_sent_us, chunks, end))
    }
}

fn timed(seq: u64, prefill_us: u64, first_us: u64) -> Sample {
    let mut s = ok_sample(
        seq,
        1_000_000 + seq * 10,
        &[(first_us, 1), (first_us + 500, 1)],
    );
    s.server = Some(ServerTiming {
        prefill_us: Some(prefill_us),
        decode_us: Some(400),
        prompt_tokens: Some(100),
        cached_tokens: Some(60),
        output_tokens: Some(2),
        ..ServerTiming::new(TimingSource::Timings)
    });
    s
}

fn window() -> Window {
    Window {
        m0_us: 1_000_000,
        m1_us: 2_000_000,
        concurrency: Some(2),
    }
}

#[test]
fn the_gap_is_client_ttft_from_the_send_minus_the_servers_prefill() {
    // Sent at 1_000_000, 1_000_010 and 1_000_020; first tokens 8 ms, 10 ms and 3 ms
    // later; the server's prefills 6 ms, 9 ms and 4 ms: gaps 2 ms, 1 ms and -1 ms.
    let mut samples = vec![
        timed(0, 6_000, 1_008_000),
        timed(1, 9_000, 1_010_010),
        timed(2, 4_000, 1_003_020),
    ];
    samples.push(ok_sample(3, 1_000_030, &[(1_005_000, 2)]));
    // Before Measure: not counted.
    samples.push(timed(4, 1_000, 900_000));
    samples[4].t_sent_us = 800_000;
    let s = ServerTimingSummary::measure(&samples, &window(), true).expect("a summary");
    assert_eq!((s.records, s.matched, s.unmatched_records), (4, 3, 1));
    assert_eq!(s.match_rate, Some(0.75));
    let gap = s.gap_ms.expect("gaps");
    assert_eq!((gap.min, gap.p50, gap.max), (-1.0, 1.0, 2.0));
    assert_eq!(s.negative_gaps, 1);
    let prefill = s.prefill_ms.expect("prefill");
    assert_eq!((prefill.n, prefill.min, prefill.max), (3, 4.0, 9.0));
    assert_eq!(s.decode_ms.expect("decode").p50, 0.4);
    assert_eq!(s.cached_tokens.expect("cache").mean, 60.0);
    assert_eq!(s.prompt_tokens.expect("prompt").mean, 100.0);
    assert_eq!(s.output_token_mismatches, 0);
    assert_eq!(s.unmeasured.keys().collect::<Vec<_>>(), ["queue_ms"]);
}

#[test]
fn without_streaming_there_is_no_gap_and_without_timings_no_summary() {
    let samples = vec![timed(0, 6_000, 1_008_000)];
    let s = ServerTimingSummary::measure(&samples, &window(), false).expect("a summary");
    assert_eq!(s.gap_ms, None);
    assert!(s.unmeasured.contains_key("gap_ms"));
    let plain = ok_sample(0, 1_000_000, &[(1_005_000, 1)]);
    assert_eq!(
        ServerTimingSummary::measure(&[plain], &window(), true),
        None
    );
}

#[test]
fn spans_give_queue_ttft_other_and_the_gap_to_the_servers_ttft() {
    use crate::server_timing::SpanJoin;
    // vLLM's fixture: queue 12, prefill 45, TTFT 58.1 ms; the client's TTFT 61.1 ms:
    // gap 3.0, other 1.1.
    let mut a = ok_sample(0, 1_000_000, &[(1_061_100, 1), (1_062_000, 1)]);
    a.trace_id = Some("0af7651916cd43dd8448eb211c80319c".into());
    a.server = Some(ServerTiming {
        queue_us: Some(12_000),
        ttft_us: Some(58_100),
        prefill_us: Some(45_000),
        decode_us: Some(900_000),
        e2e_us: Some(960_100),
        output_tokens: Some(2),
        ..ServerTiming::new(TimingSource::Span)
    });
    let mut b = ok_sample(1, 1_000_010, &[(1_005_000, 2)]);
    b.trace_id = Some("4bf92f3577b34da6a3ce929d0e0e4736".into());
    let c = ok_sample(2, 1_000_020, &[(1_005_000, 2)]);
    let join = SpanJoin {
        table: Some("vllm"),
        by_request_id: [0].into(),
        ..SpanJoin::default()
    };
    let s = ServerTimingSummary::measure_spans(&[a, b, c], &window(), true, &join);
    assert_eq!((s.records, s.matched, s.matched_by_request_id), (3, 1, 1));
    let reasons = s.unmatched_reasons.expect("reasons");
    assert_eq!((reasons.no_trace_id, reasons.no_span), (1, 1));
    assert_eq!(s.gap_basis, GapBasis::ServerTtft);
    let p50 = |d: Option<Distribution>| d.expect("a distribution").p50;
    assert!((p50(s.gap_ms.clone()) - 3.0).abs() < 1e-9);
    assert!((p50(s.other_ms.clone()) - 1.1).abs() < 1e-9);
    assert_eq!(p50(s.queue_ms.clone()), 12.0);
    assert_eq!(p50(s.ttft_ms.clone()), 58.1);
    assert_eq!(s.table.as_deref(), Some("vllm"));
    assert_eq!(
        s.unmeasured.get("cached_tokens").map(String::as_str),
        Some("vllm's request spans do not carry it")
    );
    // Nothing matched: still a summary, a match rate of 0.
    let none = ServerTimingSummary::measure_spans(
        &[ok_sample(3, 1_000_000, &[(1_005_000, 1)])],
        &window(),
        true,
        &join,
    );
    assert_eq!((none.matched, none.match_rate), (0, Some(0.0)));
}
