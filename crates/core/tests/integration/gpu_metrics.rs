//! GPU telemetry beside a simulated cell: a DCGM exporter whose two GPUs draw 300 W and
//! 200 W, their energy counters growing at exactly that rate, read every 100 ms. Measure's
//! energy is 500 W times Measure's length, from the counter; without the counter, from the
//! power integral; and the energy per output token is that energy over the very tokens
//! `throughput` counts in Measure.

use plateau_model::gpu::{self, EnergySource, GPU_METRICS_FILE};
use plateau_model::results::summary::CellSummary;
use plateau_sim::SimConfig;
use plateau_testkit::dcgm::{self, Exporter, Gpu};

use crate::common;

/// One sim cell (N = 4, Measure 3 s) with the exporter read every 100 ms.
async fn cell(counter: bool, name: &str) -> (CellSummary, Vec<gpu::GpuSample>) {
    let gpus = vec![
        Gpu {
            uuid: "GPU-00000000-0000-0000-0000-000000000000".into(),
            watts: 300.0,
            base_mj: 4_185_523_412_345,
        },
        Gpu {
            uuid: "GPU-11111111-1111-1111-1111-111111111111".into(),
            watts: 200.0,
            base_mj: 1_000_000,
        },
    ];
    let port = dcgm::serve(Exporter { gpus, counter }).await;
    let (_tmp, out) = common::out_dir(name);
    let config = serde_json::json!({
        "endpoints": [{"name": "sim", "engine": "sim", "url": "http://placeholder/v1"}],
        "models": [{"id": "m", "name": "plateau-sim"}],
        "scenarios": ["A1"],
        "batch_sizes": [4],
        "fill_seconds": 1, "stabilize_seconds": 1, "measure_seconds": 3, "drain_seconds": 10,
        "max_tokens": 16,
        "gpu_metrics": {"sources": [format!("http://127.0.0.1:{port}")], "interval_ms": 100}
    });
    let report = common::run(SimConfig::default(), config, &out).await;
    let summary = common::at(&report, 4).clone();
    let dir = out.join(summary_dir(&out));
    let samples = gpu::read(&dir.join(GPU_METRICS_FILE)).expect("the raw samples");
    (summary, samples)
}

/// The one cell directory under `out` (the one holding a `summary.json`).
fn summary_dir(out: &std::path::Path) -> std::path::PathBuf {
    let mut stack = vec![out.to_owned()];
    while let Some(d) = stack.pop() {
        if d.join("summary.json").is_file() {
            return d;
        }
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            if e.path().is_dir() {
                stack.push(e.path());
            }
        }
    }
    panic!("no cell directory under {}", out.display());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn energy_per_token_from_the_counter_over_measure() {
    let (s, samples) = cell(true, "gpu-counter").await;
    let g = s.gpu.as_ref().expect("summary.gpu");
    let m = &g.measure;
    let measure_s = (s.phases.m1_us - s.phases.m0_us) as f64 / 1e6;
    let energy = m.energy_j.expect("energy over Measure");
    println!(
        "Measure {measure_s:.3} s, {} samples ({} in Measure, {} distinct), energy {energy:.3} J \
         from {:?}, {} output tokens, {:.6} J/token",
        g.samples,
        m.samples,
        m.distinct_readings,
        m.energy_source,
        s.metrics.throughput.output_tokens,
        g.joules_per_output_token.unwrap()
    );
    assert_eq!(m.energy_source, Some(EnergySource::Counter));
    assert_eq!(
        m.covered_s,
        Some(measure_s),
        "the samples cover all of Measure"
    );
    assert!((measure_s - 3.0).abs() < 0.05, "Measure {measure_s} s");
    let want = 500.0 * measure_s;
    assert!(
        (energy - want).abs() <= want * 0.005,
        "{energy} J, want {want} J"
    );
    assert_eq!(m.power_w.map(|p| (p.mean, p.max)), Some((500.0, 500.0)));
    let tokens = s.metrics.throughput.output_tokens;
    assert!(tokens > 0);
    assert_eq!(g.joules_per_output_token, Some(energy / tokens as f64));
    assert_eq!(g.output_tokens_per_joule, Some(tokens as f64 / energy));
    assert_eq!(
        g.joules_per_request,
        Some(energy / s.metrics.throughput.requests_completed as f64)
    );
    assert_eq!(g.gpus.len(), 2);
    assert_eq!(
        g.output_tps_per_gpu,
        Some(s.metrics.throughput.server_direct_tps / 2.0)
    );
    // 3 s at 100 ms: about 30 samples in Measure; a loaded 2-core machine may skip ticks.
    assert!(m.samples >= 15, "{} samples in Measure", m.samples);
    assert_eq!(
        m.distinct_readings, m.samples,
        "the counter moves every read"
    );
    assert!(g.unmeasured["tensor_active"].contains("dcp-metrics-included.csv"));
    assert_eq!(samples.len() as u64, g.samples);
    assert!(samples.windows(2).all(|w| w[0].t_us < w[1].t_us));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_the_counter_energy_is_the_power_integral() {
    let (s, _) = cell(false, "gpu-power").await;
    let g = s.gpu.as_ref().expect("summary.gpu");
    let m = &g.measure;
    let measure_s = (s.phases.m1_us - s.phases.m0_us) as f64 / 1e6;
    let energy = m.energy_j.expect("energy over Measure");
    println!("power integral: {energy:.3} J over {measure_s:.3} s");
    assert_eq!(m.energy_source, Some(EnergySource::PowerIntegral));
    let want = 500.0 * measure_s;
    assert!(
        (energy - want).abs() <= want * 0.01,
        "{energy} J, want {want} J"
    );
    assert_eq!(
        g.joules_per_output_token,
        Some(energy / s.metrics.throughput.output_tokens as f64)
    );
    assert_eq!(
        m.distinct_readings, 1,
        "constant power reads the same every time"
    );
}
