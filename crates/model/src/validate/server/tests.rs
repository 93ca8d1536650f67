//! `server_timing_disagrees` both ways, with exact numbers: a server timing longer than
//! plateau's TTFT, plateau's TTFT percentiles outside the bounds the gap allows (the
//! unmatched requests differ), the 1 ms and 1% margins, and agreement whatever the parts'
//! percentiles do.

use crate::metrics::fixtures::{ok, sample};
use crate::metrics::{Distribution, Window};
use crate::results::summary::CellSummary;
use crate::sample::server::{ServerTiming, TimingSource};
use crate::server_timing::{ServerTimingSummary, SpanJoin};
use crate::validate::tests::summary;
use crate::validate::{Thresholds, check_cell};

/// A cell of measured requests, each `(plateau's TTFT ms, the server's ms if matched)`:
/// the server's TTFT from a span, or (`Timings`) llama.cpp's prefill.
fn cell(requests: &[(f64, Option<f64>)], source: TimingSource) -> CellSummary {
    let us = |ms: f64| (ms * 1_000.0).round() as u64;
    let samples: Vec<_> = requests
        .iter()
        .enumerate()
        .map(|(i, &(client, server))| {
            let first = 1_000 + us(client);
            let mut x = ok(sample(1_000, &[(first, 1)], first + 10));
            x.seq = i as u64;
            x.server = server.map(|ms| match source {
                TimingSource::Span => ServerTiming {
                    ttft_us: Some(us(ms)),
                    ..ServerTiming::new(source)
                },
                TimingSource::Timings => ServerTiming {
                    prefill_us: Some(us(ms)),
                    ..ServerTiming::new(source)
                },
            });
            x
        })
        .collect();
    let window = Window {
        m0_us: 0,
        m1_us: 1_000_000,
        concurrency: Some(2),
    };
    let mut s = summary();
    s.server_timing = match source {
        TimingSource::Span => Some(Box::new(ServerTimingSummary::measure_spans(
            &samples,
            &window,
            true,
            &SpanJoin::default(),
        ))),
        TimingSource::Timings => {
            ServerTimingSummary::measure(&samples, &window, true).map(Box::new)
        }
    };
    let client: Vec<f64> = requests.iter().map(|r| r.0).collect();
    s.metrics.ttft_ms = Distribution::from_values(&client);
    s
}

fn found(s: &CellSummary) -> Vec<String> {
    check_cell(s, &Thresholds::default())
        .into_iter()
        .filter(|f| f.check == "server_timing_disagrees")
        .map(|f| f.message)
        .collect()
}

const SAME: &str = "the server's timings and plateau's do not describe the same requests";

#[test]
fn a_server_prefill_longer_than_the_clients_ttft_beyond_the_margin_is_a_finding() {
    let prefill = |second: f64| {
        cell(
            &[(10.0, Some(8.0)), (5.0, Some(second))],
            TimingSource::Timings,
        )
    };
    // Gaps 2 ms and -1.5 ms: the second prefill is 1.5 ms longer than its TTFT.
    assert_eq!(
        found(&prefill(6.5)),
        [format!(
            "on 1 of 2 matched requests the server's prefill is longer than plateau's TTFT (by \
             up to 1.5 ms): {SAME} (2 of 2 measured requests matched) or do not time the same \
             events"
        )]
    );
    // -0.9 ms and -1.0 ms are within the 1 ms margin.
    assert!(found(&prefill(5.9)).is_empty());
    assert!(found(&prefill(6.0)).is_empty());
    // At TTFTs near 1 s the margin is 1% of the p50 (10 ms): -5 ms is within, -15 ms not.
    let long = |server: f64| {
        cell(
            &[(1000.0, Some(990.0)), (1000.0, Some(server))],
            TimingSource::Timings,
        )
    };
    assert!(found(&long(1005.0)).is_empty());
    assert_eq!(found(&long(1015.0)).len(), 1);
}

#[test]
fn a_client_ttft_above_what_the_largest_gap_explains_is_a_finding() {
    // Three matched requests: plateau 10 ms, the server 9 ms (gap 1 ms); a fourth,
    // unmatched, took 50 ms. Over the four, plateau's p99 is 10 + 0.97 x 40 = 48.8 ms, the
    // server's 9 ms plus the largest gap 1 ms explains 10 ms of it.
    let matched = (10.0, Some(9.0));
    let s = cell(
        &[matched, matched, matched, (50.0, None)],
        TimingSource::Span,
    );
    assert_eq!(
        found(&s),
        [format!(
            "plateau's TTFT p99 (48.8 ms) is 38.8 ms above the server's TTFT p99 (9.0 ms) plus \
             the largest gap (1.0 ms): {SAME} (3 of 4 measured requests matched) or do not \
             time the same events"
        )]
    );
}

#[test]
fn a_client_ttft_below_what_the_smallest_gap_allows_is_a_finding() {
    // Two matched requests at 10 ms (the server 9 ms, gap 1 ms), two unmatched at 2 ms:
    // plateau's p50 is 6 ms, the server's 9 ms plus the smallest gap is 10 ms.
    let matched = (10.0, Some(9.0));
    let s = cell(
        &[(2.0, None), (2.0, None), matched, matched],
        TimingSource::Span,
    );
    assert_eq!(
        found(&s),
        [format!(
            "plateau's TTFT p50 (6.0 ms) is 4.0 ms below the server's TTFT p50 (9.0 ms) plus \
             the smallest gap (1.0 ms): {SAME} (2 of 4 measured requests matched) or do not \
             time the same events"
        )]
    );
}

#[test]
fn the_margin_is_both_1_ms_and_1_percent() {
    // The p99 exceeds its bound by 0.97 x (X - base): 9.7 ms at 1,010 ms is more than 1 ms
    // but less than 1% of 1,009.7 ms; 19.4 ms at 1,020 ms is more than both.
    let tail = |base: f64, server: f64, x: f64| {
        let m = (base, Some(server));
        cell(&[m, m, m, (x, None)], TimingSource::Span)
    };
    assert!(found(&tail(1000.0, 990.0, 1010.0)).is_empty());
    assert_eq!(found(&tail(1000.0, 990.0, 1020.0)).len(), 1);
    // 0.97 ms at 11 ms is more than 1% of 10.97 ms but less than 1 ms.
    assert!(found(&tail(10.0, 9.5, 11.0)).is_empty());
    assert_eq!(found(&tail(10.0, 9.5, 12.5)).len(), 1);
}

#[test]
fn every_request_matched_always_agrees_whatever_the_parts_percentiles_do() {
    // The server's TTFT and the gap run against each other: neither p50 nor p99 of
    // plateau's TTFT is the server's plus the gap's, yet every request adds up.
    let s = cell(
        &[
            (10.0, Some(9.0)),
            (20.0, Some(5.0)),
            (30.0, Some(29.0)),
            (40.0, Some(39.0)),
            (1000.0, Some(10.0)),
        ],
        TimingSource::Span,
    );
    let st = s.server_timing.as_ref().unwrap();
    let (server, gap) = (st.ttft_ms.as_ref().unwrap(), st.gap_ms.as_ref().unwrap());
    let client = s.metrics.ttft_ms.as_ref().unwrap();
    assert!((server.p50 + gap.p50 - client.p50).abs() > 1.0);
    assert!(found(&s).is_empty());
}
