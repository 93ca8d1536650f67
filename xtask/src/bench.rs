//! `cargo xtask bench`: the calibration benchmark with the simulator in its own process, so
//! the client's CPU time is the client's alone. Builds the release `plateau` binary, starts
//! `plateau sim --profile fixed`, and runs `cargo bench -p plateau-core --bench calibration`
//! against it; then the SSE parser micro-benchmark. `cargo xtask bench overhead` measures
//! the client's own cost instead ([`overhead`]); `cargo xtask bench report`, how the report
//! scales with a run's cell count ([`report_scale`]); `cargo xtask bench gate`, how often
//! `plateau check` raises a false alarm on unchanged runs ([`gate_null`]).

mod gate_null;
mod overhead;
mod report_scale;

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

use anyhow::{Context, bail};

/// Which benchmark.
#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(subcommand)]
    mode: Option<Mode>,
}

#[derive(clap::Subcommand, Debug)]
enum Mode {
    /// The client's own cost (CPU per streamed token, memory per in-flight request,
    /// start-up, timing error) against an exact-timing mock on its own core, at
    /// N = 1, 100, 1,000 and 4,096.
    Overhead(overhead::Args),
    /// `plateau report` on a generated run of `--cells` cells (default 10,000): wall time,
    /// peak memory, report.html size.
    Report(report_scale::Args),
    /// `plateau check` on seeded sequences of unchanged simulator runs: false alarms per
    /// check and per sequence of 12 runs.
    Gate(gate_null::Args),
    /// Spin on one core for `--burst-ms` of every `--period-ms`, until killed: the busy
    /// neighbour `overhead --steal-ms` puts beside the client.
    #[command(hide = true)]
    Spin {
        #[arg(long)]
        burst_ms: u64,
        #[arg(long, default_value_t = 20)]
        period_ms: u64,
    },
}

pub fn run(args: Args) -> anyhow::Result<()> {
    match args.mode {
        Some(Mode::Overhead(o)) => overhead::run(&o),
        Some(Mode::Report(r)) => report_scale::run(&r),
        Some(Mode::Gate(g)) => gate_null::run(&g),
        Some(Mode::Spin {
            burst_ms,
            period_ms,
        }) => spin(burst_ms, period_ms),
        None => calibration(),
    }
}

fn spin(burst_ms: u64, period_ms: u64) -> anyhow::Result<()> {
    let (burst, period) = (
        std::time::Duration::from_millis(burst_ms),
        std::time::Duration::from_millis(period_ms.max(burst_ms)),
    );
    loop {
        let start = std::time::Instant::now();
        while start.elapsed() < burst {
            std::hint::spin_loop();
        }
        std::thread::sleep(period.saturating_sub(start.elapsed()));
    }
}

/// Builds this checkout's release `plateau` and gives its path.
fn release_plateau() -> anyhow::Result<std::path::PathBuf> {
    let status = Command::new("cargo")
        .args([
            "build",
            "--release",
            "--quiet",
            "-p",
            "plateau-bench",
            "--bin",
            "plateau",
        ])
        .status()?;
    if !status.success() {
        bail!("building plateau failed");
    }
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    Ok(crate::target_dir(&root).join("release").join("plateau"))
}

fn calibration() -> anyhow::Result<()> {
    let binary = release_plateau()?;
    let mut sim = Command::new(&binary)
        .args(["sim", "--profile", "fixed", "--port", "0", "--quiet"])
        .stdout(Stdio::piped())
        .spawn()
        .with_context(|| format!("starting {}", binary.display()))?;
    let stdout = sim.stdout.take().context("sim stdout")?;
    let mut line = String::new();
    BufReader::new(stdout).read_line(&mut line)?;
    let url = line
        .trim()
        .rsplit(' ')
        .next()
        .unwrap_or_default()
        .to_owned();
    if !url.starts_with("http://") {
        let _ = sim.kill();
        bail!("unexpected first line from plateau sim: {line:?}");
    }
    eprintln!("simulator (fixed profile) at {url}");
    let result = Command::new("cargo")
        .args(["bench", "-p", "plateau-core", "--bench", "calibration"])
        .env("PLATEAU_BENCH_URL", &url)
        .status();
    let _ = sim.kill();
    let _ = sim.wait();
    if !result?.success() {
        bail!("the calibration benchmark failed");
    }
    let status = Command::new("cargo")
        .args(["bench", "-p", "plateau-core", "--bench", "sse"])
        .status()?;
    if !status.success() {
        bail!("the SSE benchmark failed");
    }
    Ok(())
}
