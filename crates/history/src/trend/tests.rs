//! Change points on series with known truth: a step, a slow drift, flat noise.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::*;

/// `n` values around 100 with a relative spread of `noise` (uniform), seeded.
fn noisy(n: usize, noise: f64, seed: u64) -> Vec<f64> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    (0..n)
        .map(|_| 100.0 * (1.0 + noise * (rng.random::<f64>() * 2.0 - 1.0)))
        .collect()
}

#[test]
fn a_step_is_found_where_it_is() {
    let mut v = noisy(12, 0.01, 1);
    for x in &mut v[7..] {
        *x *= 1.05;
    }
    let cps = change_points(&v);
    assert_eq!(cps.len(), 1, "{cps:?}");
    assert_eq!(cps[0].at, 7);
    assert!((cps[0].shift_pct - 5.0).abs() < 1.5, "{cps:?}");
}

#[test]
fn a_one_percent_drift_over_eight_runs_is_found() {
    // Runs 5-12 (index 4..) each 1% slower than the one before: no step is above 1%.
    let mut v = noisy(12, 0.005, 2);
    for (i, x) in v.iter_mut().enumerate().skip(4) {
        *x *= 1.0 + 0.01 * (i - 3) as f64;
    }
    let cps = change_points(&v);
    assert!(!cps.is_empty(), "{v:?}");
    assert!(cps.iter().all(|c| c.at >= 4), "{cps:?}");
}

#[test]
fn flat_noise_rarely_has_a_change_point() {
    let alarms = (0..200)
        .filter(|&seed| !change_points(&noisy(12, 0.01, 1000 + seed)).is_empty())
        .count();
    eprintln!("{alarms} of 200 null series had a change point");
    // Each series is one test at 5%; splits after the first are tested only after it.
    assert!(
        alarms <= 16,
        "{alarms} of 200 null series had a change point"
    );
}
