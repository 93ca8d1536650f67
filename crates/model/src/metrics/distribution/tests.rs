//! Tests of `distribution.rs`: numpy's percentiles, moments, confidence-interval ranks,
//! small-sample flags, and properties that hold for any input.

use proptest::prelude::*;

use super::*;

/// Equal up to rounding (numpy's own results carry an ulp or two of it).
fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-12 * a.abs().max(b.abs()).max(1.0)
}

fn percentiles(d: &Distribution) -> [f64; 5] {
    [d.p50, d.p90, d.p95, d.p99, d.p999]
}

fn assert_all_close(got: [f64; 5], want: [f64; 5]) {
    for (g, w) in got.iter().zip(want) {
        assert!(close(*g, w), "got {got:?}, want {want:?}");
    }
}

#[test]
fn percentiles_and_moments_match_numpy() {
    // x = np.array([40, 15, 50, 20, 35.])
    // np.percentile(x, [50, 90, 95, 99, 99.9]) -> [35.0, 46.0, 48.0, 49.6, 49.96000000000001]
    // By hand: sorted [15 20 35 40 50], p90: h = 4 * 0.9 = 3.6 -> 40 + 0.6 * (50 - 40) = 46.
    // x.mean() -> 32.0; x.std() -> 12.884098726725126 = sqrt((64+289+324+144+9) / 5).
    let d = Distribution::from_values(&[40.0, 15.0, 50.0, 20.0, 35.0]).expect("non-empty");
    assert_all_close(percentiles(&d), [35.0, 46.0, 48.0, 49.6, 49.96]);
    assert_eq!((d.n, d.min, d.max, d.mean), (5, 15.0, 50.0, 32.0));
    assert!(close(d.std, 166f64.sqrt()), "{}", d.std);

    // y = np.array([3., 1, 4, 1, 5, 9, 2, 6])
    // np.percentile(y, [50, 90, 95, 99, 99.9])
    //   -> [3.5, 6.8999999999999995, 7.949999999999998, 8.79, 8.979000000000001]
    // y.mean() -> 3.875; y.std() -> 2.5708704751503917
    let d = Distribution::from_values(&[3.0, 1.0, 4.0, 1.0, 5.0, 9.0, 2.0, 6.0]).expect("some");
    assert_all_close(percentiles(&d), [3.5, 6.9, 7.95, 8.79, 8.979]);
    assert_eq!(d.mean, 3.875);
    assert!(close(d.std, 2.5708704751503917), "{}", d.std);
}

#[test]
fn p999_on_small_samples() {
    // np.percentile([1., 2.], 99.9) -> 1.999 (h = 0.999)
    let d = Distribution::from_values(&[2.0, 1.0]).expect("non-empty");
    assert!(close(d.p999, 1.999), "{}", d.p999);
    // np.percentile([7.], [50, 99.9]) -> [7.0, 7.0]; np.std([7.]) -> 0.0
    let d = Distribution::from_values(&[7.0]).expect("non-empty");
    assert_eq!(percentiles(&d), [7.0; 5]);
    assert_eq!((d.std, d.p50_ci, d.p99_ci), (0.0, None, None));
}

#[test]
fn nothing_to_summarize() {
    assert_eq!(Distribution::from_values(&[]), None);
    assert_eq!(percentile(&[], 0.5), None);
}

#[test]
fn ci_ranks_match_the_textbook() {
    // The classic table value: n = 100, median -> ranks 40 and 61
    // (P(B <= 39) = 0.0176 <= 0.025 < P(B <= 40) = 0.0284, B ~ Bin(100, 0.5)).
    // Other rows checked with exact binomial sums in rational arithmetic.
    // (n, q, ranks)
    type Row = (u64, f64, Option<(u64, u64)>);
    let rows: &[Row] = &[
        (100, 0.5, Some((40, 61))),
        (20, 0.5, Some((6, 15))),
        (6, 0.5, Some((1, 6))), // P(B = 0) = 1/64 <= 0.025
        (5, 0.5, None),         // P(B = 0) = 1/32 > 0.025
        (1000, 0.99, Some((983, 997))),
        (368, 0.99, Some((360, 368))), // 0.99^368 = 0.0247 <= 0.025
        (367, 0.99, None),             // 0.99^367 = 0.0250 > 0.025
        (50, 0.99, None),
        (0, 0.5, None),
    ];
    for &(n, q, want) in rows {
        assert_eq!(quantile_ci_ranks(n, q), want, "n={n} q={q}");
    }
}

#[test]
fn ci_values_are_order_statistics() {
    // 1..=100: x(40) = 40, x(61) = 61.
    let values: Vec<f64> = (1..=100).map(f64::from).collect();
    let d = Distribution::from_values(&values).expect("non-empty");
    assert_eq!(d.p50, 50.5); // np.percentile(np.arange(1, 101), 50) -> 50.5
    assert_eq!(d.p50_ci, Some([40.0, 61.0]));
    assert_eq!(d.p99_ci, None); // n = 100 < 368
    let d = Distribution::from_values(&values[..50]).expect("non-empty");
    assert_eq!(d.p99_ci, None);
}

#[test]
fn small_sample_flags_at_the_thresholds() {
    // A percentile q is flagged when n (1 - q) < 10.
    let rows: &[(u32, &[&str])] = &[
        (19, &["p50", "p90", "p95", "p99", "p99.9"]),
        (20, &["p90", "p95", "p99", "p99.9"]),
        (99, &["p90", "p95", "p99", "p99.9"]),
        (100, &["p95", "p99", "p99.9"]),
        (199, &["p95", "p99", "p99.9"]),
        (200, &["p99", "p99.9"]),
        (999, &["p99", "p99.9"]),
        (1000, &["p99.9"]),
        (9999, &["p99.9"]),
        (10000, &[]),
    ];
    for &(n, want) in rows {
        let values: Vec<f64> = (0..n).map(f64::from).collect();
        let d = Distribution::from_values(&values).expect("non-empty");
        assert_eq!(d.small_sample.iter().collect::<Vec<_>>(), want, "n={n}");
    }
}

#[test]
fn jitter_is_p99_over_p50() {
    // [1, 1, 1, 1, 5]: p50 = 1, p99 = h 3.96 -> 1 + 0.96 * 4 = 4.84.
    let d = Distribution::from_values(&[1.0, 1.0, 5.0, 1.0, 1.0]).expect("non-empty");
    assert!(close(d.p99_over_p50().expect("p50 > 0"), 4.84));
    let d = Distribution::from_values(&[0.0, 0.0, 3.0]).expect("non-empty");
    assert_eq!(d.p99_over_p50(), None);
}

proptest! {
    #[test]
    fn percentiles_are_ordered_and_bracketed(
        values in prop_oneof![
            prop::collection::vec(-1e9f64..1e9, 1..600),
            // Many ties.
            prop::collection::vec((0u8..4).prop_map(f64::from), 1..600),
        ]
    ) {
        let d = Distribution::from_values(&values).expect("non-empty");
        let chain = [d.min, d.p50, d.p90, d.p95, d.p99, d.p999, d.max];
        for pair in chain.windows(2) {
            prop_assert!(pair[0] <= pair[1], "{chain:?}");
        }
        prop_assert!(d.min <= d.mean && d.mean <= d.max);
        prop_assert!(d.std >= 0.0);
        for (ci, p) in [(d.p50_ci, d.p50), (d.p99_ci, d.p99)] {
            if let Some([low, high]) = ci {
                prop_assert!(low <= p && p <= high, "{low} <= {p} <= {high}");
            }
        }
        prop_assert_eq!(d.p50_ci.is_some(), values.len() >= 6);
        prop_assert_eq!(d.p99_ci.is_some(), values.len() >= 368);
    }
}
