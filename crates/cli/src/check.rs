//! `plateau check`: a results directory judged against recorded runs by
//! [`plateau_history::gate`], the table printed (and written as markdown with --markdown),
//! and the exit code the verdict earns (0 pass, 1 regressed, 2 bad input, 3 not judged).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use plateau_history::gate::{self, Outcome};
use plateau_history::record::RunRecord;
use plateau_history::{Against, Filter, table};
use plateau_model::config::CheckConfig;
use plateau_model::results::dir::ResultsDir;

use crate::exit::Failure;
use crate::history::{failure, open};

/// Exit code: some gated number could not be judged.
pub const UNJUDGED: u8 = 3;

/// `plateau check`.
#[derive(Args)]
pub struct CheckArgs {
    /// The results directory to judge.
    pub dir: PathBuf,
    /// The baseline: a run id, `key=value` labels, `last N`, or labels and `last N`
    /// ("engine=vllm last 5"); runs started after this one are never part of it.
    #[arg(long)]
    pub against: String,
    /// The history database [default: history.sqlite in plateau's data folder].
    #[arg(long, value_name = "FILE")]
    pub db: Option<PathBuf>,
    /// Judge numbers of unsteady, overloaded or failed cells and small samples too,
    /// instead of exiting 3.
    #[arg(long)]
    pub allow_unsteady: bool,
    /// A tolerance over the config's `check`, e.g. `--tolerance tpot_p50=+2%`; repeat
    /// for more (any given replaces the config's whole set).
    #[arg(long, value_name = "NAME=CHANGE")]
    pub tolerance: Vec<String>,
    /// Also write the table as markdown to this file.
    #[arg(long, value_name = "FILE")]
    pub markdown: Option<PathBuf>,
    /// Bootstrap resamples per cell.
    #[arg(
        long,
        default_value_t = plateau_report::compare::RESAMPLES,
        value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1000..=100_000)
    )]
    pub resamples: usize,
}

/// Judges the run and prints the table; the exit code is the verdict.
pub fn check(args: CheckArgs) -> Result<ExitCode, Failure> {
    let store = open(args.db.clone())?;
    let against = Against::parse(&args.against).map_err(failure)?;
    let this = RunRecord::read(&args.dir, &[]).map_err(failure)?;
    let runs = match against {
        Against::Run(id) => vec![store.run(id).map_err(failure)?.0],
        Against::Select(f) => {
            // The past only: runs that started before this one, this one left out.
            let earlier = Filter {
                last: None,
                ..f.clone()
            };
            let mut rows: Vec<_> = store
                .runs(&earlier)
                .map_err(failure)?
                .into_iter()
                .filter(|r| r.key != this.key && r.started_at < started(&this))
                .collect();
            if let Some(n) = f.last {
                let skip = rows.len().saturating_sub(n);
                rows.drain(..skip);
            }
            rows
        }
    };
    if runs.is_empty() {
        return Err(failure(plateau_history::HistoryError::NoBaseline(format!(
            "no run in {} matches {:?} and started before {}",
            store.path().display(),
            args.against,
            args.dir.display()
        ))));
    }
    let baseline: Vec<(String, PathBuf)> = runs
        .iter()
        .map(|r| (format!("run {}", r.id), r.path.clone()))
        .collect();
    let opts = gate::Options {
        resamples: args.resamples,
        allow_unsteady: args.allow_unsteady,
        tolerances: tolerances(&args)?.tolerances(),
    };
    let findings = gate::check(&args.dir, &baseline, &opts).map_err(failure)?;
    let text = table::markdown(&findings);
    print!("{text}");
    if let Some(path) = &args.markdown {
        plateau_model::results::write_atomic(path, text.as_bytes())
            .map_err(|e| Failure::io(anyhow::anyhow!("cannot write {}: {e}", path.display())))?;
    }
    Ok(match findings.outcome() {
        Outcome::Pass => ExitCode::SUCCESS,
        Outcome::Regressed => ExitCode::from(1),
        Outcome::Unjudged => ExitCode::from(UNJUDGED),
    })
}

fn started(r: &RunRecord) -> String {
    plateau_history::store::timestamp(&r.started_at)
}

/// The tolerances: --tolerance flags, else the run's config (`run.json`), else defaults.
fn tolerances(args: &CheckArgs) -> Result<CheckConfig, Failure> {
    if !args.tolerance.is_empty() {
        let map = args
            .tolerance
            .iter()
            .map(|t| {
                t.split_once('=')
                    .map(|(k, v)| (k.trim().to_owned(), v.trim().to_owned()))
                    .ok_or_else(|| {
                        format!("--tolerance {t:?}: expected NAME=CHANGE such as tpot_p50=+3%")
                    })
            })
            .collect::<Result<_, _>>()
            .and_then(CheckConfig::from_map)
            .map_err(|e| Failure::bad_input(anyhow::anyhow!("{e}")))?;
        return Ok(map);
    }
    let dir = ResultsDir::read(&args.dir)
        .map_err(|e| Failure::bad_input(anyhow::anyhow!("{}: {e}", args.dir.display())))?;
    Ok(match dir.run {
        Some(Ok(info)) => info.config.check,
        _ => CheckConfig::default(),
    })
}
