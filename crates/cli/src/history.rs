//! `plateau history`: the runs database ([`plateau_history::Store`]) from the command line:
//! add a results directory, list and show runs with label filters, remove runs, and write
//! the trends report. Also where `run --history` and `check` open the database.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::anyhow;
use clap::{Args, Subcommand};
use plateau_history::record::RunRecord;
use plateau_history::store::Added;
use plateau_history::{Filter, HistoryError, Store, filter};

use crate::exit::Failure;

/// `plateau history`.
#[derive(Args)]
pub struct HistoryArgs {
    /// The history database [default: history.sqlite in plateau's data folder,
    /// `$XDG_DATA_HOME/plateau` or `~/.local/share/plateau`].
    #[arg(long, global = true, value_name = "FILE")]
    pub db: Option<PathBuf>,
    /// What to do.
    #[command(subcommand)]
    pub command: HistoryCommand,
}

/// `plateau history <command>`.
#[derive(Subcommand)]
pub enum HistoryCommand {
    /// Record a results directory (adding the same run again changes nothing).
    Add {
        /// The results directory.
        dir: PathBuf,
        /// A label of the run, `key=value` (the served stack's `commit=...`,
        /// `engine_version=...`); repeat for more. The endpoints' own labels are kept too.
        #[arg(long, value_name = "KEY=VALUE")]
        label: Vec<String>,
    },
    /// List recorded runs, oldest first.
    List {
        /// Which runs: `key=value` labels and/or `last N` (e.g. "engine=vllm last 5").
        filter: Vec<String>,
    },
    /// One run: its labels, cells and recorded numbers.
    Show {
        /// The run's id (see `list`).
        id: i64,
    },
    /// Remove runs from the history (their results directories are not touched).
    Rm {
        /// The runs' ids.
        #[arg(required = true)]
        ids: Vec<i64>,
    },
    /// Each headline number across runs per scenario and load, with change points:
    /// trends.html (self-contained) and trends.md in --out.
    Report {
        /// Which runs: `key=value` labels and/or `last N`.
        filter: Vec<String>,
        /// Where trends.html and trends.md go.
        #[arg(long, default_value = "trends")]
        out: PathBuf,
        /// The x axis: `time` (when each run started) or a label key (`engine_version`).
        #[arg(long, default_value = "time")]
        x: String,
    },
}

/// Runs a `history` command.
pub fn history(args: HistoryArgs) -> Result<ExitCode, Failure> {
    let mut store = open(args.db)?;
    match args.command {
        HistoryCommand::Add { dir, label } => {
            add(&mut store, &dir, &label)?;
        }
        HistoryCommand::List { filter } => {
            let rows = store.runs(&parse_filter(&filter)?).map_err(failure)?;
            if rows.is_empty() {
                println!("no run in {} matches", store.path().display());
            }
            for r in rows {
                println!(
                    "{:>4}  {}  {:<9} {:>3} cells  {}  {}",
                    r.id,
                    r.started_at,
                    r.status,
                    r.cells,
                    labels(&r.labels),
                    r.path.display()
                );
            }
        }
        HistoryCommand::Show { id } => {
            let (r, cells) = store.run(id).map_err(failure)?;
            println!("run {}: {}", r.id, r.path.display());
            println!(
                "started {}, {}, plateau {}",
                r.started_at, r.status, r.plateau_version
            );
            println!("labels: {}", labels(&r.labels));
            for c in cells {
                let verdict = match (c.status.as_str(), c.steady, c.overloaded) {
                    ("complete", true, false) => "steady",
                    ("complete", _, true) => "overloaded",
                    ("complete", false, _) => "unsteady",
                    _ => "failed",
                };
                println!("  {} ({verdict})", c.rel);
                for (field, v, ci) in c.values {
                    let ci = ci.map_or(String::new(), |[a, b]| format!(" [{a:.4} … {b:.4}]"));
                    println!("    {field} = {v:.4}{ci}");
                }
            }
        }
        HistoryCommand::Rm { ids } => {
            let n = store.remove(&ids).map_err(failure)?;
            println!("removed {n} run(s) from {}", store.path().display());
        }
        HistoryCommand::Report { filter, out, x } => {
            let f = parse_filter(&filter)?;
            let written = plateau_history::report::write(&store, &f, &x, &out).map_err(failure)?;
            for p in written {
                println!("wrote {}", p.display());
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Records the run in `dir` and says what happened.
pub fn add(store: &mut Store, dir: &Path, label: &[String]) -> Result<i64, Failure> {
    let labels: Vec<(String, String)> = label
        .iter()
        .map(|l| filter::label(l))
        .collect::<Result<_, _>>()
        .map_err(failure)?;
    let record = RunRecord::read(dir, &labels).map_err(failure)?;
    match store.add(&record).map_err(failure)? {
        Added::New(id) => {
            println!(
                "recorded {} as run {id} ({} cells) in {}",
                dir.display(),
                record.cells.len(),
                store.path().display()
            );
            Ok(id)
        }
        Added::Already(id) => {
            println!(
                "{} is already recorded as run {id} in {}; nothing changed",
                dir.display(),
                store.path().display()
            );
            Ok(id)
        }
    }
}

/// Opens the database `db`, else the default one.
pub fn open(db: Option<PathBuf>) -> Result<Store, Failure> {
    let path = match db {
        Some(p) => p,
        None => crate::places::Places::find().history_db().ok_or_else(|| {
            Failure::bad_input(anyhow!(
                "no home directory to keep the history in: give --db FILE"
            ))
        })?,
    };
    Store::open(&path).map_err(failure)
}

/// A history error's exit: a folder or report that cannot be written is exit 4, anything
/// else (the database, a results directory, a filter) is bad input, exit 2.
pub fn failure(e: HistoryError) -> Failure {
    match e {
        HistoryError::Folder { .. } | HistoryError::Report(_) => Failure::io(e.into()),
        other => Failure::bad_input(other.into()),
    }
}

fn parse_filter(words: &[String]) -> Result<Filter, Failure> {
    Filter::parse(&words.join(" ")).map_err(failure)
}

fn labels(l: &[(String, String)]) -> String {
    if l.is_empty() {
        return "-".into();
    }
    l.iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(",")
}
