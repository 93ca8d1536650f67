//! A server that fails (HTTP 500s, streams dropped mid-way, requests that never answer):
//! the run finishes, errors are counted by kind, and every request is recorded.

use plateau_model::results::{self, REQUESTS_FILE};
use plateau_model::sample::Outcome;
use plateau_sim::SimConfig;

use crate::common;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn failures_are_data_and_every_record_is_kept() {
    let mut sim = SimConfig::from_profile("fixed").unwrap();
    sim.fixed.ttft_ms = 20.0;
    sim.fixed.itl_ms = 5.0;
    sim.faults.http_500_rate = 0.15;
    sim.faults.disconnect_rate = 0.15;
    sim.faults.stall_rate = 0.1;
    sim.faults.error_event_rate = 0.1;
    let (_tmp, out) = common::out_dir("faults");
    let config = serde_json::json!({
        "endpoints": [{"name": "faulty", "engine": "sim", "url": "http://placeholder/v1"}],
        "models": [{"id": "m", "name": "plateau-sim"}],
        "scenarios": ["A1"],
        "batch_sizes": [8],
        "fill_seconds": 0.5, "stabilize_seconds": 0.5, "measure_seconds": 3, "drain_seconds": 2,
        "request_timeout_seconds": 1,
        "max_tokens": 16
    });
    let report = common::run(sim, config, &out).await;
    let s = common::at(&report, 8);
    let kinds = &s.metrics.requests.measured_errors_by_kind;
    for kind in ["http_500", "stream", "timeout", "server_error"] {
        assert!(
            kinds.get(kind).copied().unwrap_or(0) > 0,
            "no {kind} in {kinds:?}"
        );
    }
    assert!(s.metrics.requests.measured_ok > 0);
    let total: u64 = kinds.values().sum();
    assert_eq!(total, s.metrics.requests.measured_errors);

    // Every request of the cell, in every phase, is in the records file.
    let dir = out.join("faulty/m/A1/c8");
    let samples = results::read_samples(&dir.join(REQUESTS_FILE)).unwrap();
    assert_eq!(samples.len() as u64, s.records.count);
    assert_eq!(samples.len() as u64, s.metrics.requests.total);
    let mut seqs: Vec<u64> = samples.iter().map(|x| x.seq).collect();
    seqs.sort_unstable();
    assert_eq!(seqs, (0..samples.len() as u64).collect::<Vec<_>>());
    let errored = samples.iter().filter(|x| x.outcome.is_error());
    assert!(
        errored.clone().all(|x| x.error.is_some()),
        "every failure says why"
    );
    assert!(
        samples
            .iter()
            .any(|x| matches!(x.outcome, Outcome::HttpStatus { status: 500 }))
    );
}
