//! `cargo xtask`: project tasks with typed subcommands, one module per task.

mod bench;
mod book;
mod ci;
mod dist;
mod docs;
mod fetch_datasets;
mod figures;
mod kubernetes;
mod man;
mod plateau;
mod schema;
mod tidy;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// `cargo xtask` (its help is also in the book's commands reference).
#[derive(Parser)]
#[command(name = "cargo xtask", about = "plateau's project tasks")]
pub struct Cli {
    #[command(subcommand)]
    task: Task,
}

#[derive(Subcommand)]
enum Task {
    /// Run what CI runs: fmt check, tidy, clippy -D warnings, tests, rustdoc, the generated
    /// reference pages, the book and its links, the GitHub workflow examples
    /// (action-validator), the README's main job against the built-in simulator, and
    /// `dist --check`.
    Ci,
    /// Check the house rules: `//!` lines, file and function length, no unwrap in library
    /// code, dependency versions only in the workspace manifest.
    Tidy,
    /// Calibration benchmark (TTFT/TPOT error at N = 1, 64, 256, 1024; client CPU per
    /// token) against the simulator in its own process, then the SSE parser benchmark;
    /// `bench overhead`: the client's own cost against an exact-timing mock.
    Bench(bench::Args),
    /// Regenerate the checked-in JSON Schemas of summary.json and run.json.
    Schema,
    /// Regenerate the book's generated reference pages (configuration keys from the config's
    /// JSON Schema, commands from their --help, findings from the registry); --check fails
    /// when the checked-in ones are stale.
    Docs(docs::Args),
    /// Build the book (docs/, with mdbook) and fail on a broken link or a page missing from
    /// SUMMARY.md.
    Book,
    /// Alias of `plateau fetch-datasets`: download LongBench-v2, oasst2 and/or ShareGPT from
    /// the Hugging Face hub and normalise them into datasets/.
    FetchDatasets(fetch_datasets::Args),
    /// Draw the figures and write report.html, summary.md and summary.csv from a results
    /// directory (the same output as `plateau report`).
    Figures(figures::Args),
    /// Render every kustomization under deploy/kubernetes with `kubectl kustomize` and
    /// check it with `kubernetes-validate --strict`.
    Kubernetes,
    /// Regenerate the man pages the wheel installs (a test fails when they are stale).
    Man,
    /// Build the wheel (maturin, a static binary) and audit it; `--check` also installs
    /// it (pip, uv, pipx) and runs it from an empty folder, tries `cargo install`, and builds
    /// and runs the container image.
    Dist(dist::Args),
}

/// The cargo target directory of the checkout at `root`: `CARGO_TARGET_DIR` (a relative one
/// taken from `root`), else `root/target`.
fn target_dir(root: &std::path::Path) -> std::path::PathBuf {
    std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root.join("target"), |d| root.join(d))
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.task {
        Task::Ci => ci::run(),
        Task::Tidy => tidy::run(),
        Task::Bench(args) => bench::run(args),
        Task::Schema => schema::run(),
        Task::Docs(args) => docs::run(args),
        Task::Book => book::run(),
        Task::FetchDatasets(args) => fetch_datasets::run(args),
        Task::Figures(args) => figures::run(args),
        Task::Man => man::run(),
        Task::Kubernetes => kubernetes::run(),
        Task::Dist(args) => dist::run(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
