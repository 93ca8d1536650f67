//! Energy per token from samples with known power and tokens, against the hand computation.

use super::*;
use crate::phase::DrainSource;

fn bounds() -> PhaseBounds {
    // Fill 0-2 s, Stabilize 2-4 s, Measure 4-14 s, Drain 14-15 s.
    PhaseBounds {
        fill_s: 2.0,
        stabilize_s: 2.0,
        measure_s: 10.0,
        drain_max_s: 30.0,
        drain_limit: DrainSource::default(),
        m0_us: 4_000_000,
        m1_us: 14_000_000,
        drain_end_us: 15_000_000,
        end_us: 15_000_000,
        drain_timed_out: false,
        phase_end: None,
    }
}

fn throughput(output_tokens: u64, requests: u64) -> Throughput {
    Throughput {
        window_s: 10.0,
        output_tokens,
        server_direct_tps: output_tokens as f64 / 10.0,
        server_derived_tps: None,
        requests_completed: requests,
        request_rps: requests as f64 / 10.0,
        input_tokens: None,
        input_tps: None,
    }
}

/// Two GPUs sampled every 0.5 s from 0 to 15 s: GPU a at 300 W, GPU b at 200 W, their
/// counters (when `counter`) growing at exactly that rate from 1e6 J and 2e6 J.
fn samples(counter: bool) -> Vec<GpuSample> {
    (0..=30u32)
        .map(|i| {
            let t_s = f64::from(i) * 0.5;
            let gpu = |id: &str, w: f64, base: f64| GpuReading {
                power_w: Some(w),
                energy_j: counter.then_some(base + w * t_s),
                util_pct: Some(90.0),
                memory_used_mib: Some(1000.0),
                ..GpuReading::new(id)
            };
            GpuSample {
                t_us: u64::from(i) * 500_000,
                gpus: vec![gpu("a", 300.0, 1e6), gpu("b", 200.0, 2e6)],
            }
        })
        .collect()
}

#[test]
fn energy_per_token_is_measures_energy_over_measures_tokens() {
    // Measure is 10 s at 500 W: 5000 J. 20,000 tokens and 400 requests arrived in it:
    // 0.25 J per token, 4 tokens per J, 12.5 J per request; 2,000 tok/s over 2 GPUs.
    for counter in [true, false] {
        let ctx = Context {
            bounds: &bounds(),
            throughput: &throughput(20_000, 400),
            failed: 0,
            interval_ms: 500,
        };
        let g = GpuMetrics::measure(&samples(counter), vec!["nvidia-smi".into()], ctx);
        let m = &g.measure;
        let source = if counter {
            EnergySource::Counter
        } else {
            EnergySource::PowerIntegral
        };
        assert_eq!(m.energy_source, Some(source));
        assert!((m.energy_j.unwrap() - 5000.0).abs() < 1e-6, "{m:?}");
        assert_eq!(m.covered_s, Some(10.0));
        assert!((g.joules_per_output_token.unwrap() - 0.25).abs() < 1e-12);
        assert!((g.output_tokens_per_joule.unwrap() - 4.0).abs() < 1e-9);
        assert!((g.joules_per_request.unwrap() - 12.5).abs() < 1e-9);
        assert_eq!(g.output_tps_per_gpu, Some(1000.0));
        assert_eq!(
            m.power_w,
            Some(Gauge {
                mean: 500.0,
                max: 500.0
            })
        );
        assert_eq!(m.samples, 20, "4.0, 4.5, ... 13.5 s");
        assert_eq!(m.memory_used_mib.map(|g| g.mean), Some(2000.0));
        assert_eq!(g.gpus.len(), 2);
    }
}

#[test]
fn a_window_between_samples_is_interpolated_and_an_uncovered_one_clipped() {
    let s = samples(false);
    // 4.25 s to 5.25 s: one second at 500 W, its ends between samples.
    let p = phase(
        &s,
        Span {
            from_us: 4_250_000,
            to_us: 5_250_000,
        },
    );
    assert!((p.energy_j.unwrap() - 500.0).abs() < 1e-9);
    // 14 s to 20 s: the samples end at 15 s, so one second is covered.
    let p = phase(
        &s,
        Span {
            from_us: 14_000_000,
            to_us: 20_000_000,
        },
    );
    assert_eq!(p.covered_s, Some(1.0));
    assert!((p.energy_j.unwrap() - 500.0).abs() < 1e-9);
    assert_eq!(
        phase(
            &s,
            Span {
                from_us: 16_000_000,
                to_us: 20_000_000
            }
        )
        .energy_j,
        None
    );
}

#[test]
fn no_energy_no_energy_per_token_and_the_reason_given() {
    let mut s = samples(false);
    for x in &mut s {
        for g in &mut x.gpus {
            g.power_w = None;
        }
    }
    let ctx = Context {
        bounds: &bounds(),
        throughput: &throughput(100, 1),
        failed: 2,
        interval_ms: 500,
    };
    let g = GpuMetrics::measure(&s, vec![], ctx);
    assert_eq!(g.joules_per_output_token, None);
    assert!(g.unmeasured["joules_per_output_token"].starts_with("no energy over Measure"));
    assert_eq!(g.failed_samples, 2);
}

#[test]
fn a_counter_that_goes_down_falls_back_to_the_power_integral() {
    // GPU b's counter resets at 9 s: its increase would be negative, so the counter is not
    // trusted and Measure's 10 s at 500 W come from the power, 5000 J still.
    let mut s = samples(true);
    for x in s.iter_mut().filter(|x| x.t_us >= 9_000_000) {
        x.gpus[1].energy_j = x.gpus[1].energy_j.map(|e| e - 2e6);
    }
    let ctx = Context {
        bounds: &bounds(),
        throughput: &throughput(20_000, 400),
        failed: 0,
        interval_ms: 500,
    };
    let g = GpuMetrics::measure(&s, vec!["http://n1:9400/metrics".into()], ctx);
    assert_eq!(g.measure.energy_source, Some(EnergySource::PowerIntegral));
    assert!((g.measure.energy_j.unwrap() - 5000.0).abs() < 1e-6);
    assert!(g.unmeasured["tensor_active"].contains("dcp-metrics-included.csv"));
}

#[test]
fn readings_that_do_not_change_are_counted_once() {
    // Constant power without a counter: every sample reads the same, so one distinct
    // reading per phase; with the counter each sample differs.
    let flat = phase(
        &samples(false),
        Span {
            from_us: 4_000_000,
            to_us: 14_000_000,
        },
    );
    assert_eq!((flat.samples, flat.distinct_readings), (20, 1));
    let moving = phase(
        &samples(true),
        Span {
            from_us: 4_000_000,
            to_us: 14_000_000,
        },
    );
    assert_eq!(moving.distinct_readings, 20);
}
