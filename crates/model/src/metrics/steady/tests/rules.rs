//! The warm-up and level-shift rules on synthetic series: a known transient left in
//! Measure, a known step, a known trend, and their false-alarm rates on stationary series
//! (independent and autocorrelated) over many seeds. The rates are printed (run with
//! `--nocapture`) and bounded here; docs/src/internals/statistics.md quotes them.

use super::super::shift;
use super::super::warmup::{self, Series, WARMUP_ALPHA};

/// splitmix64: a seeded stream of uniform and normal values for the synthetic series.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn uniform(&mut self) -> f64 {
        ((self.next() >> 11) as f64 + 0.5) / (1u64 << 53) as f64
    }

    /// Box-Muller.
    fn normal(&mut self) -> f64 {
        (-2.0 * self.uniform().ln()).sqrt() * (std::f64::consts::TAU * self.uniform()).cos()
    }

    /// `n` values of a unit-variance AR(1) process with coefficient `phi`.
    fn ar1(&mut self, n: usize, phi: f64) -> Vec<f64> {
        let scale = (1.0 - phi * phi).sqrt();
        let mut v = self.normal();
        (0..n)
            .map(|_| {
                let out = v;
                v = phi * v + scale * self.normal();
                out
            })
            .collect()
    }
}

/// A stationary throughput series: `level x (1 + cv x AR(1))`, one point per step.
fn throughput(rng: &mut Rng, n: usize, cv: f64, phi: f64) -> Vec<f64> {
    rng.ar1(n, phi)
        .into_iter()
        .map(|e| 1000.0 * (1.0 + cv * e))
        .collect()
}

/// Points one second apart from the end of Fill.
fn timed(values: &[f64], step_s: f64) -> Vec<(f64, f64)> {
    values
        .iter()
        .enumerate()
        .map(|(i, &v)| (i as f64 * step_s, v))
        .collect()
}

/// Share of `seeds` series from `make` the warm-up rule calls unsteady.
fn warmup_false_alarms(
    seeds: u64,
    series: Series,
    stabilize_s: f64,
    make: impl Fn(&mut Rng) -> Vec<(f64, f64)>,
) -> f64 {
    let hits = (0..seeds)
        .filter(|&seed| {
            let points = make(&mut Rng(seed));
            warmup::check(series, &points, stabilize_s, 0.1).is_ok_and(|w| w.unsteady)
        })
        .count();
    hits as f64 / seeds as f64
}

/// Share of `seeds` per-second series from `make` the level-shift rule calls unsteady.
fn shift_false_alarms(seeds: u64, make: impl Fn(&mut Rng) -> Vec<f64>) -> f64 {
    let hits = (0..seeds)
        .filter(|&seed| {
            let x = make(&mut Rng(seed));
            shift::check(&x, 1, 0.1).is_ok_and(|s| s.unsteady)
        })
        .count();
    hits as f64 / seeds as f64
}

const SEEDS: u64 = 2000;

/// The most a rule may call unsteady on stationary series at the default `max_shift`: the
/// worst family measured (cv 0.2 to 0.3, neighbours correlated) is near 3%; quiet series
/// stay near 0.
const MAX_FALSE_ALARMS: f64 = 0.04;

#[test]
fn warm_up_false_alarms_on_stationary_throughput() {
    // (stabilize s, measure s, cv, lag-1 correlation): the default run (1 + 9 s), a
    // minute-long cell, the examples' 60 + 120 s; quiet and bursty servers.
    for (stabilize, measure, cv, phi) in [
        (1, 9, 0.05, 0.0),
        (1, 9, 0.2, 0.5),
        (5, 60, 0.05, 0.0),
        (5, 60, 0.2, 0.5),
        (60, 120, 0.05, 0.0),
        (60, 120, 0.2, 0.5),
        (60, 120, 0.2, 0.8),
    ] {
        let rate = warmup_false_alarms(SEEDS, Series::OutputTps, f64::from(stabilize), |rng| {
            timed(
                &throughput(rng, (stabilize + measure) as usize, cv, phi),
                1.0,
            )
        });
        println!(
            "warm-up, output tokens/s, stabilize {stabilize} s + measure {measure} s, cv {cv}, \
             lag-1 {phi}: {:.2}% of {SEEDS} stationary series unsteady",
            rate * 100.0
        );
        assert!(rate <= MAX_FALSE_ALARMS, "{rate}");
    }
}

#[test]
fn warm_up_false_alarms_on_stationary_ttft() {
    // Per-request TTFT, lognormal (sigma 0.5, a p99/p50 of 3.2), independent or correlated
    // between neighbours as requests queued behind each other are; `requests` sent evenly
    // over `stabilize + measure` seconds.
    for (requests, stabilize, measure, phi) in [
        (60, 1.0, 9.0, 0.0),
        (600, 5.0, 60.0, 0.0),
        (600, 5.0, 60.0, 0.5),
        (6000, 60.0, 120.0, 0.5),
        (6000, 60.0, 120.0, 0.9),
    ] {
        let rate = warmup_false_alarms(SEEDS, Series::TtftMs, stabilize, |rng| {
            let values: Vec<f64> = rng
                .ar1(requests, phi)
                .into_iter()
                .map(|e| 50.0 * (0.5 * e).exp())
                .collect();
            timed(&values, (stabilize + measure) / requests as f64)
        });
        println!(
            "warm-up, TTFT, {requests} requests over stabilize {stabilize} s + measure {measure} s, \
             lag-1 {phi}: {:.2}% of {SEEDS} stationary series unsteady",
            rate * 100.0
        );
        assert!(rate <= MAX_FALSE_ALARMS, "{rate}");
    }
}

#[test]
fn level_shift_false_alarms_on_stationary_throughput() {
    for (measure, cv, phi) in [
        (9, 0.05, 0.0),
        (60, 0.05, 0.0),
        (60, 0.2, 0.5),
        (120, 0.2, 0.0),
        (120, 0.2, 0.5),
        (120, 0.2, 0.8),
        (600, 0.2, 0.5),
    ] {
        let rate = shift_false_alarms(SEEDS, |rng| throughput(rng, measure, cv, phi));
        println!(
            "level shift, output tokens/s, measure {measure} s, cv {cv}, lag-1 {phi}: {:.2}% of \
             {SEEDS} stationary series unsteady",
            rate * 100.0
        );
        assert!(rate <= MAX_FALSE_ALARMS, "{rate}");
    }
}

/// A throughput series that starts `deficit` below its level and recovers with time
/// constant `tau_s`, from the end of Fill, with 5% noise.
fn transient(seed: u64, seconds: usize, deficit: f64, tau_s: f64) -> Vec<(f64, f64)> {
    let noise = throughput(&mut Rng(seed), seconds, 0.05, 0.0);
    let values: Vec<f64> = noise
        .iter()
        .enumerate()
        .map(|(t, v)| v * (1.0 - deficit * (-(t as f64) / tau_s).exp()))
        .collect();
    timed(&values, 1.0)
}

#[test]
fn a_transient_left_in_measure_is_found_and_sized() {
    // 40% below at the end of Fill, recovering with a 6 s time constant (within 5% of the
    // level after 12.5 s), Stabilize 3 s, Measure 60 s.
    for seed in 0..20 {
        let points = transient(seed, 63, 0.4, 6.0);
        let w = warmup::check(Series::OutputTps, &points, 3.0, 0.1).expect("63 points");
        assert!(w.unsteady, "seed {seed}: {w:?}");
        // MSER searches up to half the series: 30 s of 63.
        assert!((8.0..=30.0).contains(&w.truncate_s), "seed {seed}: {w:?}");
        let [a, b] = w.levels.expect("truncated into Measure");
        assert!(a < 0.9 * b, "seed {seed}: {w:?}");
        assert!(w.change_s.expect("a change") > 3.0, "seed {seed}: {w:?}");
        let why = w.reason(3.0).expect("unsteady");
        assert!(
            why.starts_with("warm-up: MSER-5 on output tokens/s truncates the first "),
            "{why}"
        );
        assert!(why.contains("Pettitt p = "), "{why}");
        assert!(why.contains("s of Stabilize (it was 3 s)"), "{why}");
    }
    // The same transient with a Stabilize of 30 s: over before Measure.
    for seed in 0..20 {
        let points = transient(seed, 90, 0.4, 6.0);
        let w = warmup::check(Series::OutputTps, &points, 30.0, 0.1).expect("90 points");
        assert!(!w.unsteady, "seed {seed}: {w:?}");
    }
}

#[test]
fn too_short_a_series_is_not_judged() {
    // The default run: 1 s of Stabilize and 9 of Measure, ten one-second blocks.
    let points = transient(1, 10, 0.4, 3.0);
    let why = warmup::check(Series::OutputTps, &points, 1.0, 0.1).unwrap_err();
    assert_eq!(
        why,
        "warm-up (output tokens/s): 10 observations from the end of Fill, the check needs at least 16"
    );
    let why = shift::check(&[1000.0; 9], 1, 0.1).unwrap_err();
    assert!(
        why.starts_with("level shift: 9 one-second buckets give fewer than 16 blocks of 1 s"),
        "{why}"
    );
}

#[test]
fn a_slow_ttft_start_is_found() {
    // TTFT 300 ms falling to 50 ms over the first 10 s (queues draining after Fill), 20
    // requests a second, Stabilize 2 s, Measure 30 s.
    let mut rng = Rng(7);
    let points: Vec<(f64, f64)> = (0..640)
        .map(|i| {
            let t = i as f64 / 20.0;
            let level = 50.0 + 250.0 * (1.0 - t / 10.0).max(0.0);
            (t, level * (0.2 * rng.normal()).exp())
        })
        .collect();
    let w = warmup::check(Series::TtftMs, &points, 2.0, 0.1).expect("640 points");
    assert!(w.unsteady, "{w:?}");
    assert_eq!(w.batch, 5);
    assert!((5.0..=12.0).contains(&w.truncate_s), "{w:?}");
}

#[test]
fn a_step_inside_measure_is_found_with_its_time_and_levels() {
    // 120 s at 1000 tok/s, then 800 from 70 s on; 5% noise.
    for seed in 0..20 {
        let mut x = throughput(&mut Rng(seed), 120, 0.05, 0.0);
        for v in &mut x[70..] {
            *v *= 0.8;
        }
        let s = shift::check(&x, 1, 0.1).expect("120 blocks");
        assert!(s.unsteady, "seed {seed}: {s:?}");
        assert!(
            (s.at_s - 70.0).abs() <= 2.0 * s.block_s as f64,
            "seed {seed}: {s:?}"
        );
        assert!(
            (s.before_tps - 1000.0).abs() < 30.0 && (s.after_tps - 800.0).abs() < 30.0,
            "{s:?}"
        );
        let why = s.reason().expect("unsteady");
        assert!(why.starts_with("level shift "), "{why}");
        assert!(why.contains(" after (-"), "{why}");
    }
}

#[test]
fn a_small_step_is_reported_but_does_not_count() {
    // A 4% step is significant over 120 quiet seconds but below max_shift (10%).
    let mut x = throughput(&mut Rng(3), 120, 0.01, 0.0);
    for v in &mut x[60..] {
        *v *= 1.04;
    }
    let s = shift::check(&x, 1, 0.1).expect("120 blocks");
    assert!(s.p_value < 0.01, "{s:?}");
    assert!(!s.unsteady, "{s:?}");
}

#[test]
fn a_trend_is_left_to_the_trend_rule() {
    // +40% across 120 s: no single step. The residuals around any two levels stay
    // correlated, so the level-shift test widens its blocks until it cannot fire; the
    // trend rule (`steady.rs`, tested in `tests.rs`) is the one that calls it drift.
    let x: Vec<f64> = throughput(&mut Rng(5), 120, 0.03, 0.0)
        .into_iter()
        .enumerate()
        .map(|(t, v)| v * (0.8 + 0.4 * t as f64 / 120.0))
        .collect();
    let s = shift::check(&x, 1, 0.1).expect("120 blocks");
    assert!(s.block_s > 1, "{s:?}");
    assert!(!s.unsteady, "{s:?}");
}

#[test]
fn a_ttft_change_within_the_clients_own_lag_does_not_count() {
    // TTFT 23.7 ms for 8 s, then 20.8 ms, Stabilize 2 s: a change well past significance and
    // 14% of the later level, but 2.9 ms, which a busy client machine can add on its own.
    let mut rng = Rng(7);
    let points: Vec<(f64, f64)> = (0..640)
        .map(|i| {
            let t = i as f64 / 20.0;
            let level = if t < 8.0 { 23.7 } else { 20.8 };
            (t, level * (0.02 * rng.normal()).exp())
        })
        .collect();
    let w = warmup::check(Series::TtftMs, &points, 2.0, 0.1).expect("640 points");
    let [before, after] = w.levels.expect("MSER truncates into Measure");
    assert!(w.p_value.is_some_and(|p| p < WARMUP_ALPHA), "{w:?}");
    assert!((before - after) / after > 0.1, "{w:?}");
    assert!(!w.unsteady, "{w:?}");
}
