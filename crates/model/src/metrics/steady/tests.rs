//! Tests of `steady.rs`: the verdict on flat, ramping, noisy, under-loaded and too-short
//! windows, the trend judged by size below six blocks and by significance from six, and the
//! per-second series' partial last second.

use super::*;
use crate::metrics::fixtures::{ok, sample, window};

const S: u64 = 1_000_000;
const M0: u64 = 10 * S;

/// One request per second of the window, whose single chunk at mid-second carries
/// `tokens[k]` tokens: the per-second series is `tokens` itself.
fn per_second(tokens: &[u32]) -> Vec<Sample> {
    (0u64..)
        .zip(tokens)
        .map(|(k, &t)| {
            let start = M0 + k * S;
            ok(sample(start, &[(start + S / 2, t)], start + S))
        })
        .collect()
}

fn judge(tokens: &[u32], seconds: u64, mean_concurrency: f64, n: u32) -> Steady {
    Steady::judge(
        &per_second(tokens),
        &window(M0, M0 + seconds * S, n),
        mean_concurrency,
        None,
        &SteadyConfig::default(), // max_cv 0.25, max_trend 0.15, min ratio 0.95
    )
}

#[test]
fn a_flat_series_is_steady() {
    let s = judge(&[100; 5], 5, 1.0, 1);
    assert_eq!(
        s,
        Steady {
            steady: true,
            overloaded: false,
            reasons: vec![],
            output_tps_per_second: vec![100.0; 5],
            mean_tps: Some(100.0),
            cv: Some(0.0),
            block_s: 1,
            block_means_tps: vec![100.0; 5],
            block_cv: Some(0.0),
            trend: Some(0.0),
            trend_p_value: Some(1.0),
            trend_judged_by: Some(TrendTest::Size),
            warmup: vec![],
            level_shift: None,
            batch_means: None,
            ttft_p50_batch: None,
            not_judged: vec![],
        }
    );
}

#[test]
fn a_ramp_of_fifty_percent_is_not() {
    // 80 90 100 110 120 at centres 0.5 .. 4.5 s: slope 10 tok/s per s, x 5 s / mean 100
    // = +0.50. cv = sqrt((400 + 100 + 0 + 100 + 400) / 5) / 100 = 0.1414 (within 0.25).
    // Five blocks: judged by size (the points lie on the line, so p is 0 anyway).
    let s = judge(&[80, 90, 100, 110, 120], 5, 1.0, 1);
    assert!(!s.steady);
    assert_eq!(
        s.reasons,
        [
            "trend +0.50, |trend| > 0.15; judged by size: only 5 blocks (< 6), too few for a \
             significance test (p = 0.000)"
        ]
    );
    assert!((s.trend.expect("5 buckets") - 0.5).abs() < 1e-12, "{s:?}");
    assert!((s.cv.expect("mean > 0") - 200f64.sqrt() / 100.0).abs() < 1e-12);
    // The same ramp downwards.
    let s = judge(&[120, 110, 100, 90, 80], 5, 1.0, 1);
    assert!(s.reasons[0].starts_with("trend -0.50, |trend| > 0.15; judged by size"));
    // Six points on the same kind of line: judged by significance.
    let s = judge(&[75, 85, 95, 105, 115, 125], 6, 1.0, 1);
    assert_eq!(s.trend_judged_by, Some(TrendTest::Significance));
    assert_eq!(s.reasons, ["trend +0.60, |trend| > 0.15 (p = 0.000)"]);
}

/// Per-second series whose blocks of `block_s` seconds have the means `means`, judged with
/// a request lifetime of exactly `block_s` seconds (so blocks are `block_s` long).
fn judge_blocks(means: &[u32], block_s: u64) -> Steady {
    let tokens: Vec<u32> = means
        .iter()
        .flat_map(|&m| std::iter::repeat_n(m, block_s as usize))
        .collect();
    let seconds = tokens.len() as u64;
    Steady::judge(
        &per_second(&tokens),
        &window(M0, M0 + seconds * S, 1),
        1.0,
        Some(block_s as f64),
        &SteadyConfig::default(),
    )
}

/// The example: 30 s blocks in a 120 s window falling 1000, 800, 900, 700 tok/s.
/// Centres 15 45 75 105 s, mean 850: Sxy = -12000, Sxx = 4500, slope -8/3 tok/s per s,
/// trend -8/3 x 120 / 850 = -0.376. Residuals 30 -90 90 -30, SSE 18000, se = sqrt(18000 /
/// 2 / 4500) = sqrt 2, t = 1.886 on 2 dof: p = 1 - t / sqrt(2 + t^2) = 0.200, so the
/// significance test called this 30% fall steady. Block cv 111.8 / 850 = 0.13 passes.
#[test]
fn a_fall_over_four_blocks_is_judged_by_its_size() {
    let s = judge_blocks(&[1000, 800, 900, 700], 30);
    assert_eq!(s.block_s, 30);
    assert_eq!(s.block_means_tps, [1000.0, 800.0, 900.0, 700.0]);
    assert!(
        (s.trend.expect("4 blocks") + 0.376_470_6).abs() < 1e-6,
        "{s:?}"
    );
    assert!(
        (s.trend_p_value.expect("4 blocks") - 0.2).abs() < 1e-9,
        "{s:?}"
    );
    assert_eq!(s.trend_judged_by, Some(TrendTest::Size));
    assert!(!s.steady);
    assert_eq!(
        s.reasons,
        [
            "trend -0.38, |trend| > 0.15; judged by size: only 4 blocks (< 6), too few for a \
             significance test (p = 0.200)"
        ]
    );
}

/// Four blocks within a few percent of each other: a trend of +0.008, steady.
#[test]
fn four_level_blocks_are_steady() {
    let s = judge_blocks(&[1000, 960, 1010, 990], 30);
    assert_eq!(s.block_means_tps, [1000.0, 960.0, 1010.0, 990.0]);
    assert_eq!(s.trend_judged_by, Some(TrendTest::Size));
    assert!(s.trend.expect("4 blocks").abs() < 0.01, "{s:?}");
    assert!(s.steady, "{:?}", s.reasons);
}

#[test]
fn high_variation_is_not() {
    // 50 150 150 50: mean 100, std 50 -> cv 0.50; symmetric, so the trend is 0.
    let s = judge(&[50, 150, 150, 50], 4, 1.0, 1);
    assert_eq!(s.reasons, ["block cv 0.50 > 0.25"]);
    assert_eq!(
        (s.cv, s.block_cv, s.trend),
        (Some(0.5), Some(0.5), Some(0.0))
    );
}

/// From six blocks on the p-value decides: a steep slope through noise is not drift.
#[test]
fn from_six_blocks_an_insignificant_slope_is_not_drift() {
    // 20 s blocks 1100 800 1050 850 1000 800 at centres 10 .. 110 s: mean 933.3, trend
    // -0.202, p = 0.380 on 4 dof; block cv 0.13.
    let s = judge_blocks(&[1100, 800, 1050, 850, 1000, 800], 20);
    assert_eq!(s.trend_judged_by, Some(TrendTest::Significance));
    assert!(
        (s.trend.expect("6 blocks") + 0.202_04).abs() < 1e-4,
        "{s:?}"
    );
    let p = s.trend_p_value.expect("6 blocks");
    assert!((p - 0.380).abs() < 0.002, "p = {p}");
    assert!(s.steady, "{:?}", s.reasons);
    // The same spread around a real ramp is drift: 620 700 840 880 1010 1090, trend +0.66,
    // p = 5e-5.
    let s = judge_blocks(&[620, 700, 840, 880, 1010, 1090], 20);
    assert!(!s.steady);
    assert_eq!(s.reasons, ["trend +0.66, |trend| > 0.15 (p = 0.000)"]);
}

/// A cohort oscillation with a 2-second period: bursty per second, steady per lifetime.
#[test]
fn an_oscillation_is_judged_in_blocks_of_one_request_lifetime() {
    let tokens = [100, 900, 100, 900, 100, 900, 100, 900];
    let samples = per_second(&tokens);
    let w = window(M0, M0 + 8 * S, 1);
    let config = SteadyConfig::default();
    // Per second: mean 500, std 400, cv 0.8 — unsteady with one-second blocks.
    let s = Steady::judge(&samples, &w, 1.0, Some(0.8), &config);
    assert_eq!((s.block_s, s.cv), (1, Some(0.8)));
    assert_eq!(s.reasons, ["block cv 0.80 > 0.25"]);
    // A lifetime of 1.6 s: blocks of 2 s, every block mean 500: steady.
    let s = Steady::judge(&samples, &w, 1.0, Some(1.6), &config);
    assert_eq!((s.block_s, s.block_cv, s.trend), (2, Some(0.0), Some(0.0)));
    assert!(s.steady, "{:?}", s.reasons);
    // A lifetime of 3.2 s: blocks of 4 s, only two of them.
    let s = Steady::judge(&samples, &w, 1.0, Some(3.2), &config);
    assert_eq!(s.block_s, 4);
    assert_eq!(
        s.reasons,
        [
            "window too short: 2 blocks of one request lifetime (4 s, E2E p50) < 3; measure for at least 12 s"
        ]
    );
}

#[test]
fn low_concurrency_is_not() {
    let s = judge(&[100; 5], 5, 1.5, 2);
    assert_eq!(s.reasons, ["mean concurrency 1.50 < 0.95 x 2 = 1.90"]);
    // Exactly at the threshold passes.
    assert!(judge(&[100; 5], 5, 0.95 * 2.0, 2).steady);
}

#[test]
fn too_short_a_window_is_not() {
    // 2.4 s: two full seconds; the 0.4 s rest is under half a second and dropped.
    let mut samples = per_second(&[100, 100]);
    samples.push(ok(sample(
        M0 + 2 * S,
        &[(M0 + 2 * S + S / 5, 1000)],
        M0 + 3 * S,
    )));
    let s = Steady::judge(
        &samples,
        &window(M0, M0 + 2 * S + 2 * S / 5, 1),
        1.0,
        None,
        &SteadyConfig::default(),
    );
    assert_eq!(s.output_tps_per_second, [100.0, 100.0]);
    assert_eq!(s.reasons, ["window too short: 2 one-second buckets < 3"]);
    // No tokens at all: both reasons.
    let s = judge(&[], 1, 1.0, 1);
    assert_eq!(s.output_tps_per_second, [0.0]);
    assert_eq!(
        s.reasons,
        [
            "window too short: 1 one-second buckets < 3",
            "no output tokens in the window"
        ]
    );
}

#[test]
fn a_long_enough_last_second_is_scaled() {
    // 3.5 s: the last 0.5 s holds 50 tokens -> 100 tok/s.
    let mut samples = per_second(&[100, 100, 100]);
    samples.push(ok(sample(
        M0 + 3 * S,
        &[(M0 + 3 * S + S / 4, 50)],
        M0 + 4 * S,
    )));
    let s = Steady::judge(
        &samples,
        &window(M0, M0 + 3 * S + S / 2, 1),
        1.0,
        None,
        &SteadyConfig::default(),
    );
    assert_eq!(s.output_tps_per_second, [100.0; 4]);
    assert!(s.steady, "{s:?}");
}

mod rules;
