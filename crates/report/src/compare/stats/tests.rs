//! The statistics against hand-computed values (each worked out in the comment above it).

#![allow(clippy::unwrap_used)]

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::*;

fn close(got: f64, want: f64, tol: f64) {
    assert!((got - want).abs() <= tol, "got {got}, want {want} ± {tol}");
}

/// a = [1 2 3], b = [4 5 6]: every b is larger, U_a = 0; mean 4.5, variance 3·3/12·7 =
/// 5.25, z = (4.5 - 0.5) / 2.2913 = 1.7457, p = 2 (1 - Φ(1.7457)) = 0.080856 (scipy's
/// asymptotic mannwhitneyu gives the same).
#[test]
fn mann_whitney_of_separated_samples() {
    let (u, p) = mann_whitney(&[1.0, 2.0, 3.0], &[4.0, 5.0, 6.0]).unwrap();
    assert_eq!(u, 0.0);
    close(p, 0.080_856, 1e-5);
    let (u, p2) = mann_whitney(&[4.0, 5.0, 6.0], &[1.0, 2.0, 3.0]).unwrap();
    assert_eq!(u, 9.0);
    close(p2, p, 1e-12);
}

/// a = [1 2 2 3], b = [2 3 4 5]. Ranks of the pooled sample: 1 -> 1, the three 2s -> 3,
/// the two 3s -> 5.5, 4 -> 7, 5 -> 8; R_a = 1 + 3 + 3 + 5.5 = 12.5, U_a = 12.5 - 10 =
/// 2.5. Ties: (27 - 3) + (8 - 2) = 30; variance 16/12 (9 - 30/56) = 11.2857; z = (|2.5 -
/// 8| - 0.5) / 3.3594 = 1.4884, p = 0.136658.
#[test]
fn mann_whitney_with_ties() {
    let (u, p) = mann_whitney(&[1.0, 2.0, 2.0, 3.0], &[2.0, 3.0, 4.0, 5.0]).unwrap();
    assert_eq!(u, 2.5);
    close(p, 0.136_658, 1e-5);
}

#[test]
fn mann_whitney_of_identical_samples_is_not_significant() {
    let (u, p) = mann_whitney(&[7.0; 20], &[7.0; 30]).unwrap();
    assert_eq!(u, 300.0);
    assert_eq!(p, 1.0);
    let same: Vec<f64> = (0..50).map(f64::from).collect();
    let (_, p) = mann_whitney(&same, &same).unwrap();
    assert_eq!(p, 1.0);
    assert_eq!(mann_whitney(&[], &[1.0]), None);
}

/// a = 1..5 (mean 3, var 2.5), b = 2,4,..,10 (mean 6, var 10): se = sqrt(0.5 + 2) =
/// 1.5811, t = 1.8974, df = 6.25 / (0.25/4 + 4/4) = 5.8824, p = 0.107531 (integrated
/// numerically from the t density).
#[test]
fn welch_by_hand() {
    let t = welch(&[1.0, 2.0, 3.0, 4.0, 5.0], &[2.0, 4.0, 6.0, 8.0, 10.0]).unwrap();
    assert_eq!(t.diff, 3.0);
    close(t.p, 0.107_531, 1e-4);
    // The interval is symmetric around the difference and contains 0 exactly when p > 0.05.
    close(t.ci[0] + t.ci[1], 6.0, 1e-9);
    assert!(t.ci[0] < 0.0 && t.ci[1] > 3.0, "{:?}", t.ci);
    assert_eq!(welch(&[1.0], &[1.0, 2.0]), None);
    let flat = welch(&[2.0, 2.0], &[2.0, 2.0, 2.0]).unwrap();
    assert_eq!((flat.diff, flat.p), (0.0, 1.0));
}

/// 5/100 vs 15/100: pooled 0.1, se0 = sqrt(0.09 · 0.02) = 0.042426, z = 2.357, p =
/// 0.018422; Wald se = sqrt(0.0475/100 + 0.1275/100) = 0.041833, CI 0.1 ± 0.081991.
#[test]
fn proportions_by_hand() {
    let t = proportions(5, 100, 15, 100).unwrap();
    close(t.diff, 0.1, 1e-12);
    close(t.p, 0.018_422, 1e-5);
    close(t.ci[0], 0.1 - 0.081_991, 1e-5);
    close(t.ci[1], 0.1 + 0.081_991, 1e-5);
    assert_eq!(proportions(0, 50, 0, 70).unwrap().p, 1.0);
    assert_eq!(proportions(1, 0, 0, 1), None);
}

/// Holm on (0.01, 0.04, 0.03, absent): sorted 0.01 · 3 = 0.03, 0.03 · 2 = 0.06, 0.04 · 1 =
/// 0.04 -> raised to the running maximum 0.06.
#[test]
fn holm_by_hand() {
    let adj = holm(&[Some(0.01), Some(0.04), Some(0.03), None]);
    let got: Vec<f64> = adj.iter().flatten().copied().collect();
    assert_eq!(adj[3], None);
    close(got[0], 0.03, 1e-12);
    close(got[1], 0.06, 1e-12);
    close(got[2], 0.06, 1e-12);
    assert_eq!(holm(&[Some(0.9), Some(0.8)]), vec![Some(1.0), Some(1.0)]);
}

/// The bootstrap is a pure function of its seed, and constant samples leave nothing to
/// resample: the interval is the exact difference.
#[test]
fn bootstrap_is_deterministic() {
    let a: Vec<f64> = (0..200).map(|i| f64::from(i % 37)).collect();
    let b: Vec<f64> = (0..150).map(|i| f64::from(i % 41) + 3.0).collect();
    let one = bootstrap_percentile_diff(&a, &b, 0.99, 1000, 7).unwrap();
    assert_eq!(
        bootstrap_percentile_diff(&a, &b, 0.99, 1000, 7).unwrap(),
        one
    );
    assert_ne!(
        bootstrap_percentile_diff(&a, &b, 0.99, 1000, 8).unwrap(),
        one
    );
    assert_eq!(
        bootstrap_percentile_diff(&[5.0; 40], &[8.0; 60], 0.5, 100, 1).unwrap(),
        [3.0, 3.0]
    );
    assert_eq!(bootstrap_percentile_diff(&[], &b, 0.5, 100, 1), None);
}

/// Uniform(0, 100) against Uniform(10, 110), 2,000 draws each: the true p50 and p99
/// differences are exactly 10. The intervals contain 10 and exclude 0; the interval of a
/// sample against itself contains 0.
#[test]
fn bootstrap_interval_contains_the_true_difference() {
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let a: Vec<f64> = (0..2000).map(|_| rng.random_range(0.0..100.0)).collect();
    let b: Vec<f64> = (0..2000).map(|_| rng.random_range(10.0..110.0)).collect();
    for q in [0.5, 0.99] {
        let [lo, hi] = bootstrap_percentile_diff(&a, &b, q, 1000, 42).unwrap();
        assert!(lo < 10.0 && 10.0 < hi && lo > 0.0, "q {q}: [{lo}, {hi}]");
    }
    let [lo, hi] = bootstrap_percentile_diff(&a, &a, 0.5, 1000, 42).unwrap();
    assert!(lo < 0.0 && 0.0 < hi, "[{lo}, {hi}]");
}

#[test]
fn select_percentile_matches_the_core_percentile() {
    let mut rng = ChaCha8Rng::seed_from_u64(9);
    let mut v: Vec<f64> = (0..101).map(|_| rng.random_range(0.0..1.0)).collect();
    let mut sorted = v.clone();
    sorted.sort_by(f64::total_cmp);
    for q in [0.0, 0.5, 0.9, 0.99, 0.999, 1.0] {
        assert_eq!(
            select_percentile(&mut v, q),
            percentile(&sorted, q).unwrap()
        );
    }
}
