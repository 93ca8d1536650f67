//! End-to-end tests of [`summarize`]: which requests are measured at the window's edges,
//! how failures are counted, and the JSON shape of [`Metrics`].

use std::collections::BTreeMap;

use super::*;
use crate::metrics::fixtures::{ok, sample, straddling, window};
use crate::sample::Outcome;

const S: u64 = 1_000_000;

/// [`straddling`] (R0 before m0, R1, R2 ending in Drain; window [1 s, 3 s], N = 1) plus a
/// measured request that timed out at 2.0-2.1 s without content, and padding sent at
/// 3.3 s and cancelled at 3.4 s.
fn cell() -> Vec<Sample> {
    let mut samples = straddling();
    samples.push(Sample {
        outcome: Outcome::Timeout,
        ..sample(2 * S, &[], 2 * S + S / 10)
    });
    samples.push(Sample {
        outcome: Outcome::Cancelled,
        ..sample(3 * S + 3 * S / 10, &[], 3 * S + 4 * S / 10)
    });
    samples
}

fn summary(slo: Option<&SloConfig>) -> Metrics {
    let steady = SteadyConfig::default();
    summarize(
        &cell(),
        &window(S, 3 * S, 1),
        &Options {
            slo,
            steady: &steady,
            stream: true,
            target_rps: None,
            fill_end_us: None,
        },
    )
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0)
}

#[test]
fn window_edges_choose_the_measured_requests() {
    let m = summary(None);
    // R0 started before m0: not measured. R1 and R2 started in the window: measured, R2
    // although it ends in Drain. The timeout is measured but never a zero in an average.
    assert_eq!(
        m.requests,
        RequestCounts {
            total: 5,
            measured: 3,
            measured_ok: 2,
            measured_errors: 1,
            measured_errors_by_kind: BTreeMap::from([("timeout".to_owned(), 1)]),
            errors_by_kind: BTreeMap::from([("timeout".to_owned(), 1)]),
            cancelled: 1,
            error_rate: Some(1.0 / 3.0),
            // The timeout held the one slot for 0.1 s of the 2 s window.
            error_time_fraction: Some(0.05),
            rejected: 0,
        }
    );
    // TTFT: R1 1.4 - 1.2 = 200 ms, R2 2.2 - 1.7 = 500 ms.
    let ttft = m.ttft_ms.expect("two measured successes");
    assert_eq!(
        (ttft.n, ttft.min, ttft.max, ttft.mean),
        (2, 200.0, 500.0, 350.0)
    );
    // E2E: R1 500 ms, R2 3.2 - 1.7 = 1500 ms.
    let e2e = m.e2e_ms.expect("two");
    assert_eq!((e2e.min, e2e.max), (500.0, 1500.0));
    // TPOT: R1 300 ms / 19, R2 1000 ms / 9.
    let tpot = m.tpot_ms.expect("two");
    assert!(
        close(tpot.min, 300.0 / 19.0) && close(tpot.max, 1000.0 / 9.0),
        "{tpot:?}"
    );
    // ITL per chunk: R1 300 ms, R2 1000 ms. Per token: 30 ms x 10 (R1), 200 ms x 5 (R2).
    let chunk = m.itl_chunk_ms.expect("two gaps");
    assert_eq!((chunk.n, chunk.min, chunk.max), (2, 300.0, 1000.0));
    let token = m.itl_token_ms.expect("15 tokens");
    assert_eq!((token.n, token.p50, token.max), (15, 30.0, 200.0));
    // Jitter per token: p99 h = 14 * 0.99 = 13.86 -> 200; p50 30 -> 6.667.
    assert!(close(m.jitter.token.expect("p50 > 0"), 200.0 / 30.0));
    // User throughput 40 and 6.667 tok/s; derived server throughput = mean x 1.
    let user = m.user_throughput_tps.expect("two");
    assert!(close(user.mean, (40.0 + 10.0 / 1.5) / 2.0));
    assert_eq!(m.throughput.server_derived_tps, Some(user.mean));
    // Direct: 10 (R0) + 20 (R1) + 5 (R2) tokens arriving in [1 s, 3 s] over 2 s.
    assert_eq!(m.throughput.server_direct_tps, 17.5);
    assert_eq!(m.output_tokens.expect("two").mean, 15.0); // (20 + 10) / 2
    // Concurrency over [1 s, 3 s): 1 throughout, 2 while the timeout ran (0.1 s):
    // (1.9 x 1 + 0.1 x 2) / 2 = 1.05.
    assert!(close(m.concurrency.mean, 1.05), "{:?}", m.concurrency);
    assert_eq!((m.concurrency.min, m.concurrency.max), (1, 2));
    assert_eq!(m.concurrency.at_target_fraction, Some(1.0));
    // Series: [1 s, 2 s) 10 + 20 = 30 tok/s, [2 s, 3 s] 5 tok/s. Mean 17.5, std 12.5, cv
    // 0.71; slope -25 tok/s per s x 2 s / 17.5 = -2.86. And only two buckets.
    assert!(!m.steady.steady);
    assert_eq!(m.steady.output_tps_per_second, [30.0, 5.0]);
    assert_eq!(
        m.steady.reasons,
        [
            "window too short: 2 one-second buckets < 3",
            "block cv 0.71 > 0.25",
            "trend -2.86, |trend| > 0.15; judged by size: only 2 blocks (< 6), too few for a \
             significance test (p = n/a)"
        ]
    );
    assert_eq!(m.goodput, None);
}

#[test]
fn goodput_counts_failures_as_misses() {
    // TTFT <= 300 ms: R1 (200 ms) is good; R2 (500 ms) and the timeout miss.
    let slo = SloConfig {
        ttft_ms: Some(300.0),
        ..SloConfig::default()
    };
    let g = summary(Some(&slo)).goodput.expect("an SLO is set");
    assert_eq!((g.good, g.total, g.rate_rps), (1, 3, 0.5));
    assert!(close(g.fraction.expect("measured requests"), 1.0 / 3.0));
}

#[test]
fn no_measured_success_means_no_distributions() {
    let steady = SteadyConfig::default();
    let failed = sample(S, &[(S + 10, 3)], S + 20); // outcome Stream
    let m = summarize(
        &[failed],
        &window(S, 2 * S, 1),
        &Options {
            slo: None,
            steady: &steady,
            stream: true,
            target_rps: None,
            fill_end_us: None,
        },
    );
    assert_eq!(m.ttft_ms, None);
    assert_eq!(m.user_throughput_tps, None);
    assert_eq!(
        m.jitter,
        Jitter {
            chunk: None,
            token: None
        }
    );
    assert_eq!(m.throughput.server_derived_tps, None);
    // Its tokens arrived in the window, but a failed request's tokens are not output.
    assert_eq!(m.throughput.output_tokens, 0);
}

#[test]
fn json_names_units_and_matches_its_schema() {
    let slo = SloConfig {
        ttft_ms: Some(300.0),
        ..SloConfig::default()
    };
    let mut samples = cell();
    samples.push(ok(sample(2 * S, &[(2 * S + 5, 1)], 2 * S + 5)));
    let steady = SteadyConfig::default();
    let m = summarize(
        &samples,
        &window(S, 3 * S, 1),
        &Options {
            slo: Some(&slo),
            steady: &steady,
            stream: true,
            target_rps: None,
            fill_end_us: None,
        },
    );
    let json = serde_json::to_value(&m).expect("serializes");
    for key in [
        "ttft_ms",
        "e2e_ms",
        "tpot_ms",
        "itl_chunk_ms",
        "itl_token_ms",
        "user_throughput_tps",
        "generation_throughput_tps",
    ] {
        assert!(json[key].is_object(), "{key} in {json}");
    }
    for key in [
        "server_direct_tps",
        "server_derived_tps",
        "request_rps",
        "input_tps",
    ] {
        assert!(json["throughput"][key].is_number(), "{key} in {json}");
    }
    let back: Metrics = serde_json::from_value(json.clone()).expect("deserializes");
    assert_eq!(back, m);
    let schema = serde_json::to_value(schemars::schema_for!(Metrics)).expect("schema");
    let validator = jsonschema::validator_for(&schema).expect("valid schema");
    assert!(validator.is_valid(&json), "{json}");
}
