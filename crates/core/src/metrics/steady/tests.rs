//! Tests of `steady.rs`: the verdict on flat, ramping, noisy, under-loaded and too-short
//! windows, and the per-second series' partial last second.

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
            reasons: vec![],
            output_tps_per_second: vec![100.0; 5],
            mean_tps: Some(100.0),
            cv: Some(0.0),
            block_s: 1,
            block_cv: Some(0.0),
            trend: Some(0.0),
            trend_p_value: Some(1.0),
        }
    );
}

#[test]
fn a_ramp_of_fifty_percent_is_not() {
    // 80 90 100 110 120 at centres 0.5 .. 4.5 s: slope 10 tok/s per s, x 5 s / mean 100
    // = +0.50. cv = sqrt((400 + 100 + 0 + 100 + 400) / 5) / 100 = 0.1414 (within 0.25).
    // The points lie on the line, so the slope's p-value is 0: significant.
    let s = judge(&[80, 90, 100, 110, 120], 5, 1.0, 1);
    assert!(!s.steady);
    assert_eq!(s.reasons, ["trend +0.50, |trend| > 0.15 (p = 0.000)"]);
    assert!((s.trend.expect("5 buckets") - 0.5).abs() < 1e-12, "{s:?}");
    assert!((s.cv.expect("mean > 0") - 200f64.sqrt() / 100.0).abs() < 1e-12);
    // The same ramp downwards.
    let s = judge(&[120, 110, 100, 90, 80], 5, 1.0, 1);
    assert_eq!(s.reasons, ["trend -0.50, |trend| > 0.15 (p = 0.000)"]);
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

#[test]
fn a_steep_but_insignificant_slope_through_noise_is_not_drift() {
    // 140 60 120 70 80 at centres 0.5 .. 4.5: mean 94, Sxy = -110, Sxx = 10, slope -11,
    // trend -11 x 5 / 94 = -0.585. Residuals about the line 121.5 - 11x: 24 -45 26 -13 8,
    // SSE 3510, se = sqrt(3510 / 3 / 10) = 10.82, t = 1.017 on 3 dof: p = 0.384.
    // cv = sqrt(4720 / 5) / 94 = 0.327: too bursty for one-second blocks, but no drift.
    let s = judge(&[140, 60, 120, 70, 80], 5, 1.0, 1);
    assert_eq!(s.reasons, ["block cv 0.33 > 0.25"]);
    assert!(
        (s.trend.expect("5 buckets") + 0.585_106).abs() < 1e-5,
        "{s:?}"
    );
    let p = s.trend_p_value.expect("5 buckets");
    assert!((p - 0.384).abs() < 0.002, "p = {p}");
    // The same spread around a real ramp is drift: 60 100 140 180 220 + noise.
    let s = judge(&[64, 95, 146, 176, 224], 5, 1.0, 1);
    assert!(!s.steady);
    assert!(
        s.reasons.iter().any(|r| r.starts_with("trend +")),
        "{:?}",
        s.reasons
    );
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
