//! The interval rule by hand, and its promise checked over many random sets of
//! differences: significant exactly when the interval excludes 0, exactly when the
//! adjusted p-value is below ALPHA.

#![allow(clippy::unwrap_used)]

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::*;

#[test]
fn an_interval_by_hand() {
    // 1000 differences 1..=1000 in a family of 1: k = ceil(1000 x 0.05 / 2) - 1 = 24, so
    // the interval is the 25th and the 976th values; none at or below 0: p = 0.
    let mut d: Vec<f64> = (1..=1000).map(f64::from).collect();
    let iv = interval(&mut d, 1).unwrap();
    assert_eq!(iv.ci, [25.0, 976.0]);
    assert_eq!(
        (iv.level, iv.p, iv.p_adjusted, iv.significant),
        (0.95, 0.0, 0.0, true)
    );
    // Shifted so that 30 are at or below 0: p = 0.06, and the low end (the 25th) is -5.
    let mut d: Vec<f64> = (1..=1000).map(|v| f64::from(v) - 30.0).collect();
    let iv = interval(&mut d, 1).unwrap();
    assert_eq!(iv.ci[0], -5.0);
    assert!((iv.p - 0.06).abs() < 1e-12);
    assert!(!iv.significant);
    // A family of 5: k = ceil(1000 x 0.01 / 2) - 1 = 4; 3 at or below 0 still rejects.
    let mut d: Vec<f64> = (1..=1000).map(|v| f64::from(v) - 3.0).collect();
    let iv = interval(&mut d, 5).unwrap();
    assert_eq!(iv.ci, [2.0, 993.0]);
    assert!((iv.level - 0.99).abs() < 1e-12);
    assert!((iv.p_adjusted - 0.03).abs() < 1e-12, "{iv:?}");
    assert!(iv.significant);
    assert!(interval(&mut [], 3).is_none());
}

#[test]
fn the_verdict_the_interval_and_the_p_value_always_agree() {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    for case in 0..20_000 {
        let r = rng.random_range(1..400);
        let m = rng.random_range(1..20);
        let shift = rng.random_range(-3.0..3.0);
        // Some sets with ties at exactly 0.
        let mut d: Vec<f64> = (0..r)
            .map(|_| {
                let v: f64 = rng.random_range(-1.0..1.0) + shift;
                if rng.random_range(0..10) == 0 { 0.0 } else { v }
            })
            .collect();
        let iv = interval(&mut d, m).unwrap();
        let excludes = iv.ci[0] > 0.0 || iv.ci[1] < 0.0;
        assert_eq!(iv.significant, excludes, "case {case}: {iv:?}");
        assert_eq!(iv.significant, iv.p_adjusted < ALPHA, "case {case}: {iv:?}");
    }
}
