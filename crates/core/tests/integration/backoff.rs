//! A server that answers every request `429 Too Many Requests` with `Retry-After: 1` in a
//! few milliseconds (the simulator's `http_429_rate`): each slot waits the second it was
//! told, so the request rate stays near N per second instead of thousands, and waiting
//! slots are not counted in flight.

use plateau_sim::SimConfig;

use crate::common;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn retry_after_holds_the_request_rate_near_n_per_second() {
    let mut sim = SimConfig::from_profile("fixed").unwrap();
    sim.faults.http_429_rate = 1.0;
    let (_tmp, out) = common::out_dir("backoff");
    let config = serde_json::json!({
        "endpoints": [{"name": "busy", "engine": "sim", "url": "http://placeholder/v1"}],
        "models": [{"id": "m", "name": "plateau-sim"}],
        "scenarios": ["A1"],
        "batch_sizes": [4],
        "fill_seconds": 0.5, "stabilize_seconds": 0.5, "measure_seconds": 4, "drain_seconds": 1,
        "max_tokens": 8
    });
    let report = common::run(sim, config, &out).await;
    let s = common::at(&report, 4);
    let r = &s.metrics.requests;
    // 4 slots x one request per 1.0-1.1 s over 4 s: 4 x (3 or 4 or 5). Without backoff this
    // was about a thousand requests per second.
    assert!(
        (12..=20).contains(&r.measured),
        "{} requests in a 4 s window",
        r.measured
    );
    assert_eq!(r.measured_errors_by_kind.get("http_429"), Some(&r.measured));
    assert_eq!(r.rejected, r.total - r.cancelled);
    assert_eq!(r.error_rate, Some(1.0));
    // Failing and waiting filled the slots' time; none of it was in flight.
    assert!(r.error_time_fraction.unwrap() > 0.9, "{r:?}");
    assert_eq!(s.metrics.concurrency.mean, 0.0);
}
