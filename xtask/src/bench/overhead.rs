//! `cargo xtask bench overhead`: what the plateau client itself costs. For each N, an
//! exact-timing mock (`overhead-mock`: TTFT 50 ms, ITL 10 ms, 100 tokens) runs in its own
//! process pinned to core 0 and the release `plateau run` binary, pinned to core 1, runs one
//! closed-loop cell against it. Printed per N: TTFT p50 and ITL p99 against the mock's truth,
//! the client's CPU per 1k streamed tokens over Measure (its own getrusage, from
//! `summary.json`) and the share of it in the kernel (`/proc`), peak RSS and RSS per
//! in-flight request, failed requests, start-up to the first request (the corpus cache
//! warmed first by a dry run), and the mock's own CPU and lateness (so a mock out of CPU
//! shows). With `--floor`, each point runs again with `overhead-floor` in plateau's place
//! ([`floor`]), which shows what reading each event costs on this machine before any client
//! does its own work.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use anyhow::{Context, bail};
use plateau_model::results::summary::CellSummary;

mod floor;
mod watch;

use watch::{Watch, mock_stats};

/// Options of the overhead benchmark.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Concurrencies to run, one cell each.
    #[arg(long, value_delimiter = ',', default_values_t = [1u32, 100, 1000, 4096])]
    pub n: Vec<u32>,
    /// Measure window of each cell, s (Fill 1 s and Stabilize 2 s before it).
    #[arg(long, default_value_t = 5)]
    pub measure_seconds: u32,
    /// Most stream events per second the mock is asked for: a point whose N at ITL 10 ms
    /// would exceed it gets a longer ITL (N x 1000 / this, ms), which the table shows.
    #[arg(long, default_value_t = 100_000)]
    pub mock_rate: u32,
    /// A `plateau` binary to measure instead of building this checkout's (to compare
    /// before and after a change).
    #[arg(long)]
    pub plateau: Option<std::path::PathBuf>,
    /// Distinct token texts the mock's replies draw from, Zipf-distributed as in natural
    /// text (1: every token is ` hello`, which a client's memo of counted texts always
    /// finds).
    #[arg(long, default_value_t = 20_000)]
    pub words: usize,
    /// Also run each point with `overhead-floor`, the cheapest client that reads each
    /// event as it arrives, in plateau's place: what any such client pays here.
    #[arg(long)]
    pub floor: bool,
    /// Keep the client's core busy with another process for this many ms of every 20 ms
    /// (a client machine doing other work): shows how the stamps hold up when frames wait
    /// for the client.
    #[arg(long)]
    pub steal_ms: Option<u64>,
}

const TTFT_MS: u64 = 50;
const ITL_MS: u64 = 10;
const TOKENS: u32 = 100;
const FILL_S: u32 = 1;
const STABILIZE_S: u32 = 2;
/// How often the client's memory and the mock's counters are read.
const POLL: Duration = Duration::from_millis(10);

/// One point's figures.
struct Point {
    n: u32,
    itl_truth_ms: u64,
    ttft_err_ms: Option<f64>,
    itl_p99_ms: Option<f64>,
    /// The client's TTFT p50 less the mock's on the wire, ms.
    ttft_err_wire_ms: Option<f64>,
    /// ITL p99 on the wire, ms.
    wire_itl_p99_ms: Option<f64>,
    cpu_us_per_token: Option<f64>,
    client_cores: Option<f64>,
    peak_rss_kib: u64,
    rss_per_request_kib: Option<f64>,
    failed: u64,
    startup_ms: Option<f64>,
    first_cell_request_ms: Option<f64>,
    mock_cores: Option<f64>,
    /// Share of the client's CPU over Measure spent in the kernel (socket reads, the ACKs
    /// they send, epoll).
    client_kernel_share: Option<f64>,
    mock_late_p99_us: u64,
    load: String,
}

pub fn run(args: &Args) -> anyhow::Result<()> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let release = crate::target_dir(&root).join("release");
    // One cargo invocation for all the binaries: built apart, their dependencies resolve to
    // different feature sets and each build recompiles what the other just built.
    const HARNESS: [&str; 6] = [
        "-p",
        "xtask",
        "--bin",
        "overhead-mock",
        "--bin",
        "overhead-floor",
    ];
    let plateau = match &args.plateau {
        Some(p) => {
            build(&HARNESS)?;
            p.clone()
        }
        None => {
            build(&[&["-p", "plateau-bench", "--bin", "plateau"][..], &HARNESS].concat())?;
            release.join("plateau")
        }
    };
    let scratch = std::env::temp_dir().join(format!("plateau-overhead-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).with_context(|| format!("creating {}", scratch.display()))?;
    warm_corpus_cache(&plateau, &scratch)?;
    let (mut points, mut floors) = (Vec::new(), Vec::new());
    for &n in &args.n {
        let itl = ITL_MS.max((u64::from(n) * 1000).div_ceil(u64::from(args.mock_rate.max(1))));
        eprintln!("N = {n}: ITL {itl} ms ...");
        let point = one_point(&plateau, &release, &scratch, n, itl, args);
        points.push(point?);
        if args.floor {
            eprintln!("N = {n}: the floor client ...");
            floors.push(floor::point(&release, n, itl, args)?);
        }
    }
    let _ = std::fs::remove_dir_all(&scratch);
    print_table(&points, args);
    if args.floor {
        floor::print_table(&floors);
    }
    Ok(())
}

/// Start-up is measured with the corpus cache filled, as on every run after the first:
/// a dry run of the same scenario fills it (the first run ever tokenizes the corpus).
fn warm_corpus_cache(plateau: &Path, scratch: &Path) -> anyhow::Result<()> {
    let config = scratch.join("warm.json");
    let body = serde_json::json!({
        "endpoints": [{"name": "mock", "engine": "openai", "url": "http://127.0.0.1:9/v1"}],
        "models": [{"id": "m", "name": "mock"}],
        "scenarios": ["A1"],
        "batch_sizes": [1],
        "output_dir": scratch.join("warm"),
    });
    std::fs::write(&config, serde_json::to_vec_pretty(&body)?)?;
    let started = Instant::now();
    let status = Command::new(plateau)
        .args(["run", "--dry-run", "--quiet", "--config"])
        .arg(&config)
        .stdout(Stdio::null())
        .status()
        .context("running plateau run --dry-run")?;
    if !status.success() {
        bail!("plateau run --dry-run exited with {status}");
    }
    eprintln!(
        "corpus cache warmed by a dry run ({:.0} ms)",
        started.elapsed().as_secs_f64() * 1e3
    );
    Ok(())
}

fn build(what: &[&str]) -> anyhow::Result<()> {
    let status = Command::new("cargo")
        .args(["build", "--release", "--quiet"])
        .args(what)
        .status()?;
    if !status.success() {
        bail!("cargo build --release {} failed", what.join(" "));
    }
    Ok(())
}

/// A child process killed when dropped (the mock, or a client left behind by an error).
struct Reaped(Child);

impl Drop for Reaped {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn one_point(
    plateau: &Path,
    release: &Path,
    scratch: &Path,
    n: u32,
    itl_ms: u64,
    args: &Args,
) -> anyhow::Result<Point> {
    let measure_s = args.measure_seconds;
    let (mock, url, addr) = start_mock(release, itl_ms, args)?;

    let out = scratch.join(format!("c{n}"));
    let config = scratch.join(format!("c{n}.json"));
    let body = serde_json::json!({
        "endpoints": [{"name": "mock", "engine": "openai", "url": url}],
        "models": [{"id": "m", "name": "mock"}],
        "scenarios": ["A1"],
        "batch_sizes": [n],
        "fill_seconds": FILL_S,
        "stabilize_seconds": STABILIZE_S,
        "measure_seconds": measure_s,
        "drain_seconds": 5,
        "max_tokens": TOKENS,
        "output_dir": out,
    });
    std::fs::write(&config, serde_json::to_vec_pretty(&body)?)?;
    let load = std::fs::read_to_string("/proc/loadavg")
        .map(|l| l.split(' ').take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_default();

    let _busy = steal(args)?;
    let spawned_unix_us = unix_us();
    let client = Command::new("taskset")
        .args(["-c", "1"])
        .arg(plateau)
        .args(["run", "--quiet", "--config"])
        .arg(&config)
        .stdout(Stdio::null())
        .spawn()
        .context("starting plateau run under taskset")?;
    let client_pid = client.id();
    let mut client = Reaped(client);
    let started = Instant::now();
    let mut watch = Watch::default();
    let status = loop {
        if let Some(status) = client.0.try_wait()? {
            break status;
        }
        watch.poll(client_pid, mock.0.id(), &addr, started.elapsed(), n);
        std::thread::sleep(POLL);
    };
    let stats = mock_stats(&addr).unwrap_or_default();
    drop(mock);
    if !status.success() && status.code() != Some(1) {
        bail!("plateau run at N = {n} exited with {status}");
    }
    let path = out.join("mock/m/A1").join(format!("c{n}/summary.json"));
    let text =
        std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
    let summary: CellSummary =
        serde_json::from_str(&text).with_context(|| format!("parsing {}", path.display()))?;
    let m = &summary.metrics;
    let tokens = m.throughput.output_tokens as f64;
    let client_cpu = summary.client.as_ref().and_then(|c| c.cpu_s);
    let since_spawn = |unix: Option<u64>| {
        unix.filter(|&u| u > 0)
            .map(|u| u.saturating_sub(spawned_unix_us) as f64 / 1e3)
    };
    let first_cell = stats.first_long_unix_us;
    // Measure runs from Fill + Stabilize after the cell's first request.
    let m0 = first_cell.map(|u| {
        Duration::from_micros(u.saturating_sub(spawned_unix_us))
            + Duration::from_secs(u64::from(FILL_S + STABILIZE_S))
    });
    Ok(Point {
        n,
        itl_truth_ms: itl_ms,
        ttft_err_ms: m.ttft_ms.as_ref().map(|d| d.p50 - TTFT_MS as f64),
        itl_p99_ms: m.itl_chunk_ms.as_ref().map(|d| d.p99),
        ttft_err_wire_ms: m
            .ttft_ms
            .as_ref()
            .filter(|_| stats.wire_gaps > 0)
            .map(|d| d.p50 - stats.wire_ttft_p50_us as f64 / 1e3),
        wire_itl_p99_ms: (stats.wire_gaps > 0).then(|| stats.wire_itl_p99_us as f64 / 1e3),
        cpu_us_per_token: client_cpu
            .filter(|_| tokens > 0.0)
            .map(|c| c * 1e6 / tokens),
        client_cores: summary.client.as_ref().and_then(|c| c.cpu_cores_used),
        peak_rss_kib: watch.peak_rss_kib,
        rss_per_request_kib: watch.rss_per_request_kib(n),
        failed: m.requests.errors_by_kind.values().sum(),
        startup_ms: since_spawn(stats.first_any_unix_us),
        first_cell_request_ms: since_spawn(first_cell),
        mock_cores: m0
            .and_then(|m0| watch.mock_cores(m0, m0 + Duration::from_secs(u64::from(measure_s)))),
        client_kernel_share: m0.and_then(|m0| {
            watch.client_kernel_share(m0, m0 + Duration::from_secs(u64::from(measure_s)))
        }),
        mock_late_p99_us: stats.late_p99_us,
        load,
    })
}

/// Starts `overhead-mock` on core 0 for one point: the child, its base URL and its
/// host:port.
fn start_mock(
    release: &Path,
    itl_ms: u64,
    args: &Args,
) -> anyhow::Result<(Reaped, String, String)> {
    let mut mock = Command::new("taskset")
        .args(["-c", "0"])
        .arg(release.join("overhead-mock"))
        .args([
            "--ttft-ms",
            &TTFT_MS.to_string(),
            "--itl-ms",
            &itl_ms.to_string(),
        ])
        .args(["--tokens", &TOKENS.to_string()])
        .args(["--words", &args.words.to_string()])
        .args([
            "--window-from-ms",
            &(u64::from(FILL_S + STABILIZE_S) * 1000).to_string(),
            "--window-ms",
            &(u64::from(args.measure_seconds) * 1000).to_string(),
        ])
        .stdout(Stdio::piped())
        .spawn()
        .context("starting overhead-mock under taskset")?;
    let stdout = mock.stdout.take().context("overhead-mock stdout")?;
    let mock = Reaped(mock);
    let mut line = String::new();
    BufReader::new(stdout).read_line(&mut line)?;
    let Some(url) = line
        .trim()
        .rsplit(' ')
        .next()
        .filter(|u| u.starts_with("http://"))
    else {
        bail!("unexpected first line from overhead-mock: {line:?}");
    };
    let addr = url
        .trim_start_matches("http://")
        .trim_end_matches("/v1")
        .to_owned();

    Ok((mock, url.to_owned(), addr))
}

/// With `--steal-ms`, the spinner on the client's core (killed when dropped).
fn steal(args: &Args) -> anyhow::Result<Option<Reaped>> {
    let Some(ms) = args.steal_ms else {
        return Ok(None);
    };
    let spinner = Command::new("taskset")
        .args(["-c", "1"])
        .arg(std::env::current_exe()?)
        .args(["bench", "spin", "--burst-ms", &ms.to_string()])
        .spawn()
        .context("starting the spinner under taskset")?;
    Ok(Some(Reaped(spinner)))
}

fn unix_us() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_micros()).unwrap_or(u64::MAX))
}

/// `v` to `prec` decimals, `-` when unmeasured (never 0).
fn opt(v: Option<f64>, prec: usize) -> String {
    v.map_or("-".to_owned(), |v| format!("{v:.prec$}"))
}

fn print_table(points: &[Point], args: &Args) {
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
