//! Shared setup: a simulator (or a test's own server) on loopback, a plan from JSON, a run
//! through the driver.

use std::path::PathBuf;
use std::sync::Arc;

use plateau_core::driver::RunReport;
use plateau_core::plan::Plan;
use plateau_core::tokens::Whitespace;
use plateau_core::workload::FixedPrompt;
use plateau_model::config::RunConfig;
use plateau_model::results::summary::CellSummary;
use plateau_sim::{Server, SimConfig};

/// The one prompt every request of these tests sends.
pub const PROMPT: &str = "Say something about closed-loop benchmarks.";

/// A results directory not yet made, inside a fresh temp directory (`plateau-it-<name>-XXXXXX`)
/// removed with everything in it when the guard is dropped: `(guard, results dir)`; keep the
/// guard bound until the test ends.
pub fn out_dir(name: &str) -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::Builder::new()
        .prefix(&format!("plateau-it-{name}-"))
        .tempdir()
        .unwrap();
    let out = tmp.path().join("results");
    (tmp, out)
}

/// Starts `sim`, runs `config` (JSON; endpoints are pointed at the simulator) with the
/// fixed built-in prompt, and stops the simulator.
pub async fn run(sim: SimConfig, config: serde_json::Value, out: &std::path::Path) -> RunReport {
    run_with(sim, config, out, false, "127.0.0.1:0").await
}

/// [`run`] with the simulator on `addr`, continuing the results in `out` when `resume` is
/// set (a resumed cell needs the same URL, so the same port).
pub async fn run_with(
    sim: SimConfig,
    config: serde_json::Value,
    out: &std::path::Path,
    resume: bool,
    addr: &str,
) -> RunReport {
    let server = Server::start(addr.parse().unwrap(), sim).await.unwrap();
    let url = format!("http://{}/v1", server.addr());
    let report = run_at(&url, config, out, resume).await;
    server.shutdown().await;
    report
}

/// Runs `config` (JSON; endpoints are pointed at `url`) with the fixed built-in prompt,
/// continuing the results in `out` when `resume` is set.
pub async fn run_at(
    url: &str,
    config: serde_json::Value,
    out: &std::path::Path,
    resume: bool,
) -> RunReport {
    run_joined(url, config, out, resume, None).await
}

/// [`run_at`] with the run's span receiver `spans` joining each cell's records.
pub async fn run_joined(
    url: &str,
    config: serde_json::Value,
    out: &std::path::Path,
    resume: bool,
    spans: Option<plateau_core::server_traces::Spans>,
) -> RunReport {
    let mut config: RunConfig = serde_json::from_value(config).unwrap();
    config.output_dir = out.to_owned();
    for e in &mut config.endpoints {
        e.url = Some(url.to_owned());
    }
    let plan = Plan::build(&config, &|_| None).unwrap();
    let workload = FixedPrompt::new(PROMPT, None);
    let mut ctx = plateau_testkit::driver::context(&plan, url, &workload, Arc::new(Whitespace));
    ctx.resume = resume;
    ctx.spans = spans.map(tokio::sync::Mutex::new);
    plateau_testkit::driver::run(&plan, ctx).await
}

/// The one summary with concurrency `n`.
pub fn at(report: &RunReport, n: u32) -> &CellSummary {
    report
        .summaries
        .iter()
        .find(|s| s.cell.load.concurrency == Some(n))
        .unwrap()
}

/// The one summary of an open loop at `rps`.
pub fn at_rate(report: &RunReport, rps: f64) -> &CellSummary {
    report
        .summaries
        .iter()
        .find(|s| s.cell.load.request_rate == Some(rps))
        .unwrap()
}
