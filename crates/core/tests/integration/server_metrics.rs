//! The simulator's `/metrics` scraped beside each cell: below the batch limit (8) the
//! server runs exactly the N plateau holds and queues nothing; above it (N = 12) it runs 8,
//! queues the rest, and the verdict says it is saturated. The raw scrapes land in the cell
//! directory on the cell's clock.

use plateau_core::scrape::{self, SERVER_METRICS_FILE};
use plateau_model::validate;
use plateau_sim::SimConfig;

use crate::common;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn running_and_waiting_match_what_plateau_holds() {
    let mut sim = SimConfig::default();
    sim.engine.max_num_seqs = 8;
    let (_tmp, out) = common::out_dir("server-metrics");
    let config = serde_json::json!({
        "endpoints": [{"name": "sim", "engine": "sim", "url": "http://placeholder/v1"}],
        "models": [{"id": "m", "name": "plateau-sim"}],
        "scenarios": ["A1"],
        "batch_sizes": [4, 12],
        "fill_seconds": 1, "stabilize_seconds": 1.5, "measure_seconds": 4, "drain_seconds": 10,
        "max_tokens": 32
    });
    let report = common::run(sim, config, &out).await;

    let below = common::at(&report, 4);
    let s = below
        .server
        .as_ref()
        .expect("the simulator's metrics were scraped");
    let m = &s.measure;
    let (running, waiting) = (m.running.unwrap(), m.waiting.unwrap());
    println!(
        "N=4: {} scrapes in Measure, running mean {:.3} max {}, waiting max {}, server {:.1} tok/s, plateau {:.1} tok/s",
        m.scrapes,
        running.mean,
        running.max,
        waiting.max,
        m.generation_tokens_per_s.unwrap(),
        below.metrics.throughput.server_direct_tps
    );
    assert_eq!(s.engine, "vllm");
    // 4 s at 250 ms is 16 scrapes; a loaded 2-core machine may skip a few ticks.
    assert!(m.scrapes >= 10, "{} scrapes", m.scrapes);
    // A slot's next request reaches the batch one engine step (~1/33 of a 32-token request)
    // after its last ended, so a scrape may see 3 for an instant: mean within 0.2 of 4.
    assert!(
        (running.mean - 4.0).abs() < 0.2,
        "running mean {}",
        running.mean
    );
    assert_eq!(running.max, 4.0);
    assert_eq!(waiting.max, 0.0, "nothing queues below the batch limit");
    assert_eq!(s.saturated, Some(false));
    // The server's own count of generated tokens agrees with what plateau received; the
    // windows differ by up to one scrape interval at each end (2 x 0.25 s of 4 s).
    let ratio = m.generation_tokens_per_s.unwrap() / below.metrics.throughput.server_direct_tps;
    assert!(
        (ratio - 1.0).abs() < 0.2,
        "server/plateau throughput {ratio}"
    );
    assert!(m.ttft_s.unwrap().count > 0.0 && m.tpot_s.unwrap().count > 0.0);
    assert!(s.fill.scrapes > 0 && s.stabilize.scrapes > 0);

    let above = common::at(&report, 12);
    let s = above.server.as_ref().expect("scraped");
    let (running, waiting) = (s.measure.running.unwrap(), s.measure.waiting.unwrap());
    println!(
        "N=12: running mean {:.3}, waiting mean {:.3} max {}, saturated {:?}",
        running.mean, waiting.mean, waiting.max, s.saturated
    );
    assert!(
        (running.mean - 8.0).abs() < 0.2,
        "running mean {}",
        running.mean
    );
    assert!(
        waiting.mean > 3.0,
        "4 of 12 queue: waiting mean {}",
        waiting.mean
    );
    assert_eq!(s.saturated, Some(true));
    let finding = validate::server_saturated(above).expect("a server_saturated finding");
    println!("validate: {finding}");
    assert!(finding.contains("while plateau held 12 in flight: the server is saturated"));
    assert_eq!(validate::server_saturated(below), None);

    // The raw scrapes are beside the records, on the cell's clock.
    let dir = out.join("sim/m/A1/c12");
    let scrapes = scrape::read(&dir.join(SERVER_METRICS_FILE)).unwrap();
    assert_eq!(scrapes.len() as u64, s.scrapes);
    assert!(scrapes.windows(2).all(|w| w[0].t_us < w[1].t_us));
    assert!(scrapes.last().unwrap().t_us <= above.phases.end_us + 300_000);
    assert!(
        scrapes[0]
            .values
            .keys()
            .any(|k| k.starts_with("vllm:time_to_first_token_seconds_bucket{"))
    );
}
