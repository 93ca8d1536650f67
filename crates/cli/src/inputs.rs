//! What a reader of results (`report`, `export`, `compare`) found wrong with its input,
//! said the same way by each: warnings first (files from a newer plateau), then files that
//! could not be read and links not followed (exit 2), then cells that ran but have no
//! summary (exit 1), each named; the output covers everything else.

use std::process::ExitCode;

use anyhow::anyhow;
use plateau_model::results::SUMMARY_FILE;
use plateau_model::results::dir::Missing;

use crate::exit::Failure;

/// The exit of a reader that wrote `what` ("the report") from its input.
pub fn conclude(
    what: &str,
    unreadable: &[String],
    missing: &[Missing],
    warnings: &[String],
) -> Result<ExitCode, Failure> {
    for w in warnings {
        tracing::warn!("{w}");
    }
    if !unreadable.is_empty() {
        for e in unreadable {
            eprintln!("error: {e}");
        }
        return Err(Failure::bad_input(anyhow!(
            "{} input file(s) could not be read; {what} covers the rest",
            unreadable.len()
        )));
    }
    if !missing.is_empty() {
        for m in missing {
            eprintln!("error: {}: no {SUMMARY_FILE}: {}", m.rel, m.why);
        }
        return Err(Failure::other(anyhow!(
            "{} cell(s) ran but have no {SUMMARY_FILE}, so {what} leaves them out: rerun them \
             with `plateau run --resume`",
            missing.len()
        )));
    }
    Ok(ExitCode::SUCCESS)
}
