//! `cargo xtask`: project tasks with typed subcommands, one module per task.

mod ci;
mod fetch_datasets;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(name = "cargo xtask", about = "plateau's project tasks")]
struct Cli {
    #[command(subcommand)]
    task: Task,
}

#[derive(Subcommand)]
enum Task {
    /// Run what CI runs: fmt check, clippy -D warnings, tests, docs.
    Ci,
    /// Download LongBench-v2 and/or oasst2 from the Hugging Face hub and normalise them
    /// into datasets/ (honours HF_ENDPOINT and HF_TOKEN).
    FetchDatasets(fetch_datasets::Args),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.task {
        Task::Ci => ci::run(),
        Task::FetchDatasets(args) => fetch_datasets::run(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
