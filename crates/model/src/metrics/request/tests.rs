//! Tests of `request.rs`: every per-request metric on hand-made requests, values computed
//! by hand in the comments.

use super::*;
use crate::metrics::fixtures::{ok, sample};

/// Sent at 0; content chunks (us, tokens): (100_000, 1) (120_000, 2) (150_000, 0)
/// (180_000, 3) (200_000, 2); ends at 210_000 (after the last content chunk). n_out = 8.
fn streamed() -> Sample {
    ok(sample(
        0,
        &[
            (100_000, 1),
            (120_000, 2),
            (150_000, 0),
            (180_000, 3),
            (200_000, 2),
        ],
        210_000,
    ))
}

#[test]
fn ttft_e2e_tpot() {
    let s = streamed();
    assert_eq!(s.ttft_us(), Some(100_000)); // 100_000 - 0
    assert_eq!(s.e2e_us(), Some(200_000)); // t_last 200_000 - 0 (not t_end)
    assert_eq!(s.decode_us(), Some(100_000)); // 200_000 - 100_000
    // (200_000 - 100_000) / (8 - 1) = 14_285.714...
    assert_eq!(s.tpot_us(), Some(100_000.0 / 7.0));
}

#[test]
fn tpot_needs_two_tokens() {
    let one = ok(sample(0, &[(50, 1)], 60));
    assert_eq!(one.tpot_us(), None);
    // Two chunks but n_out says 1 (the server's count rules): still no TPOT.
    let mut two_chunks = ok(sample(0, &[(50, 1), (80, 1)], 90));
    two_chunks.n_out = Some(1);
    assert_eq!(two_chunks.tpot_us(), None);
    two_chunks.n_out = None;
    assert_eq!(two_chunks.tpot_us(), None);
    // n_out = 2: (80 - 50) / 1 = 30.
    two_chunks.n_out = Some(2);
    assert_eq!(two_chunks.tpot_us(), Some(30.0));
}

#[test]
fn itl_per_chunk_merges_zero_token_chunks() {
    // Gaps: 120_000 - 100_000 = 20_000 (2 tok); the 0-token chunk at 150_000 closes
    // nothing, so the next gap runs from 120_000: 180_000 - 120_000 = 60_000 (3 tok);
    // 200_000 - 180_000 = 20_000 (2 tok).
    let s = streamed();
    let gaps: Vec<Gap> = s.itl_gaps().collect();
    let want = [(20_000, 2), (60_000, 3), (20_000, 2)].map(|(us, tokens)| Gap { us, tokens });
    assert_eq!(gaps, want);
    let chunk: Vec<f64> = s.itl_chunk_us().collect();
    assert_eq!(chunk, [20_000.0, 60_000.0, 20_000.0]);
}

#[test]
fn itl_per_token_is_token_weighted() {
    // 20_000 / 2 twice, 60_000 / 3 three times, 20_000 / 2 twice; the first chunk's token
    // has no ITL. 7 values for 8 - 1 tokens.
    let token: Vec<f64> = streamed().itl_token_us().collect();
    assert_eq!(
        token,
        [
            10_000.0, 10_000.0, 20_000.0, 20_000.0, 20_000.0, 10_000.0, 10_000.0
        ]
    );
}

#[test]
fn zero_token_chunks_at_the_ends() {
    // A first chunk with 0 tokens still opens the first gap (it is t_first): 150 - 100 =
    // 50 over 2 tokens. A trailing 0-token chunk closes nothing.
    let s = ok(sample(0, &[(100, 0), (150, 2), (170, 0)], 200));
    assert_eq!(s.ttft_us(), Some(100));
    assert_eq!(s.itl_chunk_us().collect::<Vec<_>>(), [50.0]);
    assert_eq!(s.itl_token_us().collect::<Vec<_>>(), [25.0, 25.0]);
}

#[test]
fn user_and_generation_throughput() {
    let s = streamed();
    // 8 tokens / 0.2 s E2E = 40 tok/s; 8 tokens / (0.2 - 0.1) s = 80 tok/s.
    assert_eq!(s.user_throughput_tps(), Some(40.0));
    assert_eq!(s.generation_throughput_tps(), Some(80.0));
    // One chunk: generation throughput has no duration to divide by.
    let one = ok(sample(0, &[(250_000, 5)], 300_000));
    assert_eq!(one.user_throughput_tps(), Some(20.0)); // 5 / 0.25 s
    assert_eq!(one.generation_throughput_tps(), None);
}

#[test]
fn no_content_means_no_values() {
    let s = sample(0, &[], 500);
    assert_eq!(s.ttft_us(), None);
    assert_eq!(s.e2e_us(), None);
    assert_eq!(s.tpot_us(), None);
    assert_eq!(s.itl_gaps().count(), 0);
    assert_eq!(s.user_throughput_tps(), None);
    assert_eq!(s.generation_throughput_tps(), None);
}

#[test]
fn slo_check() {
    // streamed(): TTFT 100 ms, E2E 200 ms, TPOT 14.29 ms.
    let slo = |ttft_ms, tpot_ms, e2e_ms| SloConfig {
        ttft_ms,
        tpot_ms,
        e2e_ms,
    };
    let s = streamed();
    assert!(s.meets_slo(&slo(None, None, None)));
    assert!(s.meets_slo(&slo(Some(100.0), Some(14.3), Some(200.0))));
    assert!(!s.meets_slo(&slo(Some(99.9), None, None)));
    assert!(!s.meets_slo(&slo(None, Some(14.2), None)));
    assert!(!s.meets_slo(&slo(None, None, Some(199.9))));
    // A failed request with good timings misses.
    let failed = Sample {
        outcome: crate::sample::Outcome::Timeout,
        ..streamed()
    };
    assert!(!failed.meets_slo(&slo(None, None, None)));
    // Unknown n_out: no TPOT, and not known to be a single token: misses a TPOT SLO.
    let unknown = Sample {
        n_out: None,
        ..streamed()
    };
    assert!(!unknown.meets_slo(&slo(None, Some(1000.0), None)));
}
