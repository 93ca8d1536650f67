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
mod point;
mod watch;

use point::{Point, PointRun};
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

pub(super) const TTFT_MS: u64 = 50;
const ITL_MS: u64 = 10;
pub(super) const TOKENS: u32 = 100;
pub(super) const FILL_S: u32 = 1;
pub(super) const STABILIZE_S: u32 = 2;
/// How often the client's memory and the mock's counters are read.
const POLL: Duration = Duration::from_millis(10);

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
    point::print_table(&points, args);
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
    let (mock, url, addr) = start_mock(release, itl_ms, args)?;
    let out = scratch.join(format!("c{n}"));
    let config = scratch.join(format!("c{n}.json"));
    write_config(&config, &out, &url, n, args.measure_seconds)?;
    let load = std::fs::read_to_string("/proc/loadavg")
        .map(|l| l.split(' ').take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_default();

    let _busy = steal(args)?;
    let spawned_unix_us = unix_us();
    let (status, watch) = watch_client(plateau, &config, &mock, &addr, n)?;
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
    let run = PointRun {
        n,
        itl_ms,
        measure_s: args.measure_seconds,
        spawned_unix_us,
        load,
    };
    Ok(Point::new(&run, &summary, &stats, &watch))
}

/// The one-cell closed-loop config of a point against the mock at `url`.
fn write_config(
    config: &Path,
    out: &Path,
    url: &str,
    n: u32,
    measure_s: u32,
) -> anyhow::Result<()> {
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
    std::fs::write(config, serde_json::to_vec_pretty(&body)?)
        .with_context(|| format!("writing {}", config.display()))
}

/// Runs `plateau run` on core 1 and watches it and the mock every [`POLL`] until it exits.
fn watch_client(
    plateau: &Path,
    config: &Path,
    mock: &Reaped,
    addr: &str,
    n: u32,
) -> anyhow::Result<(std::process::ExitStatus, Watch)> {
    let client = Command::new("taskset")
        .args(["-c", "1"])
        .arg(plateau)
        .args(["run", "--quiet", "--config"])
        .arg(config)
        .stdout(Stdio::null())
        .spawn()
        .context("starting plateau run under taskset")?;
    let client_pid = client.id();
    let mut client = Reaped(client);
    let started = Instant::now();
    let mut watch = Watch::default();
    loop {
        if let Some(status) = client.0.try_wait()? {
            return Ok((status, watch));
        }
        watch.poll(client_pid, mock.0.id(), addr, started.elapsed(), n);
        std::thread::sleep(POLL);
    }
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
