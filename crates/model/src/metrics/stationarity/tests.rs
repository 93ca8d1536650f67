//! The stationarity rules against hand-computed answers: MSER's truncation of a series
//! with a known warm-up, Pettitt's change point and p-value, batch means' block doubling.

use super::*;

#[test]
fn mser_drops_a_warm_up_and_keeps_a_flat_series() {
    // Ten batches of one: a two-step warm-up at 0, then eight values of 10.
    let mut x = vec![0.0, 0.0];
    x.extend([10.0; 8]);
    assert_eq!(mser(&x, 1), Some(2));
    // Flat: nothing to drop.
    assert_eq!(mser(&[5.0; 20], 1), Some(0));
    // Batches of 5 over 60 values whose first 10 are low: two batches dropped.
    let mut y = vec![1.0; 10];
    y.extend([4.0, 5.0, 6.0, 5.0].iter().cycle().take(50));
    assert_eq!(mser(&y, 5), Some(10));
    // Too few batches to judge.
    assert_eq!(mser(&[1.0; 9], 1), None);
    assert_eq!(mser(&[1.0; 45], 5), None);
}

#[test]
fn mser_never_truncates_past_half_the_batches() {
    // A series that rises all along: the minimum would be at the end; the search stops at
    // half of the 10 batches.
    let x: Vec<f64> = (0..10).map(f64::from).collect();
    assert_eq!(mser(&x, 1), Some(5));
}

#[test]
fn mser_batch_sizes() {
    // (observations, batch)
    for (n, want) in [
        (9, None),
        (10, Some(1)),
        (19, Some(1)),
        (20, Some(2)),
        (49, Some(4)),
        (50, Some(5)),
        (5000, Some(5)),
    ] {
        assert_eq!(mser_batch(n), want, "n = {n}");
    }
}

#[test]
fn pettitt_finds_a_step_and_its_levels() {
    // 10 values of 1 then 10 of 2: every pair across the split differs by one sign, so
    // K = 10 x 10 = 100 at t = 10, p = 2 exp(-6 x 100^2 / (20^3 + 20^2)) = 2 exp(-7.142857).
    let mut x = vec![1.0; 10];
    x.extend([2.0; 10]);
    let p = pettitt(&x).expect("20 values");
    assert_eq!(p.at, 10);
    assert_eq!(p.k, 100.0);
    assert!(
        (p.p - 2.0 * (-60_000.0f64 / 8_400.0).exp()).abs() < 1e-12,
        "{p:?}"
    );
    assert_eq!((p.before, p.after), (1.0, 2.0));
    // A flat series: no change anywhere, p = 1.
    let flat = pettitt(&[3.0; 12]).expect("12 values");
    assert_eq!((flat.k, flat.p), (0.0, 1.0));
    assert!(pettitt(&[1.0, 2.0]).is_none());
}

#[test]
fn pettitt_hand_computed_on_a_small_series() {
    // x = 1 3 2 5 4: U_t = sum over i <= t < j of sign(x_i - x_j):
    // t=1: sign(1-3)+sign(1-2)+sign(1-5)+sign(1-4) = -4
    // t=2: U_1 + sum_j sign(3 - x_j) = -4 + (1 + 0 + 1 - 1 - 1) = -4
    // t=3: -4 + sum_j sign(2 - x_j) = -4 + (1 - 1 + 0 - 1 - 1) = -6
    // t=4: -6 + sum_j sign(5 - x_j) = -6 + 4 = -2
    let p = pettitt(&[1.0, 3.0, 2.0, 5.0, 4.0]).expect("5 values");
    assert_eq!((p.at, p.k), (3, 6.0));
    assert_eq!((p.before, p.after), (2.0, 4.5));
}

#[test]
fn pettitt_cannot_reach_one_percent_below_sixteen_values() {
    // The strongest possible split of n values: n/2 low then n/2 high.
    let floor = |n: usize| {
        let x: Vec<f64> = (0..n).map(|i| if i < n / 2 { 0.0 } else { 1.0 }).collect();
        pettitt(&x).expect("values").p
    };
    assert!(floor(PETTITT_MIN_VALUES) < 0.01, "{}", floor(16));
    assert!(floor(PETTITT_MIN_VALUES - 1) > 0.01, "{}", floor(15));
}

#[test]
fn pettitt_blocks_keep_a_step_at_full_resolution_and_widen_for_correlation() {
    // A clean step: the residuals around the two levels are uncorrelated, so single
    // values are kept however strong the step.
    let step: Vec<f64> = (0..64)
        .map(|i| if i < 40 { 100.0 } else { 80.0 } + (i % 3) as f64)
        .collect();
    let (block, p) = pettitt_blocks(&step, 1).expect("64 values");
    assert_eq!(block, 1);
    assert!((39..=41).contains(&p.at), "{p:?}");
    // Slow waves with no change of level: the residuals stay correlated, so the blocks
    // double until 8 are left (64 / 8).
    let waves: Vec<f64> = (0..64).map(|i| ((i / 16) % 2) as f64).collect();
    let (block, _) = pettitt_blocks(&waves, 1).expect("64 values");
    assert_eq!(block, 8);
}

#[test]
fn batch_means_doubles_the_block_until_the_means_decorrelate() {
    // Runs of 8 equal values, 10 then 20: blocks of 1 (runs of 8) and 2 (runs of 4) are
    // correlated at lag 1 (0.86, 0.47); blocks of 4 come in pairs, 10 10 20 20, whose
    // lag-1 correlation is about 0.
    let x: Vec<f64> = (0..128)
        .map(|i| if (i / 8) % 2 == 0 { 10.0 } else { 20.0 })
        .collect();
    let b = batch_means(&x, 1).expect("128 values");
    assert_eq!(b.block, 4);
    assert_eq!(b.blocks, 32);
    assert!(b.lag1.expect("spread").abs() < 0.1, "{b:?}");
    assert_eq!(b.mean, 15.0);
    // 32 block means, half 10 and half 20: variance 800 / 31, t(31) = 2.0395.
    assert!(
        (b.half_width - 2.039_513 * (800.0f64 / 31.0).sqrt() / 32f64.sqrt()).abs() < 1e-4,
        "{b:?}"
    );
    // Too short for eight blocks of the first size.
    assert!(batch_means(&x[..15], 2).is_none());
}

#[test]
fn lag1_by_hand() {
    assert!((lag1(&[1.0, 2.0, 3.0, 4.0]).unwrap() - 0.25).abs() < 1e-12);
    assert_eq!(lag1(&[2.0; 5]), None);
}
