//! One point of the overhead benchmark: its figures, computed from the client's summary, the
//! mock's counters and what was watched while it ran, and the table that prints them.

use std::time::Duration;

use plateau_model::results::summary::CellSummary;

use super::watch::{MockStats, Watch};
use super::{Args, FILL_S, STABILIZE_S, TOKENS, TTFT_MS};

/// One point's figures.
pub(super) struct Point {
    pub(super) n: u32,
    pub(super) itl_truth_ms: u64,
    pub(super) ttft_err_ms: Option<f64>,
    pub(super) itl_p99_ms: Option<f64>,
    /// The client's TTFT p50 less the mock's on the wire, ms.
    pub(super) ttft_err_wire_ms: Option<f64>,
    /// ITL p99 on the wire, ms.
    pub(super) wire_itl_p99_ms: Option<f64>,
    pub(super) cpu_us_per_token: Option<f64>,
    pub(super) client_cores: Option<f64>,
    pub(super) peak_rss_kib: u64,
    pub(super) rss_per_request_kib: Option<f64>,
    pub(super) failed: u64,
    pub(super) startup_ms: Option<f64>,
    pub(super) first_cell_request_ms: Option<f64>,
    pub(super) mock_cores: Option<f64>,
    /// Share of the client's CPU over Measure spent in the kernel (socket reads, the ACKs
    /// they send, epoll).
    pub(super) client_kernel_share: Option<f64>,
    pub(super) mock_late_p99_us: u64,
    pub(super) load: String,
}

/// What a point's figures are computed against besides its files.
pub(super) struct PointRun {
    pub(super) n: u32,
    pub(super) itl_ms: u64,
    pub(super) measure_s: u32,
    /// When `plateau run` was spawned, µs since the Unix epoch.
    pub(super) spawned_unix_us: u64,
    /// The load average when the point started.
    pub(super) load: String,
}

impl Point {
    /// The figures of a finished point: the client's summary, the mock's counters and what
    /// was watched while it ran.
    pub(super) fn new(
        run: &PointRun,
        summary: &CellSummary,
        stats: &MockStats,
        watch: &Watch,
    ) -> Point {
        let m = &summary.metrics;
        let tokens = m.throughput.output_tokens as f64;
        let client_cpu = summary.client.as_ref().and_then(|c| c.cpu_s);
        let since_spawn = |unix: Option<u64>| {
            unix.filter(|&u| u > 0)
                .map(|u| u.saturating_sub(run.spawned_unix_us) as f64 / 1e3)
        };
        let first_cell = stats.first_long_unix_us;
        // Measure runs from Fill + Stabilize after the cell's first request.
        let window = first_cell.map(|u| {
            let m0 = Duration::from_micros(u.saturating_sub(run.spawned_unix_us))
                + Duration::from_secs(u64::from(FILL_S + STABILIZE_S));
            (m0, m0 + Duration::from_secs(u64::from(run.measure_s)))
        });
        let wire = stats.wire_gaps > 0;
        Point {
            n: run.n,
            itl_truth_ms: run.itl_ms,
            ttft_err_ms: m.ttft_ms.as_ref().map(|d| d.p50 - TTFT_MS as f64),
            itl_p99_ms: m.itl_chunk_ms.as_ref().map(|d| d.p99),
            ttft_err_wire_ms: m
                .ttft_ms
                .as_ref()
                .filter(|_| wire)
                .map(|d| d.p50 - stats.wire_ttft_p50_us as f64 / 1e3),
            wire_itl_p99_ms: wire.then(|| stats.wire_itl_p99_us as f64 / 1e3),
            cpu_us_per_token: client_cpu
                .filter(|_| tokens > 0.0)
                .map(|c| c * 1e6 / tokens),
            client_cores: summary.client.as_ref().and_then(|c| c.cpu_cores_used),
            peak_rss_kib: watch.peak_rss_kib,
            rss_per_request_kib: watch.rss_per_request_kib(run.n),
            failed: m.requests.errors_by_kind.values().sum(),
            startup_ms: since_spawn(stats.first_any_unix_us),
            first_cell_request_ms: since_spawn(first_cell),
            mock_cores: window.and_then(|(m0, m1)| watch.mock_cores(m0, m1)),
            client_kernel_share: window.and_then(|(m0, m1)| watch.client_kernel_share(m0, m1)),
            mock_late_p99_us: stats.late_p99_us,
            load: run.load.clone(),
        }
    }
}

/// `v` to `prec` decimals, `-` when unmeasured (never 0).
pub(super) fn opt(v: Option<f64>, prec: usize) -> String {
    v.map_or("-".to_owned(), |v| format!("{v:.prec$}"))
}

/// The Markdown table of the points, after a line on how they were measured.
pub(super) fn print_table(points: &[Point], args: &Args) {
    println!(
        "client: release `plateau run`, pinned to core 1; mock: `overhead-mock`, pinned to core 0; \
         TTFT {TTFT_MS} ms, {TOKENS} tokens per reply, each drawn from {} words (Zipf)",
        args.words
    );
    if let Some(ms) = args.steal_ms {
        println!("another process spins on the client's core for {ms} ms of every 20 ms");
    }
    println!(
        "| N | ITL truth | TTFT p50 error | ITL p99 | TTFT p50 error vs the wire | ITL p99 on the wire | client CPU per token (Measure) | in the kernel | client cores | \
         peak RSS | RSS per in-flight request | failed | start-up to first request | to first cell request | \
         mock cores | mock late p99 | load avg |"
    );
    println!(
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"
    );
    for p in points {
        println!(
            "| {} | {} ms | {} ms | {} ms | {} ms | {} ms | {} us | {}% | {} | {:.0} MiB | {} KiB | {} | {} ms | {} ms | {} | {} us | {} |",
            p.n,
            p.itl_truth_ms,
            opt(p.ttft_err_ms, 2).replace("-0.00", "0.00"),
            opt(p.itl_p99_ms, 2),
            opt(p.ttft_err_wire_ms, 2),
            opt(p.wire_itl_p99_ms, 2),
            opt(p.cpu_us_per_token, 2),
            opt(p.client_kernel_share.map(|s| s * 100.0), 0),
            opt(p.client_cores, 2),
            p.peak_rss_kib as f64 / 1024.0,
            opt(p.rss_per_request_kib, 1),
            p.failed,
            opt(p.startup_ms, 0),
            opt(p.first_cell_request_ms, 0),
            opt(p.mock_cores, 2),
            p.mock_late_p99_us,
            p.load,
        );
    }
}
