//! The realistic profile: server throughput rises with N until the running batch (32) is
//! full, and once a waiting queue forms, TTFT grows.

use plateau_sim::SimConfig;

use crate::common;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn throughput_saturates_and_ttft_grows_with_the_queue() {
    let mut sim = SimConfig::default();
    sim.engine.max_num_seqs = 32;
    let (_tmp, out) = common::out_dir("realistic");
    let config = serde_json::json!({
        "endpoints": [{"name": "real", "engine": "sim", "url": "http://placeholder/v1"}],
        "models": [{"id": "m", "name": "plateau-sim"}],
        "scenarios": ["A1"],
        "batch_sizes": [1, 8, 32, 96],
        "fill_seconds": 0.5, "stabilize_seconds": 1.5, "measure_seconds": 3, "drain_seconds": 10,
        "max_tokens": 32
    });
    let report = common::run(sim, config, &out).await;
    let tput = |n| common::at(&report, n).metrics.throughput.server_direct_tps;
    let ttft = |n| common::at(&report, n).metrics.ttft_ms.as_ref().unwrap().p50;
    let tpot = |n| common::at(&report, n).metrics.tpot_ms.as_ref().unwrap().p50;
    // Below the batch limit, throughput grows with N ...
    assert!(tput(8) > 3.0 * tput(1), "1: {} 8: {}", tput(1), tput(8));
    assert!(tput(32) > 1.8 * tput(8), "8: {} 32: {}", tput(8), tput(32));
    // ... and past it, it stays flat while the queue makes TTFT grow.
    assert!(
        tput(96) < 1.15 * tput(32),
        "32: {} 96: {}",
        tput(32),
        tput(96)
    );
    // Up to the batch limit a request waits at most a couple of decode steps (TPOT) for its
    // prefill; past it, it waits in the queue for a whole batch of requests to finish.
    assert!(
        ttft(32) < 3.0 * tpot(32),
        "no queue at 32: TTFT {} ms, TPOT {} ms",
        ttft(32),
        tpot(32)
    );
    assert!(
        ttft(96) > 20.0 * tpot(96),
        "queue at 96: TTFT {} ms, TPOT {} ms",
        ttft(96),
        tpot(96)
    );
    assert!(
        ttft(96) > 5.0 * ttft(32),
        "TTFT 32: {} ms 96: {} ms",
        ttft(32),
        ttft(96)
    );
}
