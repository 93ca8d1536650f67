//! Paused-time tests of the engine task alone: saturation, queueing, cache hits, cancellation.

use super::*;
use std::time::Duration;

fn quiet_engine() -> EngineConfig {
    EngineConfig {
        noise: 0.0,
        ..EngineConfig::default()
    }
}

struct Load {
    /// Output tokens per second over the measured window.
    throughput: f64,
    /// Median TTFT of requests started in the window, in ms.
    ttft_p50_ms: f64,
    /// Largest waiting queue seen at a request start.
    max_waiting: u64,
}

/// Drives the engine with `n` closed-loop clients (unique 200-token prompts, 64 output
/// tokens; starts spread over 2 s like plateau's Fill) for 40 simulated seconds, measuring
/// the last 30.
async fn closed_loop(n: usize) -> Load {
    let metrics = Arc::new(Metrics::new(32768));
    let cancel = CancellationToken::new();
    let (engine, task) = spawn(&quiet_engine(), 1, Arc::clone(&metrics), cancel.clone());
    let start = Instant::now();
    let (m0, m1) = (
        start + Duration::from_secs(10),
        start + Duration::from_secs(40),
    );
    let mut clients = Vec::new();
    for slot in 0..n {
        let engine = engine.clone();
        let metrics = Arc::clone(&metrics);
        let offset = Duration::from_secs(2) * slot as u32 / n as u32;
        clients.push(tokio::spawn(async move {
            tokio::time::sleep(offset).await;
            let (mut tokens, mut ttfts, mut max_waiting) = (0u64, Vec::new(), 0);
            for i in 0u64.. {
                let sent = Instant::now();
                if sent >= m1 {
                    break;
                }
                max_waiting = max_waiting.max(metrics.waiting.load(Relaxed));
                let hashes = vec![slot as u64 * 1_000_000 + i]; // unique first block
                let mut rx = engine.submit(200, hashes, 64);
                let mut first = true;
                while rx.recv().await.is_some() {
                    let now = Instant::now();
                    if first && sent >= m0 {
                        ttfts.push((now - sent).as_secs_f64() * 1e3);
                    }
                    first = false;
                    if (m0..m1).contains(&now) {
                        tokens += 1;
                    }
                }
            }
            (tokens, ttfts, max_waiting)
        }));
    }
    let (mut tokens, mut ttfts, mut max_waiting) = (0, Vec::new(), 0);
    for client in clients {
        let (t, f, w) = client.await.unwrap();
        tokens += t;
        ttfts.extend(f);
        max_waiting = max_waiting.max(w);
    }
    cancel.cancel();
    task.await.unwrap();
    ttfts.sort_by(f64::total_cmp);
    Load {
        throughput: tokens as f64 / 30.0,
        ttft_p50_ms: ttfts[ttfts.len() / 2],
        max_waiting,
    }
}

#[tokio::test(start_paused = true)]
async fn throughput_saturates_at_max_num_seqs_then_ttft_grows() {
    let mut loads = Vec::new();
    for n in [1, 8, 32, 128] {
        loads.push(closed_loop(n).await);
    }
    let thr: Vec<f64> = loads.iter().map(|l| l.throughput).collect();
    let ttft: Vec<f64> = loads.iter().map(|l| l.ttft_p50_ms).collect();
    println!("throughput {thr:?} tokens/s, TTFT p50 {ttft:?} ms");
    // One sequence: a decode step is 8.25 ms, so about 121 tokens/s minus prefill steps.
    assert!((100.0..125.0).contains(&thr[0]), "{thr:?}");
    // Throughput rises with concurrency up to the batch bound...
    assert!(thr[1] > 5.0 * thr[0], "{thr:?}");
    assert!(thr[2] > 2.0 * thr[1], "{thr:?}");
    // ...where a decode step is 8 + 0.25 * 32 = 16 ms: 2,000 tokens/s at most, less the
    // steps that also prefill 200-token prompts (about 1,720 here).
    assert!((1600.0..2000.0).contains(&thr[2]), "{thr:?}");
    // Past it throughput is flat and a queue forms instead.
    assert!((thr[3] / thr[2] - 1.0).abs() < 0.05, "{thr:?}");
    assert_eq!(loads[2].max_waiting, 0);
    assert!(loads[3].max_waiting >= 64, "{}", loads[3].max_waiting);
    // Below the bound TTFT is a step or two; past it, about three request lifetimes (~1 s).
    assert!(ttft[0] < 20.0 && ttft[2] < 60.0, "{ttft:?}");
    assert!(ttft[3] > 2000.0, "{ttft:?}");
}

#[tokio::test(start_paused = true)]
async fn cached_prefix_shortens_prefill() {
    let metrics = Arc::new(Metrics::new(32768));
    let cancel = CancellationToken::new();
    let (engine, task) = spawn(&quiet_engine(), 1, Arc::clone(&metrics), cancel.clone());
    let prompt: Vec<u32> = (0..2500).collect();
    let hashes = crate::prefix_cache::block_hashes(&prompt, 16);
    let mut ttft = Vec::new();
    for _ in 0..2 {
        let sent = Instant::now();
        let mut rx = engine.submit(2500, hashes.clone(), 2);
        rx.recv().await.unwrap();
        ttft.push((Instant::now() - sent).as_secs_f64() * 1e3);
        while rx.recv().await.is_some() {}
    }
    // Cold: 8 + 0.25 + 2500 * 0.025 + attention 0.010 * 2500 * 1249.5 / 1000 = 101.99 ms.
    // Warm: 156 blocks (2,496 tokens) cached, so 4 tokens: 8 + 0.25 + 0.1 + attention
    // 0.010 * 4 * 2497.5 / 1000 = 8.45 ms. The timer wheel rounds each wake-up up to the
    // next millisecond.
    assert!((101.99..103.0).contains(&ttft[0]), "{ttft:?}");
    assert!((8.45..9.5).contains(&ttft[1]), "{ttft:?}");
    assert_eq!(metrics.cache_queries.load(Relaxed), 5000);
    assert_eq!(metrics.cache_hits.load(Relaxed), 2496);
    cancel.cancel();
    task.await.unwrap();
}

#[tokio::test(start_paused = true)]
async fn dropped_receiver_leaves_the_batch() {
    let metrics = Arc::new(Metrics::new(32768));
    let cancel = CancellationToken::new();
    let (engine, task) = spawn(&quiet_engine(), 1, Arc::clone(&metrics), cancel.clone());
    let mut rx = engine.submit(10, Vec::new(), 1_000_000);
    for _ in 0..3 {
        rx.recv().await.unwrap();
    }
    assert_eq!(metrics.running.load(Relaxed), 1);
    drop(rx);
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert_eq!(metrics.running.load(Relaxed), 0);
    cancel.cancel();
    task.await.unwrap();
    // A stopped engine closes new receivers at once.
    assert!(engine.submit(10, Vec::new(), 5).recv().await.is_none());
}
