//! `cargo xtask bench report`: how `plateau report` scales with a run's size. Builds a
//! results directory of `--cells` cells from one real cell of the report's fixtures (each
//! copy's summary rewritten to its own endpoint, scenario and concurrency, so that it lies
//! where it says it is; its records hard-linked, not copied), runs the release
//! `plateau report` on it and prints the wall time, the peak resident memory (the kernel's
//! `ru_maxrss` of the reaped child) and the size of report.html.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use anyhow::Context;
use serde_json::Value;

/// The fixture cell every copy comes from.
const FIXTURE: &str = "crates/report/tests/fixtures/clean/vllm/llama-8b/A1/c4";

/// Scenarios and concurrencies per endpoint: each endpoint holds 100 cells.
const SCENARIOS: usize = 10;
const LOADS: u32 = 10;

/// `bench report` options.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Cells in the generated run (a multiple of 100).
    #[arg(long, default_value_t = 10_000)]
    pub cells: usize,
    /// A `plateau` binary to measure instead of building this checkout's.
    #[arg(long)]
    pub plateau: Option<PathBuf>,
}

pub fn run(args: &Args) -> anyhow::Result<()> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let plateau = match &args.plateau {
        Some(p) => p.clone(),
        None => super::release_plateau()?,
    };
    let scratch = std::env::temp_dir().join(format!("plateau-report-scale-{}", std::process::id()));
    let results = scratch.join("results");
    generate(&root.join(FIXTURE), &results, args.cells)?;
    let started = Instant::now();
    let status = Command::new(&plateau)
        .args(["report", "--quiet", "--results-dir"])
        .arg(&results)
        .status()
        .with_context(|| format!("running {}", plateau.display()))?;
    let wall = started.elapsed();
    let rss_mb = peak_child_rss_kb() as f64 / 1024.0;
    let html = std::fs::metadata(results.join("report.html")).map_or(0, |m| m.len());
    println!(
        "plateau report, {} cells: exit {}, {:.1} s, peak RSS {rss_mb:.0} MB, report.html {:.1} MB",
        args.cells,
        status.code().unwrap_or(-1),
        wall.as_secs_f64(),
        html as f64 / 1e6
    );
    let _ = std::fs::remove_dir_all(&scratch);
    Ok(())
}

/// Writes `cells` copies of the cell in `fixture` under `out`, with a `run.json` listing
/// them.
fn generate(fixture: &Path, out: &Path, cells: usize) -> anyhow::Result<()> {
    let summary: Value = serde_json::from_slice(&std::fs::read(fixture.join("summary.json"))?)?;
    let run_path = fixture.join("../../../../run.json");
    let mut run: Value = serde_json::from_slice(&std::fs::read(&run_path)?)?;
    let mut listed = Vec::new();
    for i in 0..cells {
        let (endpoint, rest) = (
            i / (SCENARIOS * LOADS as usize),
            i % (SCENARIOS * LOADS as usize),
        );
        let (scenario, load) = (rest / LOADS as usize, 1u32 << (rest as u32 % LOADS));
        let rel = format!("e{endpoint}/llama-8b/s{scenario}/c{load}");
        let dir = out.join(&rel);
        std::fs::create_dir_all(&dir)?;
        let mut s = summary.clone();
        s["cell"]["endpoint"] = format!("e{endpoint}").into();
        s["cell"]["scenario"] = format!("s{scenario}").into();
        s["cell"]["concurrency"] = load.into();
        std::fs::write(dir.join("summary.json"), serde_json::to_vec(&s)?)?;
        std::fs::hard_link(
            fixture.join("requests.jsonl.gz"),
            dir.join("requests.jsonl.gz"),
        )
        .or_else(|_| {
            std::fs::copy(
                fixture.join("requests.jsonl.gz"),
                dir.join("requests.jsonl.gz"),
            )
            .map(|_| ())
        })?;
        listed.push(serde_json::json!({"path": rel, "state": "complete"}));
    }
    run["cells"] = listed.into();
    std::fs::write(out.join("run.json"), serde_json::to_vec(&run)?)?;
    Ok(())
}

/// The peak resident set of the largest child reaped so far, KB (Linux's unit).
fn peak_child_rss_kb() -> i64 {
    use nix::sys::resource::{UsageWho, getrusage};
    getrusage(UsageWho::RUSAGE_CHILDREN).map_or(0, |u| u.max_rss())
}
