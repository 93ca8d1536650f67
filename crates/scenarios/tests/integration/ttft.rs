//! Against the simulated engine with its prefix cache on (realistic profile), at the
//! same N: TTFT of A2 well below B2's, C's between them, and D's growing with the turn
//! index. A2, B2 and C run at the same time, each against its own simulator, so a change of
//! machine load shifts all three alike. Run with `--nocapture` to see the numbers.

use std::collections::BTreeMap;

use plateau_core::plan::Plan;
use plateau_model::phase::Phase;
use plateau_model::sample::Sample;
use plateau_scenarios::Catalog;
use plateau_sim::SimConfig;
use serde_json::json;

use crate::common::{config, datasets, plan, run_on_sim, tokenizer};

const N: u32 = 4;
/// Prefill cost per uncached prompt token: the realistic profile's 25 us is a fast GPU; 100 us
/// (a 70B-class model) makes C's ~60 uncached tokens per request stand clear of timer noise.
const PREFILL_US: f64 = 100.0;

/// Runs one cell of `scenario` against a fresh simulator; returns its Measure samples.
async fn run(catalog: &Catalog, plan: &Plan, scenario: &str) -> Vec<Sample> {
    let mut sim = SimConfig::default();
    sim.engine.prefill_us_per_token = PREFILL_US;
    assert!(sim.engine.prefix_caching);
    let out = run_on_sim(catalog, plan, scenario, N, sim, false).await;
    out.recorded
        .samples
        .into_iter()
        .filter(|s| s.phase == Phase::Measure && s.outcome.is_ok())
        .collect()
}

fn ttft_ms(s: &Sample) -> f64 {
    (s.chunks[0].t_us - s.t_sent_us) as f64 / 1000.0
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ttft_order_follows_the_caching_potential() {
    let tmp = datasets("ttft");
    let dir = tmp.path();
    let cfg = config(
        &["A2", "B2", "C", "D"],
        json!({
            "endpoints": [{"name": "sim", "engine": "sim", "url": "http://127.0.0.1:9/v1"}],
            "datasets_dir": dir,
            "fill_seconds": 0.5, "stabilize_seconds": 1, "measure_seconds": 6, "drain_seconds": 2,
            "max_tokens": 16,
            "scenario_options": {"D": {"replies": "dataset"}},
        }),
    );
    let (catalog, plan) = (Catalog::load(&cfg, tokenizer()).unwrap(), plan(&cfg));
    let (a2, b2, c) = tokio::join!(
        run(&catalog, &plan, "A2"),
        run(&catalog, &plan, "B2"),
        run(&catalog, &plan, "C")
    );
    let mut stats = BTreeMap::new();
    for (id, samples) in [("A2", a2), ("B2", b2), ("C", c)] {
        let least = if id == "B2" { 12 } else { 60 };
        assert!(
            samples.len() >= least,
            "{id}: {} measured samples",
            samples.len()
        );
        let ttfts: Vec<f64> = samples.iter().map(ttft_ms).collect();
        let (median, mean) = (
            median(ttfts.clone()),
            ttfts.iter().sum::<f64>() / ttfts.len() as f64,
        );
        println!(
            "{id}: TTFT median {median:.1} ms, mean {mean:.1} ms over {} requests at N={N}",
            samples.len()
        );
        stats.insert(id, (median, mean));
    }
    assert!(
        stats["A2"].0 * 3.0 < stats["B2"].0,
        "A2 well below B2: {stats:?}"
    );
    assert!(
        stats["A2"].1 < stats["C"].1 && stats["C"].1 < stats["B2"].1,
        "C between A2 and B2: {stats:?}"
    );

    let samples = run(&catalog, &plan, "D").await;
    let mut by_turn: BTreeMap<u32, Vec<f64>> = BTreeMap::new();
    for s in &samples {
        by_turn
            .entry(s.turn.unwrap().min(3))
            .or_default()
            .push(ttft_ms(s));
    }
    let means: Vec<(u32, f64, usize)> = by_turn
        .iter()
        .map(|(&k, v)| (k, v.iter().sum::<f64>() / v.len() as f64, v.len()))
        .collect();
    for (k, m, n) in &means {
        println!(
            "D: turn {k}{}: mean TTFT {m:.1} ms over {n} requests",
            if *k == 3 { "+" } else { "" }
        );
    }
    assert!(means.len() >= 3, "{means:?}");
    let later: Vec<f64> = by_turn
        .range(1..)
        .flat_map(|(_, v)| v.iter().copied())
        .collect();
    let later_mean = later.iter().sum::<f64>() / later.len() as f64;
    assert!(
        means[0].1 + 2.0 < later_mean,
        "later turns above turn 0: {means:?}"
    );
    let slope = {
        let n = means.len() as f64;
        let (mx, my) = (
            means.iter().map(|m| f64::from(m.0)).sum::<f64>() / n,
            means.iter().map(|m| m.1).sum::<f64>() / n,
        );
        means
            .iter()
            .map(|m| (f64::from(m.0) - mx) * (m.1 - my))
            .sum::<f64>()
    };
    assert!(slope > 0.0, "TTFT grows with the turn index: {means:?}");
}
