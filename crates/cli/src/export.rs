//! `plateau export`: a results directory rewritten as vLLM result files or a long CSV,
//! through `plateau_report::export` (which computes no metric).

use std::process::ExitCode;

use anyhow::anyhow;
use plateau_report::ReportError;
use plateau_report::export::{long_csv, vllm};

use crate::args::{ExportArgs, ExportFormat};
use crate::exit::Failure;
use crate::report::results_dir;

/// Writes the export and lists what it wrote; exit 2 when an input file could not be
/// read (everything else is still written).
pub fn export(args: ExportArgs) -> Result<ExitCode, Failure> {
    let results = results_dir(args.dir.or(args.results_dir))?;
    let written = match args.format {
        ExportFormat::Vllm => {
            let out = args
                .out
                .unwrap_or_else(|| results.join("export").join("vllm"));
            vllm::write(&results, &out)
        }
        ExportFormat::LongCsv => {
            let out = args
                .out
                .unwrap_or_else(|| results.join("export").join("metrics_long.csv"));
            long_csv::write(&results, &out)
        }
    }
    .map_err(|e| match e {
        ReportError::Output(_) | ReportError::Write { .. } => {
            Failure::io(anyhow!("cannot write the export: {e}"))
        }
        other => Failure::bad_input(other.into()),
    })?;
    println!(
        "{} cells exported ({} files):",
        written.cells,
        written.files.len()
    );
    for path in &written.files {
        println!("wrote {}", path.display());
    }
    crate::inputs::conclude(
        "the export",
        &written.unreadable,
        &written.missing,
        &written.warnings,
    )
}
