//! `cargo xtask bench overhead --floor`: each point run again with `overhead-floor` in
//! plateau's place, the cheapest client that still reads each event when it arrives
//! (stamp, count, find the reply's end; no parsing). Its CPU per token is what any such
//! client pays on this machine, mostly in the kernel; plateau's figure less this one is
//! what plateau's own work costs.

use std::path::Path;
use std::process::{Command, Stdio};

use anyhow::{Context, bail};

use super::point::opt;
use super::{Args, FILL_S, STABILIZE_S, TTFT_MS, start_mock, steal, watch::mock_stats};

/// What `overhead-floor` prints, and the mock's truth beside it.
#[derive(Debug, serde::Deserialize)]
pub(super) struct FloorPoint {
    pub(super) n: u32,
    pub(super) tokens: u64,
    pub(super) cpu_us_per_token: Option<f64>,
    pub(super) kernel_share: Option<f64>,
    pub(super) cores: f64,
    /// TCP segments the machine sent per token: the mock's data segment and the client's
    /// ACK of it make 2.
    pub(super) segments_per_token: Option<f64>,
    pub(super) ttft_p50_ms: Option<f64>,
    pub(super) itl_p99_ms: Option<f64>,
    #[serde(skip)]
    pub(super) itl_truth_ms: u64,
    #[serde(skip)]
    pub(super) wire_ttft_p50_ms: Option<f64>,
    #[serde(skip)]
    pub(super) wire_itl_p99_ms: Option<f64>,
}

/// Runs the floor client at `n` against a mock of its own, pinned as plateau is.
pub(super) fn point(
    release: &Path,
    n: u32,
    itl_ms: u64,
    args: &Args,
) -> anyhow::Result<FloorPoint> {
    let (mock, _, addr) = start_mock(release, itl_ms, args)?;
    let _busy = steal(args)?;
    let out = Command::new("taskset")
        .args(["-c", "1"])
        .arg(release.join("overhead-floor"))
        .args(["--addr", &addr, "--n", &n.to_string()])
        .args(["--fill-ms", &(u64::from(FILL_S) * 1000).to_string()])
        .args([
            "--warm-ms",
            &(u64::from(FILL_S + STABILIZE_S) * 1000).to_string(),
        ])
        .args([
            "--measure-ms",
            &(u64::from(args.measure_seconds) * 1000).to_string(),
        ])
        .stderr(Stdio::inherit())
        .output()
        .context("running overhead-floor under taskset")?;
    let stats = mock_stats(&addr).unwrap_or_default();
    drop(mock);
    if !out.status.success() {
        bail!("overhead-floor at N = {n} exited with {}", out.status);
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let mut p: FloorPoint = serde_json::from_str(text.trim())
        .with_context(|| format!("overhead-floor printed {text:?}"))?;
    p.itl_truth_ms = itl_ms;
    p.wire_ttft_p50_ms = (stats.wire_gaps > 0).then(|| stats.wire_ttft_p50_us as f64 / 1e3);
    p.wire_itl_p99_ms = (stats.wire_gaps > 0).then(|| stats.wire_itl_p99_us as f64 / 1e3);
    Ok(p)
}

pub(super) fn print_table(points: &[FloorPoint]) {
    println!();
    println!(
        "floor: `overhead-floor` in plateau's place (reads each event as it arrives; stamps \
         and counts it; no HTTP, SSE or JSON parsing), pinned to core 1, against the same mock"
    );
    println!(
        "| N | ITL truth | TTFT p50 error | TTFT p50 error vs the wire | ITL p99 | ITL p99 on the wire | \
         client CPU per token | in the kernel | client cores | TCP segments per token |"
    );
    println!("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for p in points {
        println!(
            "| {} | {} ms | {} ms | {} ms | {} ms | {} ms | {} us | {}% | {:.2} | {} |",
            p.n,
            p.itl_truth_ms,
            opt(p.ttft_p50_ms.map(|t| t - TTFT_MS as f64), 2),
            opt(p.ttft_p50_ms.zip(p.wire_ttft_p50_ms).map(|(t, w)| t - w), 2),
            opt(p.itl_p99_ms, 2),
            opt(p.wire_itl_p99_ms, 2),
            opt(p.cpu_us_per_token, 2),
            opt(p.kernel_share.map(|s| s * 100.0), 0),
            p.cores,
            opt(p.segments_per_token, 2),
        );
    }
    if points.iter().any(|p| p.tokens == 0) {
        println!("(a point with no tokens had no stream running in its window)");
    }
}
