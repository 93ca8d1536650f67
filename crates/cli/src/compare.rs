//! `plateau compare`: a baseline results directory against one or more candidates, through
//! [`plateau_report::compare::compare`]: matched cells, differences with 95% intervals and
//! p-values, compare.html/.md/.csv and figures.

use std::process::ExitCode;

use anyhow::anyhow;
use plateau_report::ReportError;
use plateau_report::compare::{self, Options};

use crate::args::CompareArgs;
use crate::exit::Failure;

/// Writes the comparison. Exit 2 when a directory cannot be read or holds no cells, or
/// when some records could not be read (the other cells are still compared and written).
pub fn compare(args: CompareArgs) -> Result<ExitCode, Failure> {
    let dirs: Vec<_> = std::iter::once(args.baseline)
        .chain(args.candidates)
        .collect();
    let mut opts = Options::new(dirs, &args.out);
    opts.resamples = args.resamples;
    opts.include_unsteady = args.include_unsteady;
    let out = compare::compare(&opts).map_err(|e| match e {
        ReportError::Draw { .. } | ReportError::Font => Failure::other(e.into()),
        ReportError::Output(_) | ReportError::Write { .. } => {
            Failure::io(anyhow!("cannot write the comparison: {e}"))
        }
        other => Failure::bad_input(other.into()),
    })?;
    print!("{}", out.describe());
    crate::inputs::conclude("the comparison", &out.unreadable, &[], &out.warnings)
}
