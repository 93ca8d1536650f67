//! `cargo xtask figures`: the same figures, report.html, summary.md and summary.csv as
//! `plateau report`, from the same library call ([`plateau_report::render`]).

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use plateau_model::config::RunConfig;
use plateau_report::Options;

/// Flags of `cargo xtask figures` (those of `plateau report`).
#[derive(clap::Args)]
pub struct Args {
    /// The results directory [default: output_dir of benchmark_config.json, else
    /// results/default].
    #[arg(long)]
    results_dir: Option<PathBuf>,
    /// Where the PNG and SVG figures go (default: `<results-dir>/figures`).
    #[arg(long)]
    figures_dir: Option<PathBuf>,
    /// Concurrency of the engine comparison [default: the largest every endpoint ran].
    #[arg(long, value_name = "N")]
    compare_at: Option<u32>,
}

/// Draws the figures and writes the reports.
pub fn run(args: Args) -> anyhow::Result<()> {
    let results_dir = match args.results_dir {
        Some(dir) => dir,
        None => default_results_dir()?,
    };
    let figures_dir = args
        .figures_dir
        .unwrap_or_else(|| results_dir.join("figures"));
    let mut opts = Options::new(&results_dir, &figures_dir);
    opts.compare_at = args.compare_at;
    let out = plateau_report::render(&opts)?;
    print!("{}", out.describe(&figures_dir));
    if !out.unreadable.is_empty() {
        for e in &out.unreadable {
            eprintln!("error: {e}");
        }
        bail!(
            "{} input file(s) could not be read; the report covers the rest",
            out.unreadable.len()
        );
    }
    Ok(())
}

/// `output_dir` of `benchmark_config.json` when that file exists, else `results/default`
/// (the file alone: `plateau report` also applies `PLATEAU__` environment overrides).
fn default_results_dir() -> anyhow::Result<PathBuf> {
    let path = Path::new("benchmark_config.json");
    if !path.is_file() {
        return Ok(PathBuf::from("results/default"));
    }
    let text = std::fs::read_to_string(path).with_context(|| path.display().to_string())?;
    let config: RunConfig = serde_json::from_str(&text)
        .with_context(|| format!("{} (or pass --results-dir)", path.display()))?;
    Ok(config.output_dir)
}
