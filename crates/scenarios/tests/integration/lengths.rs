//! Output lengths against the simulated engine (fixed profile, `ignore_eos`, so a reply is
//! exactly as long as its request asks): each request's `max_tokens` is its own draw at its
//! index, and S sends ShareGPT's first questions asking for their answers' lengths.

use std::collections::HashMap;

use plateau_core::plan::{Load, Plan};
use plateau_core::tokens::TokenCounter;
use plateau_core::workload::WorkloadFactory;
use plateau_model::config::OutputTokens;
use plateau_model::metrics::{RequestedTokens, Window};
use plateau_model::sample::Sample;
use plateau_scenarios::Catalog;
use plateau_scenarios::data::sharegpt::{self, PairRecord};
use plateau_scenarios::lengths::Lengths;
use plateau_scenarios::rng::stream_rng;
use plateau_scenarios::text::words::prose;
use plateau_sim::{Profile, SimConfig};
use serde_json::json;

use crate::common::{cell, config, plan, run_on_sim, temp_dir, tokenizer};

const N: u32 = 4;

/// Every sample of one cell of `scenario` at N against a fresh simulator with fixed
/// timings (2 ms to the first token, 1 ms between tokens, no capacity limit), and the
/// cell's measure window.
async fn run(catalog: &Catalog, plan: &Plan, scenario: &str) -> (Vec<Sample>, Window) {
    let mut sim = SimConfig {
        profile: Profile::Fixed,
        ..SimConfig::default()
    };
    sim.fixed.ttft_ms = 2.0;
    sim.fixed.itl_ms = 1.0;
    let schedule = plan.schedule(&Load::Concurrency(N));
    let window = Window {
        m0_us: schedule.m0().as_micros() as u64,
        m1_us: schedule.m1().as_micros() as u64,
        concurrency: Some(N),
    };
    let out = run_on_sim(catalog, plan, scenario, N, sim, true).await;
    (out.recorded.samples, window)
}

fn phases() -> serde_json::Value {
    json!({
        "endpoints": [{"name": "sim", "engine": "sim", "url": "http://127.0.0.1:9/v1"}],
        "fill_seconds": 1, "stabilize_seconds": 1, "measure_seconds": 3, "drain_seconds": 2,
        "seed": 11,
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_request_asks_for_its_own_uniform_length_and_gets_it() {
    let spec = json!({"dist": "uniform", "min": 8, "max": 24});
    let mut extra = phases();
    extra["max_tokens"] = spec.clone();
    let cfg = config(&["B1"], extra);
    let (catalog, plan) = (Catalog::load(&cfg, tokenizer()).unwrap(), plan(&cfg));
    let (samples, window) = run(&catalog, &plan, "B1").await;
    // Known truth per request: slot s's k-th request is index s + k*N, and asks for the
    // draw at that index; the simulator with ignore_eos answers exactly that many tokens.
    let lengths = Lengths::new(
        serde_json::from_value::<OutputTokens>(spec).unwrap(),
        11,
        "B1",
        1,
    );
    let mut sent_by_slot: HashMap<u32, u64> = HashMap::new();
    let mut ordered: Vec<&Sample> = samples.iter().collect();
    ordered.sort_by_key(|s| s.t_sent_us);
    for s in &ordered {
        let k = sent_by_slot.entry(s.slot).or_default();
        let want = lengths.at(u64::from(s.slot) + *k * u64::from(N), None);
        *k += 1;
        assert_eq!(
            s.max_tokens,
            Some(want),
            "slot {} request {}",
            s.slot,
            *k - 1
        );
        if s.outcome.is_ok() {
            assert_eq!(s.n_out, Some(want), "{s:?}");
        }
    }
    let measured: Vec<&Sample> = samples
        .iter()
        // The same selection as the summary's (`Window::measures`): the phase label and the
        // window can differ by a request at the edge.
        .filter(|s| window.measures(s) && s.outcome.is_ok())
        .collect();
    assert!(measured.len() >= 200, "{} measured", measured.len());
    let out_mean = measured
        .iter()
        .map(|s| f64::from(s.n_out.unwrap()))
        .sum::<f64>()
        / measured.len() as f64;
    let asked = RequestedTokens::measure(&samples, &window).unwrap();
    println!(
        "B1 uniform 8..=24: {} measured, output tokens mean {out_mean:.2}, requested p50 {} p99 {}",
        measured.len(),
        asked.max_tokens.p50,
        asked.max_tokens.p99
    );
    // The measured replies are exactly the lengths asked for (checked one by one above).
    assert_eq!(asked.short_replies, 0);
    assert_eq!(asked.replies, measured.len() as u64);
    assert!((asked.max_tokens.mean - out_mean).abs() < 1e-9);
    // Against the distribution's mean of 16: the sd of 17 equally likely values is 4.9, so
    // over at least 200 requests the mean's standard error is at most 0.35; 1.5 is over 4.
    assert!((out_mean - 16.0).abs() < 1.5, "{out_mean}");
    assert_eq!(asked.max_tokens.min, 8.0);
    assert_eq!(asked.max_tokens.max, 24.0);
}

/// `datasets/sharegpt/pairs.jsonl` of `n` pairs in plateau's own prose (questions of 40 to
/// 400 characters, answers of 40 to 800), then two that vLLM's rule drops.
fn write_sharegpt(dir: &std::path::Path, n: u64) {
    let path = sharegpt::path(dir);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let mut lines = String::new();
    let mut pair = |id: String, prompt: String, reply: String| {
        lines.push_str(&serde_json::to_string(&PairRecord { id, prompt, reply }).unwrap());
        lines.push('\n');
    };
    for i in 0..n {
        let mut rng = stream_rng(i, "sharegpt fixture");
        let ask = 40 + (i as usize * 37) % 360;
        let answer = 40 + (i as usize * 53) % 760;
        pair(
            format!("p{i}_0"),
            format!("{}?", prose(&mut rng, ask).trim()),
            prose(&mut rng, answer).trim().to_owned(),
        );
    }
    pair(
        "short_0".into(),
        "Hi".into(),
        "Hello there, how can I help?".into(),
    );
    pair(
        "noreply_0".into(),
        "Tell me about the sea in detail.".into(),
        "No.".into(),
    );
    std::fs::write(path, lines).unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn s_asks_for_each_sharegpt_answers_length() {
    let tmp = temp_dir("lengths-sharegpt");
    let dir = tmp.path();
    write_sharegpt(dir, 300);
    let mut extra = phases();
    extra["datasets_dir"] = json!(dir);
    let cfg = config(&["S"], extra);
    let catalog = Catalog::load(&cfg, tokenizer()).unwrap();
    assert!(
        !catalog.warnings().iter().any(|w| w.contains("ShareGPT")),
        "{:?}",
        catalog.warnings()
    );
    let plan = plan(&cfg);
    let info = catalog.workload(&plan, &cell("S", N)).unwrap().info();
    assert!(
        !info.synthetic && info.source.contains("ShareGPT"),
        "{info:?}"
    );
    assert!(
        info.notes
            .iter()
            .any(|n| n.starts_with("300 prompts; 2 dropped")),
        "{:?}",
        info.notes
    );
    assert_eq!(
        serde_json::to_value(info.output_tokens.unwrap().spec).unwrap(),
        json!({"dist": "dataset", "min": 1})
    );
    // Known truth: the answer's length in tokens of the run's tokenizer, per question.
    let t = tokenizer();
    let truth: HashMap<String, u32> = sharegpt::read(&sharegpt::path(dir))
        .unwrap()
        .into_iter()
        .map(|p| (p.prompt, t.count(&p.reply) as u32))
        .collect();
    let (samples, _) = run(&catalog, &plan, "S").await;
    let ok: Vec<&Sample> = samples.iter().filter(|s| s.outcome.is_ok()).collect();
    assert!(ok.len() >= 100, "{} requests", ok.len());
    for s in &ok {
        let prompt = s.prompt.as_deref().unwrap();
        assert!(prompt != "Hi" && !prompt.starts_with("Tell me about the sea"));
        let want = truth[prompt];
        assert_eq!(
            (s.max_tokens, s.n_out),
            (Some(want), Some(want)),
            "{prompt}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn s_without_the_dataset_is_synthetic_with_dataset_lengths() {
    let cfg = config(&["S"], phases());
    let catalog = Catalog::load(&cfg, tokenizer()).unwrap();
    assert!(
        catalog.warnings().iter().any(
            |w| w.starts_with("S: ShareGPT not found") && w.contains("fetch-datasets sharegpt")
        ),
        "{:?}",
        catalog.warnings()
    );
    let plan = plan(&cfg);
    let workload = catalog.workload(&plan, &cell("S", N)).unwrap();
    assert!(workload.info().synthetic);
    let mut session = workload.session(0);
    for _ in 0..20 {
        let p = session.next();
        // The built-in dialogs' replies are 40 to 400 tokens; the request asks for its own.
        assert_eq!(p.max_tokens, p.reply_tokens);
        assert!((40..=400).contains(&p.max_tokens.unwrap()), "{p:?}");
    }
}
