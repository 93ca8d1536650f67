//! Calibration benchmark: runs the closed loop against the simulator's fixed profile (TTFT
//! 100 ms, ITL 20 ms, 64 tokens) at N = 1, 64, 256, 1024 and prints the measured TTFT and
//! TPOT error, the achieved concurrency and the client's CPU time per streamed token.
//!
//! `cargo xtask bench` runs it with the simulator in its own process (`PLATEAU_BENCH_URL`),
//! so the CPU figure is the client's alone; run directly, the simulator runs in-process and
//! the CPU figure includes it.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    missing_docs,
    reason = "a benchmark binary"
)]

use std::sync::Arc;

use plateau_core::live::Live;
use plateau_core::plan::Plan;
use plateau_core::tokens::Whitespace;
use plateau_core::workload::FixedPrompt;
use plateau_model::config::RunConfig;

/// This process's user + system CPU time in seconds, from /proc (all threads).
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // Fields after the parenthesised command name; utime and stime are fields 14 and 15.
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks: f64 = fields
        .get(11)
        .and_then(|u| u.parse::<f64>().ok())
        .unwrap_or(0.0)
        + fields
            .get(12)
            .and_then(|s| s.parse::<f64>().ok())
            .unwrap_or(0.0);
    ticks / 100.0 // USER_HZ is 100 on Linux
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        println!("calibration: benchmark");
        return;
    }
    let _ = rlimit::increase_nofile_limit(8192);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let (url, server) = match std::env::var("PLATEAU_BENCH_URL") {
            Ok(url) => (url, None),
            Err(_) => {
                let server = plateau_sim::Server::start(
                    "127.0.0.1:0".parse().unwrap(),
                    plateau_sim::SimConfig::from_profile("fixed").unwrap(),
                )
                .await
                .unwrap();
                eprintln!("note: simulator in-process; CPU per token includes it (use `cargo xtask bench`)");
                (format!("http://{}/v1", server.addr()), Some(server))
            }
        };
        println!("{:>6} {:>10} {:>10} {:>10} {:>10} {:>9} {:>10} {:>12}", "N", "TTFT p50", "TTFT err", "TPOT p50", "TPOT err", "conc", "tok/s", "CPU us/tok");
        for n in [1u32, 64, 256, 1024] {
            let out = std::env::temp_dir().join(format!("plateau-bench-{}-{n}", std::process::id()));
            let config: RunConfig = serde_json::from_value(serde_json::json!({
                "endpoints": [{"name": "fixed", "engine": "sim", "url": url}],
                "models": [{"id": "m", "name": "plateau-sim"}],
                "scenarios": ["A1"],
                "batch_sizes": [n],
                "fill_seconds": 2, "stabilize_seconds": 2, "measure_seconds": 6, "drain_seconds": 5,
                "max_tokens": 64,
                "output_dir": out,
            }))
            .unwrap();
            let plan = Plan::build(&config, &|_| None).unwrap();
            let live = Arc::new(Live::default());
            let workload = FixedPrompt::new("Say something about closed-loop benchmarks.", None);
            let cpu0 = cpu_seconds();
            let t0 = std::time::Instant::now();
            let mut ctx =
                plateau_testkit::driver::context(&plan, &url, &workload, Arc::new(Whitespace));
            ctx.live = live.clone();
            let report = plateau_testkit::driver::run(&plan, ctx).await;
            let cpu = cpu_seconds() - cpu0;
            let wall = t0.elapsed().as_secs_f64();
            let tokens = live.snapshot().output_tokens as f64;
            let m = &report.summaries[0].metrics;
            let ttft = m.ttft_ms.as_ref().map_or(f64::NAN, |d| d.p50);
            let tpot = m.tpot_ms.as_ref().map_or(f64::NAN, |d| d.p50);
            println!(
                "{n:>6} {ttft:>8.2}ms {:>+8.2}ms {tpot:>8.3}ms {:>+8.3}ms {:>9.2} {:>10.0} {:>12.2}",
                ttft - 100.0,
                tpot - 20.0,
                m.concurrency.mean,
                tokens / wall,
                cpu * 1e6 / tokens.max(1.0)
            );
            if m.requests.measured_errors > 0 {
                println!("       errors: {:?}", m.requests.measured_errors_by_kind);
            }
            let _ = std::fs::remove_dir_all(out);
        }
        if let Some(s) = server {
            s.shutdown().await;
        }
    });
}
