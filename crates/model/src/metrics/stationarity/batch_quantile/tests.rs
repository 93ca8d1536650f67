//! Batch quantiles against known truth: coverage of the true median over many seeded
//! series, correlated (AR(1)) and independent, beside the distribution-free interval.

use super::*;
use crate::metrics::distribution::Distribution;

/// Standard normal values from a seeded LCG (Box-Muller).
fn normals(seed: u64) -> impl FnMut() -> f64 {
    let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut uniform = move || {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((state >> 11) as f64 + 0.5) / (1u64 << 53) as f64
    };
    move || (-2.0 * uniform().ln()).sqrt() * (std::f64::consts::TAU * uniform()).cos()
}

/// `n` TTFTs, ms, from an AR(1) process around a median of 100 ms: each value keeps `phi`
/// of its predecessor's distance from 100, so every value is Normal(100, 20^2) (the
/// stationary law, the first one drawn from it too) and the true median is 100.
fn ar1(seed: u64, n: usize, phi: f64) -> Vec<f64> {
    let mut z = normals(seed);
    let innovation = 20.0 * (1.0 - phi * phi).sqrt();
    let mut x = 20.0 * z();
    (0..n)
        .map(|_| {
            let v = 100.0 + x;
            x = phi * x + innovation * z();
            v
        })
        .collect()
}

/// Shares of `seeds` series whose distribution-free and batch intervals cover 100, and
/// the batch interval's mean block size.
fn coverage(seeds: u64, n: usize, phi: f64) -> (f64, f64, f64) {
    let (mut free, mut batch, mut blocks) = (0, 0, 0);
    for seed in 1..=seeds {
        let x = ar1(seed, n, phi);
        let [low, high] = Distribution::from_values(&x).unwrap().p50_ci.unwrap();
        free += usize::from((low..=high).contains(&100.0));
        let b = batch_quantile(&x, QUANTILE_FIRST_BLOCK, 0.5).unwrap();
        batch += usize::from((b.quantile - 100.0).abs() <= b.half_width);
        blocks += b.block;
    }
    let share = |k: usize| k as f64 / seeds as f64;
    (share(free), share(batch), share(blocks))
}

#[test]
fn correlated_ttfts_defeat_the_distribution_free_interval_but_not_the_batch_one() {
    // phi = 0.9: a TTFT is correlated with its neighbours for about 19 requests
    // ((1 + phi) / (1 - phi)), as in a closed loop whose queue changes slowly.
    let (free, batch, block) = coverage(400, 4000, 0.9);
    eprintln!(
        "AR(1) 0.9, 4000 values, 400 seeds: distribution-free {free:.3}, batch {batch:.3}, mean block {block:.0}"
    );
    assert!(free < 0.60, "distribution-free covers {free}");
    assert!((0.88..=0.99).contains(&batch), "batch covers {batch}");
}

#[test]
fn moderately_correlated_ttfts_still_narrow_the_distribution_free_interval() {
    // phi = 0.5: correlated over about 3 requests.
    let (free, batch, block) = coverage(400, 2000, 0.5);
    eprintln!(
        "AR(1) 0.5, 2000 values, 400 seeds: distribution-free {free:.3}, batch {batch:.3}, mean block {block:.0}"
    );
    assert!(
        (0.70..=0.88).contains(&free),
        "distribution-free covers {free}"
    );
    assert!((0.90..=0.99).contains(&batch), "batch covers {batch}");
}

#[test]
fn independent_ttfts_are_covered_by_both() {
    let (free, batch, block) = coverage(400, 2000, 0.0);
    eprintln!(
        "independent, 2000 values, 400 seeds: distribution-free {free:.3}, batch {batch:.3}, mean block {block:.0}"
    );
    assert!(
        (0.92..=0.98).contains(&free),
        "distribution-free covers {free}"
    );
    assert!((0.90..=0.99).contains(&batch), "batch covers {batch}");
}

#[test]
fn blocks_by_hand() {
    // 128 values in runs of 16 alternating 10 and 20 (each run's median its value): blocks
    // of 16 alternate (lag 1 = -175 / 200 = -0.875), so 8 blocks of 16 stay; the quantile
    // of the whole series is 15 (half 10, half 20); half-width t(7) x sd / sqrt(8) with
    // block medians 10 20 10 20 ...: variance 8 x 25 / 7.
    let x: Vec<f64> = (0..128)
        .map(|i| if (i / 16) % 2 == 0 { 10.0 } else { 20.0 })
        .collect();
    let b = batch_quantile(&x, QUANTILE_FIRST_BLOCK, 0.5).expect("8 blocks");
    assert_eq!((b.block, b.blocks, b.quantile), (16, 8, 15.0));
    let want = 2.364_624 * (200.0f64 / 7.0).sqrt() / 8f64.sqrt();
    assert!((b.half_width - want).abs() < 1e-5, "{b:?} vs {want}");
    assert!(batch_quantile(&x[..127], QUANTILE_FIRST_BLOCK, 0.5).is_none());
    // Runs of 64: blocks of 16 are correlated (lag 1 = 125 / 200), and doubling would
    // leave 4 blocks.
    let slow: Vec<f64> = (0..128).map(|i| if i < 64 { 10.0 } else { 20.0 }).collect();
    let b = batch_quantile(&slow, QUANTILE_FIRST_BLOCK, 0.5).expect("8 blocks");
    assert_eq!(b.block, 16);
    assert_eq!(b.lag1, Some(0.625));
}
