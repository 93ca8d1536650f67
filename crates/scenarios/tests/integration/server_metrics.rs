//! The simulator's prefix-cache counters as plateau scrapes them: A2 (one ~2,500-token prompt
//! repeated) hits the cache for nearly every prompt token; B2 (unique windows) for nearly
//! none. Both run through the driver, each against its own simulator, at the same time.

use plateau_sim::{Server, SimConfig};
use serde_json::json;

use crate::common::{config, datasets, drive, temp_dir};

/// Runs `scenario` at N = 4 against a fresh simulator; the Measure prefix-cache hit rate.
async fn hit_rate(scenario: &str) -> f64 {
    let server = Server::start("127.0.0.1:0".parse().unwrap(), SimConfig::default())
        .await
        .unwrap();
    let url = format!("http://{}/v1", server.addr());
    let data = datasets(&format!("server-metrics-{scenario}"));
    let mut cfg = config(
        &[scenario],
        json!({
            "endpoints": [{"name": "sim", "engine": "sim", "url": url}],
            "datasets_dir": data.path(),
            "fill_seconds": 1, "stabilize_seconds": 1, "measure_seconds": 3, "drain_seconds": 5,
            "max_tokens": 16,
        }),
    );
    let out = temp_dir(&format!("server-metrics-{scenario}"));
    cfg.output_dir = out.path().to_path_buf();
    let report = drive(&cfg, &url).await;
    server.shutdown().await;
    let server = report.summaries[0].server.clone().expect("scraped");
    println!(
        "{scenario}: Measure prefix-cache hit rate {:?} over {} scrapes, prompt {:?} tok/s",
        server.measure.prefix_cache_hit_rate,
        server.measure.scrapes,
        server.measure.prompt_tokens_per_s
    );
    server.measure.prefix_cache_hit_rate.unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a2_hits_the_prefix_cache_and_b2_does_not() {
    let (a2, b2) = tokio::join!(hit_rate("A2"), hit_rate("B2"));
    // A2 misses only the part of the prompt that does not fill a whole cache block and
    // the first request's prefill (before Measure): > 0.9. B2's windows are unique from the
    // first token: < 0.1.
    assert!(a2 > 0.9, "A2 hit rate {a2}");
    assert!(b2 < 0.1, "B2 hit rate {b2}");
}
