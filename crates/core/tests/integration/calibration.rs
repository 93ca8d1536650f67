//! Calibration: against the simulator's fixed profile (TTFT 100 ms, ITL 20 ms, 64 tokens)
//! the measured TTFT, TPOT and concurrency must match what the server did.

use plateau_sim::SimConfig;

use crate::common;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fixed_profile_is_measured_exactly_at_1_16_256() {
    let mut sim = SimConfig::from_profile("fixed").unwrap();
    sim.fixed.ttft_ms = 100.0;
    sim.fixed.itl_ms = 20.0;
    let (_tmp, out) = common::out_dir("calibration");
    let config = serde_json::json!({
        "endpoints": [{"name": "fixed", "engine": "sim", "url": "http://placeholder/v1"}],
        "models": [{"id": "m", "name": "plateau-sim"}],
        "scenarios": ["A1"],
        "batch_sizes": [1, 16, 256],
        "fill_seconds": 1, "stabilize_seconds": 1.5, "measure_seconds": 6, "drain_seconds": 5,
        "max_tokens": 64
    });
    let report = common::run(sim, config, &out).await;
    for n in [1u32, 16, 256] {
        let s = common::at(&report, n);
        let m = &s.metrics;
        let ttft = m.ttft_ms.as_ref().unwrap().p50;
        let tpot = m.tpot_ms.as_ref().unwrap().p50;
        // Each request takes 100 + 63 x 20 = 1,360 ms, so Measure sees at least
        // floor(4 / 1.36) = 2 requests per slot started in it.
        assert!(
            m.requests.measured_ok >= 2 * u64::from(n),
            "N={n}: {} measured",
            m.requests.measured_ok
        );
        assert_eq!(m.requests.measured_errors, 0, "N={n}");
        assert!((ttft - 100.0).abs() <= 2.0, "N={n}: TTFT p50 {ttft} ms");
        assert!((tpot - 20.0).abs() <= 0.5, "N={n}: TPOT p50 {tpot} ms");
        let c = &m.concurrency;
        assert_eq!(c.max, n, "N={n}: never more than N in flight");
        assert!(
            c.mean > f64::from(n) * 0.999,
            "N={n}: mean concurrency {}",
            c.mean
        );
        assert!(m.steady.steady, "N={n}: {:?}", m.steady.reasons);
        assert_eq!(
            m.tokens.n_out_sources.get("usage"),
            Some(&m.requests.measured_ok)
        );
    }
}
