//! `plateau validate`: checks a results directory with the core's checks
//! ([`plateau_model::validate::check_dir`], request records included) and prints every
//! finding; exit 1 when one fails, 2 when the directory holds no results.

use std::process::ExitCode;

use anyhow::anyhow;
use plateau_model::results::dir::ResultsDir;
use plateau_model::validate::{self, Records, Severity, Thresholds};

use crate::args::ValidateArgs;
use crate::exit::{self, BadInput, Failure};
use crate::report::results_dir;

/// Checks the results; `quiet` prints failures only.
pub fn validate(args: ValidateArgs, quiet: bool) -> Result<ExitCode, Failure> {
    if !(0.0..=1.0).contains(&args.max_error_rate) {
        return Err(Failure::bad_input(anyhow!(
            "--max-error-rate {}: expected a fraction between 0 and 1",
            args.max_error_rate
        )));
    }
    let root = results_dir(args.results_dir)?;
    let dir = ResultsDir::read(&root).bad_input()?;
    let thresholds = Thresholds {
        max_error_rate: args.max_error_rate,
        ..Thresholds::default()
    };
    let mut findings = validate::check_dir(&dir, &thresholds, Records::Count);
    findings.sort_by(|a, b| {
        b.severity
            .cmp(&a.severity)
            .then_with(|| plateau_model::natural::cmp(&a.cell, &b.cell))
    });
    let run = match dir.run_info() {
        Some(r) => format!("run.json: {} cells planned", r.cells.len()),
        None => "no readable run.json".into(),
    };
    println!(
        "{}: {} cells with a summary.json; {run}",
        root.display(),
        dir.cells.len()
    );
    let cell_w = findings.iter().map(|f| f.cell.len()).max().unwrap_or(0);
    let check_w = findings.iter().map(|f| f.check.len()).max().unwrap_or(0);
    for f in &findings {
        let word = match f.severity {
            Severity::Fail => "FAIL",
            Severity::Warn if quiet => continue,
            Severity::Warn => "warn",
        };
        println!(
            "{word}  {:<cell_w$}  {:<check_w$}  {}",
            f.cell, f.check, f.message
        );
    }
    let failed: Vec<&str> = findings
        .iter()
        .filter(|f| f.severity == Severity::Fail)
        .map(|f| f.cell.as_str())
        .collect();
    let warnings = findings.len() - failed.len();
    let mut cells = failed.clone();
    cells.sort_by(|a, b| plateau_model::natural::cmp(a, b));
    cells.dedup();
    if failed.is_empty() {
        println!("OK: every check passed ({warnings} warnings)");
        Ok(ExitCode::SUCCESS)
    } else {
        println!(
            "FAILED: {} failed checks in {} cells or the run ({warnings} warnings)",
            failed.len(),
            cells.len()
        );
        Ok(ExitCode::from(exit::VALIDATION))
    }
}
