//! `plateau merge SHARD_DIR... --out DIR`: the K results directories of a sharded run
//! joined into one (see `plateau_model::results::merge`); exit 2 naming the shard and
//! the field when they do not belong together, exit 1 when a merged cell is incomplete.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::anyhow;
use clap::Args;
use plateau_model::results::merge;

use crate::exit::{self, Failure};

/// `plateau merge`.
#[derive(Args)]
pub struct MergeArgs {
    /// The results directories of every runner (`plateau run --shard i/K`), in any order.
    #[arg(required = true, value_name = "SHARD_DIR")]
    pub shards: Vec<PathBuf>,
    /// The merged results directory (new, or empty).
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// Refuse a load shard whose clock's maximum error (adjtimex), or whose start after
    /// --start-at, is over this many milliseconds.
    #[arg(long, value_name = "MS", default_value_t = merge::MAX_CLOCK_ERROR_US as f64 / 1000.0)]
    pub max_clock_error_ms: f64,
}

/// Merges the shards and says what it wrote.
pub fn merge(args: MergeArgs) -> Result<ExitCode, Failure> {
    let bound_us = (args.max_clock_error_ms.max(0.0) * 1000.0) as u64;
    let merged = merge::merge(&args.shards, &args.out, bound_us).map_err(|e| {
        if e.is_bad_input() {
            Failure::bad_input(e.into())
        } else {
            Failure::io(anyhow!("cannot merge: {e}"))
        }
    })?;
    println!(
        "merged {} cells of {} shards (split by {}) into {}",
        merged.cells.len(),
        merged.shards,
        merged.by,
        args.out.display()
    );
    for (cell, why) in &merged.incomplete {
        tracing::error!("{cell}: {why}");
    }
    if merged.incomplete.is_empty() {
        Ok(ExitCode::SUCCESS)
    } else {
        Ok(ExitCode::from(exit::VALIDATION))
    }
}
