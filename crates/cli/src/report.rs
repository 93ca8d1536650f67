//! `plateau report`: figures, report.html, summary.md and summary.csv from a results
//! directory (or several side by side, written to `--out`), through the same library call
//! as `cargo xtask figures`.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use anyhow::anyhow;
use plateau_report::{Options, ReportError};

use crate::args::ReportArgs;
use crate::exit::{BadInput, Failure};
use crate::load;

/// Writes the report.
pub fn report(args: ReportArgs) -> Result<ExitCode, Failure> {
    let started = Instant::now();
    let mut dirs = args.dirs.into_iter();
    let (results_dir, more) = match dirs.next() {
        Some(first) => (first, dirs.collect::<Vec<_>>()),
        None => (results_dir(args.results_dir)?, Vec::new()),
    };
    let figures_dir = match (args.figures_dir, more.is_empty()) {
        (Some(dir), _) => dir,
        // Inside the results, so the next run's report does not overwrite this one's.
        (None, true) => results_dir.join("figures"),
        (None, false) => args.out.join("figures"),
    };
    let mut opts = Options::new(&results_dir, &figures_dir);
    opts.compare_at = args.compare_at;
    if !more.is_empty() {
        opts.out_dir = Some(args.out);
        opts.more_dirs = more;
    }
    let out = plateau_report::render(&opts).map_err(|e| match e {
        ReportError::Draw { .. } | ReportError::Font => Failure::other(e.into()),
        ReportError::Output(_) | ReportError::Write { .. } => {
            Failure::io(anyhow!("cannot write the report: {e}"))
        }
        other => Failure::bad_input(other.into()),
    })?;
    print!("{}", out.describe(&figures_dir));
    println!("done in {:.1} s", started.elapsed().as_secs_f64());
    crate::inputs::conclude("the report", &out.unreadable, &out.missing, &out.warnings)
}

/// `--results-dir`, else the `output_dir` of `benchmark_config.json` when the current
/// directory has one, else that of the built-in default (`results/default`).
pub fn results_dir(given: Option<PathBuf>) -> Result<PathBuf, Failure> {
    if let Some(dir) = given {
        return Ok(dir);
    }
    let loaded = load::Source::of(None)
        .load(&[], None)
        .map_err(|e| e.context("reading the default results directory (or pass --results-dir)"))
        .bad_input()?;
    Ok(loaded.config.output_dir)
}
