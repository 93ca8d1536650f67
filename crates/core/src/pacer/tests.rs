//! The pacer as a table: gaps of each arrival process, the ramp, and seeded repeatability.

use super::*;
use plateau_model::config::GammaArrival;

fn arrivals(rps: f64, arrival: Arrival, ramp_s: f64, seed: u64, n: usize) -> Vec<f64> {
    let mut p = Pacer::new(rps, arrival, Duration::from_secs_f64(ramp_s), seed);
    (0..n)
        .map(|_| p.next_arrival().unwrap().as_secs_f64())
        .collect()
}

fn gaps(times: &[f64]) -> Vec<f64> {
    times.windows(2).map(|w| w[1] - w[0]).collect()
}

fn mean_cv(xs: &[f64]) -> (f64, f64) {
    let n = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / n;
    let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n;
    (mean, var.sqrt() / mean)
}

#[test]
fn constant_arrivals_as_a_table() {
    // (rps, ramp s, expected instants in s)
    let rows: &[(f64, f64, &[f64])] = &[
        (4.0, 0.0, &[0.0, 0.25, 0.5, 0.75, 1.0]),
        (0.5, 0.0, &[0.0, 2.0, 4.0]),
        // Ramp 2 s at 4 req/s: Λ(t) = t² during the ramp (4 arrivals), then 4 per second.
        (
            4.0,
            2.0,
            &[0.0, 1.0, 2f64.sqrt(), 3f64.sqrt(), 2.0, 2.25, 2.5],
        ),
    ];
    for &(rps, ramp, want) in rows {
        let got = arrivals(rps, Arrival::Constant, ramp, 1, want.len());
        for (g, w) in got.iter().zip(want) {
            assert!(
                (g - w).abs() < 1e-6,
                "rps {rps} ramp {ramp}: {got:?} vs {want:?}"
            );
        }
    }
}

#[test]
fn the_schedule_is_a_pure_function_of_the_seed() {
    let a = arrivals(20.0, Arrival::Poisson, 5.0, 42, 500);
    assert_eq!(a, arrivals(20.0, Arrival::Poisson, 5.0, 42, 500));
    assert_ne!(a, arrivals(20.0, Arrival::Poisson, 5.0, 43, 500));
    assert!(a.windows(2).all(|w| w[1] >= w[0]), "instants never go back");
}

#[test]
fn poisson_gaps_are_exponential() {
    let rps = 20.0;
    let g = gaps(&arrivals(rps, Arrival::Poisson, 0.0, 7, 20_001));
    let (mean, cv) = mean_cv(&g);
    assert!((mean * rps - 1.0).abs() < 0.02, "mean gap {mean}");
    assert!((cv - 1.0).abs() < 0.03, "cv {cv}");
    // Kolmogorov-Smirnov against Exp(rps): D below the 1% critical value 1.63 / sqrt(n).
    let mut sorted = g.clone();
    sorted.sort_by(f64::total_cmp);
    let n = sorted.len() as f64;
    let d = sorted
        .iter()
        .enumerate()
        .map(|(i, &x)| {
            let cdf = 1.0 - (-rps * x).exp();
            (cdf - i as f64 / n)
                .abs()
                .max(((i + 1) as f64 / n - cdf).abs())
        })
        .fold(0.0, f64::max);
    assert!(d < 1.63 / n.sqrt(), "KS D = {d}");
}

#[test]
fn gamma_burstiness_sets_the_spread() {
    // Shape k: gap cv = 1 / sqrt(k); k = 1 is Poisson.
    for (k, want_cv) in [(0.25, 2.0), (1.0, 1.0), (4.0, 0.5)] {
        let arrival = Arrival::Gamma(GammaArrival { burstiness: k });
        let g = gaps(&arrivals(10.0, arrival, 0.0, 3, 20_001));
        let (mean, cv) = mean_cv(&g);
        assert!((mean * 10.0 - 1.0).abs() < 0.04, "k {k}: mean gap {mean}");
        assert!((cv - want_cv).abs() < 0.06 * want_cv, "k {k}: cv {cv}");
    }
}

#[test]
fn the_ramp_sends_half_the_arrivals_of_a_full_rate_fill() {
    // Over a 30 s ramp to 20 req/s, Λ(30) = 300 arrivals; none in a burst at the start.
    let a = arrivals(20.0, Arrival::Poisson, 30.0, 11, 3_000);
    let in_ramp = a.iter().filter(|&&t| t < 30.0).count();
    assert!(
        (270..=330).contains(&in_ramp),
        "{in_ramp} arrivals in the ramp"
    );
    let first_second = a.iter().filter(|&&t| t < 1.0).count();
    assert!(
        first_second <= 3,
        "{first_second} arrivals in the first second"
    );
    let held = a.iter().filter(|&&t| (30.0..90.0).contains(&t)).count();
    assert!(
        (1_100..=1_300).contains(&held),
        "{held} arrivals in 60 s at 20 req/s"
    );
}

#[test]
fn a_replay_yields_the_trace_instants_then_ends() {
    let instants: Vec<Duration> = [0, 0, 250, 1_000, 1_001]
        .iter()
        .map(|&ms| Duration::from_millis(ms))
        .collect();
    let mut p = Pacer::replay(instants.clone().into());
    let got: Vec<Option<Duration>> = (0..7).map(|_| p.next_arrival()).collect();
    let mut want: Vec<Option<Duration>> = instants.into_iter().map(Some).collect();
    want.extend([None, None]);
    assert_eq!(got, want);
}
