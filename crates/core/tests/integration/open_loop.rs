//! The open loop against the simulator: on the exact-timing profile, Poisson arrivals at
//! the target rate with TTFT from the intended send equal to the truth; on the realistic
//! profile (bounded batch, waiting queue), a rate sweep shows the knee, the capacity search
//! lands inside it, rates above it are `overloaded`, and a `max_concurrency` cap makes
//! latencies from the intended send exceed those from the send.

use plateau_model::results::capacity::{CAPACITY_FILE, CapacityReport, SearchStatus};
use plateau_model::results::{self, REQUESTS_FILE};
use plateau_model::sample::Sample;
use plateau_sim::SimConfig;

use crate::common;

/// The open-loop tests run one at a time: each drives a simulator for a minute or more,
/// and two at once on a 2-core machine make the client's own timing the thing measured.
static ONE_AT_A_TIME: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn poisson_arrivals_at_40_per_second_on_exact_timing() {
    let _alone = ONE_AT_A_TIME.lock().await;
    let sim = SimConfig::from_profile("fixed").unwrap(); // TTFT 100 ms, ITL 20 ms
    let (_tmp, out) = common::out_dir("open-exact");
    let config = serde_json::json!({
        "endpoints": [{"name": "exact", "engine": "sim", "url": "http://placeholder/v1"}],
        "models": [{"id": "m", "name": "plateau-sim"}],
        "scenarios": ["A1"],
        "request_rates": [40],
        "fill_seconds": 2, "stabilize_seconds": 1, "measure_seconds": 30, "drain_seconds": 5,
        "max_tokens": 4
    });
    let report = common::run(sim, config, &out).await;
    let s = common::at_rate(&report, 40.0);
    let load = s.metrics.load.as_ref().unwrap();
    assert!(
        (load.achieved_rps / 40.0 - 1.0).abs() < 0.05,
        "achieved {} req/s",
        load.achieved_rps
    );
    let ttft = s.metrics.ttft_ms.as_ref().unwrap();
    assert!((ttft.p50 - 100.0).abs() < 2.0, "TTFT p50 {} ms", ttft.p50);
    assert!(
        !s.metrics.steady.overloaded,
        "{:?}",
        s.metrics.steady.reasons
    );
    let lag = load.schedule_lag_ms.as_ref().unwrap();
    // The arrivals thread wakes on the OS timer: tokio's millisecond wheel made this 1.15 ms.
    assert!(lag.p50 < 1.0, "schedule lag {lag:?}");

    // The actual sends of the measured requests are a Poisson process at 40 req/s:
    // Kolmogorov-Smirnov on their gaps against Exp(40), at the 1% level.
    let records: Vec<Sample> =
        results::read_samples(&out.join("exact/m/A1/r40").join(REQUESTS_FILE)).unwrap();
    let (m0, m1) = (s.phases.m0_us, s.phases.m1_us);
    let mut sends: Vec<u64> = records
        .iter()
        .map(|r| r.t_sent_us)
        .filter(|t| (m0..m1).contains(t))
        .collect();
    sends.sort_unstable();
    let mut gaps: Vec<f64> = sends
        .windows(2)
        .map(|w| (w[1] - w[0]) as f64 / 1e6)
        .collect();
    gaps.sort_by(f64::total_cmp);
    let n = gaps.len() as f64;
    assert!(n > 1_000.0, "{n} gaps");
    let d = gaps
        .iter()
        .enumerate()
        .map(|(i, &x)| {
            let cdf = 1.0 - (-40.0 * x).exp();
            (cdf - i as f64 / n)
                .abs()
                .max(((i + 1) as f64 / n - cdf).abs())
        })
        .fold(0.0, f64::max);
    assert!(d < 1.63 / n.sqrt(), "KS D = {d} over {n} gaps");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_capacity_search_lands_where_the_sweep_crosses_the_slo() {
    let _alone = ONE_AT_A_TIME.lock().await;
    // 8 sequences in the batch, 32 tokens each at ~10 ms a step: about 25 req/s.
    let mut sim = SimConfig::default();
    sim.engine.max_num_seqs = 8;
    let (_tmp, out) = common::out_dir("open-capacity");
    let slo_ms = 250.0;
    let config = serde_json::json!({
        "endpoints": [{"name": "real", "engine": "sim", "url": "http://placeholder/v1"}],
        "models": [{"id": "m", "name": "plateau-sim"}],
        "scenarios": ["A1"],
        "batch_sizes": [8],
        "request_rates": [8, 16, 32, 48],
        "fill_seconds": 1, "stabilize_seconds": 2, "measure_seconds": 8,
        "max_tokens": 32,
        // A resolution of 25% keeps each probe's derived window near Measure's 8 s (at 0.1
        // it is 36 s near 25 req/s, and the search took minutes); the window's own rule is
        // checked in model's capacity::window tests.
        "capacity": {"slo": {"ttft_p99_ms": slo_ms}, "target_rps": 100, "resolution": 0.25}
    });
    let report = common::run(sim, config, &out).await;
    let ttft_p99 = |rps| {
        common::at_rate(&report, rps)
            .metrics
            .ttft_ms
            .as_ref()
            .unwrap()
            .p99
    };
    // The sweep: the SLO holds at 8 req/s and breaks by 48 req/s, where the queue grows
    // without bound and the cell says so.
    assert!(ttft_p99(8.0) < slo_ms, "8 req/s: {}", ttft_p99(8.0));
    assert!(ttft_p99(48.0) > slo_ms, "48 req/s: {}", ttft_p99(48.0));
    let over = common::at_rate(&report, 48.0);
    assert!(
        over.metrics.steady.overloaded,
        "{:?}",
        over.metrics.steady.reasons
    );
    assert!(over.metrics.steady.reasons[0].starts_with("overloaded:"));
    let swept: Vec<(f64, bool)> = [8.0, 16.0, 32.0, 48.0]
        .iter()
        .map(|&r| {
            (
                r,
                ttft_p99(r) <= slo_ms && !common::at_rate(&report, r).metrics.steady.overloaded,
            )
        })
        .collect();
    let below = swept
        .iter()
        .filter(|s| s.1)
        .map(|s| s.0)
        .fold(0.0, f64::max);
    let above = swept
        .iter()
        .filter(|s| !s.1)
        .map(|s| s.0)
        .fold(f64::INFINITY, f64::min);
    assert!(below < above, "the sweep crosses the SLO once: {swept:?}");

    // The search answer lies where the sweep crosses.
    let capacity = report.capacity.as_ref().expect("a capacity report");
    let search = &capacity.searches[0];
    let max = search.max_rps.expect("a rate met the SLO");
    assert!(
        below <= max && max < above,
        "search {max} req/s outside the sweep's crossing [{below}, {above}): {search:#?}"
    );
    assert!(matches!(
        search.status,
        SearchStatus::Found | SearchStatus::ProbesExhausted
    ));
    assert!(search.probes.len() >= 2 && search.probes.iter().all(|p| out.join(&p.dir).exists()));
    let plan = search.plan.as_ref().unwrap();
    assert_eq!(plan.instances, (100.0 / max - 1e-9).ceil() as u32);
    // capacity.json on disk says the same.
    let written: CapacityReport = results::read_json(&out.join(CAPACITY_FILE)).unwrap();
    assert_eq!(&written, capacity);
    let schema: serde_json::Value =
        serde_json::from_str(include_str!("../../../../schemas/capacity.schema.json")).unwrap();
    let instance: serde_json::Value = results::read_json(&out.join(CAPACITY_FILE)).unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let errors: Vec<String> = validator
        .iter_errors(&instance)
        .map(|e| e.to_string())
        .collect();
    assert!(
        errors.is_empty(),
        "capacity.json against its schema: {errors:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_cap_queues_arrivals_into_the_latency() {
    let _alone = ONE_AT_A_TIME.lock().await;
    let mut sim = SimConfig::default();
    sim.engine.max_num_seqs = 8;
    let (_tmp, out) = common::out_dir("open-cap");
    let config = serde_json::json!({
        "endpoints": [{"name": "real", "engine": "sim", "url": "http://placeholder/v1"}],
        "models": [{"id": "m", "name": "plateau-sim"}],
        "scenarios": ["A1"],
        "request_rates": [20],
        "max_concurrency": 2,
        "fill_seconds": 1, "stabilize_seconds": 1, "measure_seconds": 4, "drain_seconds": 30,
        "max_tokens": 32
    });
    let report = common::run(sim, config, &out).await;
    let s = common::at_rate(&report, 20.0);
    let load = s.metrics.load.as_ref().unwrap();
    let from_intended = s.metrics.ttft_ms.as_ref().unwrap();
    let from_send = load.from_send.as_ref().unwrap().ttft_ms.as_ref().unwrap();
    let queue = load.queue_ms.as_ref().unwrap();
    assert!(
        from_intended.p50 > from_send.p50 + queue.p50 * 0.9,
        "intended {from_intended:?} send {from_send:?} queue {queue:?}"
    );
    assert!(
        s.metrics.concurrency.max <= 2,
        "{:?}",
        s.metrics.concurrency
    );
    assert!(
        s.metrics.steady.overloaded,
        "two places cannot serve 20 req/s"
    );
}
