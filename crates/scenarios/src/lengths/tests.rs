//! Per-request draws: moments and bounds over 20,000 indices, and the same length for the
//! same index at every N.

use super::*;

fn spec(json: &str) -> OutputTokens {
    serde_json::from_str(json).unwrap()
}

fn draws(l: &Lengths, n: u64) -> Vec<f64> {
    (0..n).map(|i| f64::from(l.at(i, None))).collect()
}

fn mean_sd(v: &[f64]) -> (f64, f64) {
    let n = v.len() as f64;
    let mean = v.iter().sum::<f64>() / n;
    (
        mean,
        (v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n).sqrt(),
    )
}

// The draws are pseudo-random but fixed by the seed, so these checks give the same
// numbers on every run; each tolerance is 4 standard errors of the statistic at
// n = 20,000 (a correct sampler lands inside with probability 99.99%, and then always).

#[test]
fn uniform_draws_have_the_uniform_mean_sd_and_bounds() {
    let l = Lengths::new(
        spec(r#"{"dist": "uniform", "min": 100, "max": 300}"#),
        7,
        "S",
        1,
    );
    let v = draws(&l, 20_000);
    let (mean, sd) = mean_sd(&v);
    // Discrete uniform on 201 values: mean 200, sd sqrt((201^2 - 1) / 12) = 58.02; the
    // mean's standard error is 58.02 / sqrt(20000) = 0.41.
    assert!((mean - 200.0).abs() < 1.7, "{mean}");
    assert!((sd - 58.02).abs() < 1.2, "{sd}");
    assert_eq!(v.iter().copied().fold(f64::MAX, f64::min), 100.0);
    assert_eq!(v.iter().copied().fold(0.0, f64::max), 300.0);
}

#[test]
fn normal_and_lognormal_draws_have_their_moments() {
    let l = Lengths::new(
        spec(r#"{"dist": "normal", "mean": 256, "stddev": 64}"#),
        1,
        "B1",
        1,
    );
    let (mean, sd) = mean_sd(&draws(&l, 20_000));
    // Standard error of the mean 64 / 141.4 = 0.45; of the sd about 64 / 200 = 0.32.
    assert!((mean - 256.0).abs() < 1.8, "{mean}");
    assert!((sd - 64.0).abs() < 1.3, "{sd}");
    let l = Lengths::new(
        spec(r#"{"dist": "lognormal", "median": 200, "sigma": 0.6}"#),
        1,
        "B1",
        1,
    );
    let mut v = draws(&l, 20_000);
    let (mean, _) = mean_sd(&v);
    // Mean 200 * exp(0.18) = 239.44; sd 239.44 * sqrt(exp(0.36) - 1) = 157.7, so the
    // mean's standard error is 1.12.
    assert!((mean - 239.44).abs() < 4.5, "{mean}");
    v.sort_by(f64::total_cmp);
    // The median's standard error is about 1.25 sd(ln) * median / sqrt(n) = 1.06.
    assert!((v[10_000] - 200.0).abs() < 4.5, "{}", v[10_000]);
}

#[test]
fn the_same_request_index_asks_for_the_same_length_at_every_n() {
    let l = Lengths::new(
        spec(r#"{"dist": "uniform", "min": 1, "max": 1000}"#),
        3,
        "A1",
        1,
    );
    let order = |slots: u32| -> Vec<(u64, u32)> {
        let mut out: Vec<(u64, u32)> = (0..slots)
            .flat_map(|slot| {
                let mut idx = Indices::new(slot, slots);
                (0..64 / slots).map(move |_| idx.next_index())
            })
            .map(|i| (i, l.at(i, None)))
            .collect();
        out.sort_unstable();
        out
    };
    let one = order(1);
    assert_eq!(one.len(), 64);
    assert_eq!(order(4), one);
    assert_eq!(order(16), one);
    let other_seed = Lengths::new(l.spec(), 4, "A1", 1);
    assert_ne!(
        (0..64).map(|i| other_seed.at(i, None)).collect::<Vec<_>>(),
        one.iter().map(|&(_, n)| n).collect::<Vec<_>>()
    );
}

#[test]
fn dataset_lengths_are_the_replies_with_a_fallback() {
    let l = Lengths::new(spec(r#"{"dist": "dataset", "max": 500}"#), 0, "S", 120);
    assert_eq!(l.at(0, Some(42)), 42);
    assert_eq!(l.at(1, Some(900)), 500);
    assert_eq!(l.at(2, None), 120);
    assert_eq!(median(vec![5, 1, 9, 3]), 5);
    assert_eq!(median(Vec::new()), 0);
}
