//! Tests of `throughput.rs`: direct vs derived server throughput, request and input
//! throughput, and the bucketing of token arrivals.

use super::*;
use crate::metrics::fixtures::{ok, sample, straddling, window};

const S: u64 = 1_000_000;

#[test]
fn direct_and_derived_differ_for_known_reasons() {
    let w = window(S, 3 * S, 1);
    // Derived: mean user tps of the measured R1, R2 = (40 + 20/3) / 2 = 23.333 x N = 1.
    let mean_user = (40.0 + 10.0 / 1.5) / 2.0;
    let t = Throughput::measure(&straddling(), &w, Some(mean_user));
    // Direct: tokens arriving in [1 s, 3 s]: R0's last chunk 10 (R0 is not measured, but
    // the server produced them in the window), R1 20, R2's first chunk 5 (its second
    // arrives after m1) = 35 tokens / 2 s = 17.5 tok/s. Derived is higher: it averages
    // per-request rates, so the short fast R1 weighs as much as the long slow R2, and it
    // counts R2's tokens after m1.
    assert_eq!(t.output_tokens, 35);
    assert_eq!(t.server_direct_tps, 17.5);
    assert_eq!(t.server_derived_tps, Some(mean_user));
    // Completed (ok, t_end in [1 s, 3 s]): R0 (1.2 s) and R1 (1.7 s) -> 2 / 2 s = 1 rps;
    // their prompts 10 + 10 = 20 tokens -> 10 tok/s. R2 ends after m1.
    assert_eq!(t.window_s, 2.0);
    assert_eq!(t.requests_completed, 2);
    assert_eq!(t.request_rps, 1.0);
    assert_eq!(t.input_tokens, Some(20));
    assert_eq!(t.input_tps, Some(10.0));
}

#[test]
fn direct_and_derived_agree_on_steady_identical_requests() {
    // N = 2 slots, back to back, every request 1 s long with chunks of 5 tokens at
    // +0.25 +0.5 +0.75 +1.0 s: E2E 1 s, user tps 20. Slot 1 runs 0.5 s behind slot 0.
    // Window [10.1 s, 20.1 s]: chunk times are every 0.25 s on both slots; 10.25 ..= 20.0
    // holds 40 of them per slot -> 2 x 40 x 5 = 400 tokens / 10 s = 40 = 20 x 2.
    let q = S / 4;
    let samples: Vec<Sample> = (0..25u64)
        .flat_map(|k| [k * S, k * S + S / 2])
        .map(|sent| {
            let chunks = [
                (sent + q, 5),
                (sent + 2 * q, 5),
                (sent + 3 * q, 5),
                (sent + S, 5),
            ];
            ok(sample(sent, &chunks, sent + S))
        })
        .collect();
    let w = window(10 * S + S / 10, 20 * S + S / 10, 2);
    let mean_user = samples
        .iter()
        .filter(|s| w.measures(s))
        .map(|s| s.user_throughput_tps().expect("has content"))
        .sum::<f64>()
        / 20.0;
    assert_eq!(mean_user, 20.0);
    let t = Throughput::measure(&samples, &w, Some(mean_user));
    assert_eq!(t.output_tokens, 400);
    assert_eq!(t.server_direct_tps, 40.0);
    assert_eq!(t.server_derived_tps, Some(40.0));
}

#[test]
fn failed_requests_add_neither_tokens_nor_completions() {
    // A request that broke mid-stream delivered no output a user could use.
    let w = window(0, S, 1);
    let broken = sample(0, &[(S / 2, 7)], S / 2);
    let t = Throughput::measure(&[broken], &w, None);
    assert_eq!((t.output_tokens, t.requests_completed), (0, 0));
    assert_eq!(t.server_derived_tps, None);
    assert_eq!((t.input_tokens, t.input_tps), (Some(0), Some(0.0)));
}

#[test]
fn unknown_prompt_length_leaves_input_throughput_unknown() {
    let w = window(0, S, 1);
    let mut a = ok(sample(0, &[(10, 1)], 10));
    a.n_in = None;
    let b = ok(sample(10, &[(20, 1)], 20));
    let t = Throughput::measure(&[a, b], &w, None);
    assert_eq!((t.input_tokens, t.input_tps), (None, None));
    assert_eq!(t.requests_completed, 2);
}

#[test]
fn buckets_are_half_open_but_the_span_end_is_kept() {
    // Span [100, 350] in buckets of 100: [100, 200) [200, 300) [300, 350].
    let s = ok(sample(
        0,
        &[
            (99, 1000),
            (100, 1),
            (199, 2),
            (200, 4),
            (350, 8),
            (351, 1000),
        ],
        400,
    ));
    assert_eq!(
        output_tokens_by_bucket(std::slice::from_ref(&s), 100, 350, 100),
        [3, 4, 8]
    );
    // Span [100, 300]: the arrival at exactly 300 goes into the last full bucket.
    // A failed request's tokens are not output.
    assert_eq!(
        output_tokens_by_bucket(&[sample(0, &[(150, 7)], 400)], 100, 350, 100),
        [0, 0, 0]
    );
    let s = ok(sample(0, &[(300, 5)], 400));
    assert_eq!(
        output_tokens_by_bucket(std::slice::from_ref(&s), 100, 300, 100),
        [0, 5]
    );
    assert!(output_tokens_by_bucket(std::slice::from_ref(&s), 100, 300, 0).is_empty());
    assert!(output_tokens_by_bucket(&[s], 300, 300, 100).is_empty());
}
