//! Command-line flags (clap). Everything the benchmark does is configured in the config
//! file; flags only pick the file, override keys and choose what to do with results, or
//! (`run --url --model`) build a first-look config without a file.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

/// `plateau --version`: the version and the commit the binary was built from (`build.rs`).
pub const VERSION: &str = concat!(env!("CARGO_PKG_VERSION"), " (", env!("PLATEAU_BUILD"), ")");

/// The commit the binary was built from ("unknown" outside a git checkout), for run.json.
pub const COMMIT: &str = env!("PLATEAU_COMMIT");

/// plateau: what an LLM inference server sustains under continuous full load.
#[derive(Parser)]
#[command(name = "plateau", version = VERSION, about, long_about = None)]
pub struct Cli {
    /// More log output (-v: debug, -vv: trace). RUST_LOG overrides.
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    pub verbose: u8,
    /// No progress display; warnings and errors only.
    #[arg(short, long, global = true)]
    pub quiet: bool,
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// Subcommands.
#[derive(Subcommand)]
pub enum Command {
    /// Run the benchmark matrix (endpoints x models x scenarios x batch sizes).
    Run(Box<RunArgs>),
    /// Serve the simulated engine.
    Sim(SimArgs),
    /// Draw figures and write report.html, summary.md and summary.csv from a results
    /// directory (no re-run).
    Report(ReportArgs),
    /// Compare a baseline results directory with one or more candidates: matched cells,
    /// differences with 95% confidence intervals and p-values, a verdict per metric;
    /// writes compare.html, compare.md, compare.csv and figures.
    Compare(CompareArgs),
    /// Check a results directory: missing or interrupted cells, error rates, steady measure
    /// windows, sample counts, token counts. Exit 1 when a check fails.
    Validate(ValidateArgs),
    /// Rewrite a results directory for other tools: one `vllm bench serve --save-result`
    /// JSON per cell (`--format vllm`), or one long CSV row per cell x metric x statistic
    /// (`--format long-csv`).
    Export(ExportArgs),
    /// Join the results directories of a benchmark split over K runners (`run --shard
    /// i/K`) into one: cells dealt to runners are copied side by side; a cell whose load
    /// was split has its records concatenated on one timeline and every summary computed
    /// again from them. Refuses (exit 2) shards of different configs, seeds or versions, a
    /// missing or a duplicate shard; exit 1 when a merged cell is incomplete.
    Merge(crate::merge::MergeArgs),
    /// Download LongBench-v2 (B2), oasst2 (D) and/or ShareGPT (S) from the Hugging Face hub
    /// through its cache and normalise them into datasets/ (honours HF_ENDPOINT, HF_TOKEN,
    /// HF_HOME, HF_HUB_OFFLINE).
    FetchDatasets(crate::fetch::FetchArgs),
    /// Write an editable config (and scenario files) to start from.
    ///
    /// Writes benchmark_config.json into DIR and, with --scenarios, the built-in scenario
    /// definitions into DIR/scenarios/; never overwrites a file. Without a config file,
    /// `plateau run` runs the same default, built into the binary.
    Init(crate::init::InitArgs),
    /// The history of runs (SQLite): add a results directory, list, show and remove runs,
    /// and draw each headline number across runs with its change points.
    History(crate::history::HistoryArgs),
    /// Judge a results directory against recorded runs: exit 0 when nothing regressed, 1
    /// when a gated number got worse by more than its tolerance and significantly, 2 on bad
    /// input, 3 when a number could not be judged (unsteady, overloaded or failed cells,
    /// small samples) and --allow-unsteady is not given.
    Check(crate::check::CheckArgs),
    /// Request traces (Mooncake, BurstGPT, Azure, plateau JSONL): `stats` prints arrival
    /// rate over time, length distributions and the ideal prefix-cache share; `convert`
    /// writes plateau's JSONL.
    Trace(crate::trace::TraceArgs),
    /// Print a shell's completion script.
    ///
    /// For example `plateau completions bash >
    /// ~/.local/share/bash-completion/completions/plateau`.
    Completions(CompletionsArgs),
    /// Print the man page.
    ///
    /// Prints plateau.1 (roff): `plateau man | man -l -`; --out DIR writes one page per
    /// command instead.
    Man(ManArgs),
}

/// `plateau run`.
#[derive(Args)]
pub struct RunArgs {
    /// The benchmark configuration [default: benchmark_config.json in the current directory,
    /// else the built-in default, which runs the simulated engine].
    #[arg(long, short, conflicts_with = "url")]
    pub config: Option<PathBuf>,
    /// A first look without a config file: the server's base URL (with `/v1`). Needs
    /// --model; the keys it sets are printed, and --save-config writes them.
    #[arg(long, requires = "model", help_heading = "Without a config file")]
    pub url: Option<String>,
    /// The model name the server serves (with --url).
    #[arg(long, requires = "url", help_heading = "Without a config file")]
    pub model: Option<String>,
    /// The server software (with --url): vllm, sglang, tgi, llamacpp, nim, openai, sim
    /// [default: openai, any OpenAI-compatible server].
    #[arg(long, requires = "url", help_heading = "Without a config file")]
    pub engine: Option<String>,
    /// Scenarios (with --url) [default: A1,B1].
    #[arg(
        long,
        requires = "url",
        value_delimiter = ',',
        help_heading = "Without a config file"
    )]
    pub scenarios: Vec<String>,
    /// Concurrencies N (with --url) [default: 1,4,16].
    #[arg(
        long,
        requires = "url",
        value_delimiter = ',',
        help_heading = "Without a config file"
    )]
    pub concurrency: Vec<u32>,
    /// Client tokenizer (with --url): cl100k_base, o200k_base, a tokenizer.json path or a
    /// Hugging Face model id (owner/name, or owner/name@revision to pin one).
    #[arg(long, requires = "url", help_heading = "Without a config file")]
    pub tokenizer: Option<String>,
    /// Write the keys this run was given (the --config file or the --url/--model flags,
    /// with PLATEAU__* and --set applied; secrets as `***`) to this new file.
    #[arg(long, value_name = "FILE")]
    pub save_config: Option<PathBuf>,
    /// Print the plan (cells, phase lengths, estimated wall time) and exit.
    #[arg(long)]
    pub dry_run: bool,
    /// Skip cells whose complete results already exist in the output directory.
    #[arg(long)]
    pub resume: bool,
    /// With --resume, run these finished cells again too: `unsteady` (measure window not
    /// steady) or `failed` (any failed check, unsteady included).
    #[arg(
        long,
        requires = "resume",
        value_enum,
        value_delimiter = ',',
        value_name = "WHICH"
    )]
    pub redo: Vec<Redo>,
    /// Write into an output directory that is not empty and not plateau's (plateau still
    /// never overwrites a file it did not write).
    #[arg(long)]
    pub force: bool,
    /// Write results here instead of the config's output_dir.
    #[arg(long)]
    pub output_dir: Option<PathBuf>,
    /// Override a config key, e.g. `--set measure_seconds=30`, `--set batch_sizes=[1,8]`,
    /// `--set endpoints[0].url=http://gpu:8000/v1` (values parse as JSON, else text).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,
    /// Run one part of a benchmark split over K runners: `i/K` (this runner's index i, 0
    /// <= i < K), or `K` alone with the index from JOB_COMPLETION_INDEX (each pod of an
    /// Indexed Kubernetes Job has one). `plateau merge` joins the K results directories.
    #[arg(long, value_name = "i/K", help_heading = "Sharding")]
    pub shard: Option<String>,
    /// With --shard: what the runners split. `cells`: the matrix's cells are dealt to
    /// them (cell j runs on runner j mod K). `load`: every cell runs on all K at once,
    /// each holding its share of N (as even as integers allow) or the rate r/K.
    #[arg(
        long,
        requires = "shard",
        value_enum,
        default_value = "cells",
        help_heading = "Sharding"
    )]
    pub shard_by: ShardBy,
    /// With --shard: wait until this instant (RFC 3339, e.g. 2026-11-27T10:30:00Z), or
    /// `job+SECONDS` after the Kubernetes Job of this pod was created, before the first
    /// cell, so that every runner starts together; run.json records how late this one
    /// began, and `plateau merge` refuses one later than its bound.
    #[arg(
        long,
        requires = "shard",
        value_name = "RFC3339|job+SECONDS",
        value_parser = crate::start_at::start_at,
        help_heading = "Sharding"
    )]
    pub start_at: Option<crate::start_at::StartAt>,
    /// With --shard-by load and --start-at: seconds between one cell's Drain limit and the
    /// next cell's start on the common timetable (every runner begins cell k at
    /// start + gap + k x (Fill + Stabilize + Measure + drain_seconds + gap)); room to write
    /// a cell's results and ask the next scenario's token check.
    #[arg(
        long,
        requires = "start_at",
        value_name = "SECONDS",
        default_value_t = 5.0,
        value_parser = crate::start_at::gap_seconds,
        help_heading = "Sharding"
    )]
    pub cell_gap: f64,
    /// Record the run in the history when it ends (`plateau history add`).
    #[arg(long, help_heading = "History")]
    pub history: bool,
    /// With --history: a label of the run, `key=value` (the served stack's `commit=...`,
    /// `engine_version=...`); repeat for more.
    #[arg(
        long,
        requires = "history",
        value_name = "KEY=VALUE",
        help_heading = "History"
    )]
    pub label: Vec<String>,
    /// With --history: the history database [default: history.sqlite in plateau's data
    /// folder].
    #[arg(
        long,
        requires = "history",
        value_name = "FILE",
        help_heading = "History"
    )]
    pub db: Option<PathBuf>,
}

/// `plateau sim`.
#[derive(Args)]
pub struct SimArgs {
    /// Port on 127.0.0.1 (0 picks a free one).
    #[arg(long, default_value_t = 8000)]
    pub port: u16,
    /// Address to bind.
    #[arg(long, default_value = "127.0.0.1")]
    pub host: std::net::IpAddr,
    /// Preset: fixed, realistic or faulty.
    #[arg(long, conflicts_with = "config")]
    pub profile: Option<String>,
    /// Simulator settings as JSON (see crates/sim docs).
    #[arg(long)]
    pub config: Option<PathBuf>,
}

/// `plateau report`.
#[derive(Args)]
pub struct ReportArgs {
    /// Results directories: one is the same as --results-dir; several are drawn side by side
    /// (not copied), each one's endpoints labelled by its directory name where names collide,
    /// into --out.
    #[arg(conflicts_with = "results_dir", value_name = "DIR")]
    pub dirs: Vec<PathBuf>,
    /// The results directory [default: output_dir of benchmark_config.json, else
    /// results/default].
    #[arg(long)]
    pub results_dir: Option<PathBuf>,
    /// Where report.html, summary.md and summary.csv of several directories go.
    #[arg(long, default_value = "report")]
    pub out: PathBuf,
    /// Where the PNG and SVG figures go (default: `<results-dir>/figures`, or
    /// `<out>/figures` for several directories).
    #[arg(long)]
    pub figures_dir: Option<PathBuf>,
    /// Concurrency of the engine comparison [default: the largest every endpoint ran].
    #[arg(long, value_name = "N")]
    pub compare_at: Option<u32>,
}

/// `plateau compare`.
#[derive(Args)]
pub struct CompareArgs {
    /// The baseline results directory.
    pub baseline: PathBuf,
    /// Candidate results directories, each compared with the baseline.
    #[arg(required = true)]
    pub candidates: Vec<PathBuf>,
    /// Where compare.html, compare.md, compare.csv and figures/ go.
    #[arg(long, default_value = "compare")]
    pub out: PathBuf,
    /// Bootstrap resamples per matched cell (seeded: the same intervals every time).
    #[arg(
        long,
        default_value_t = plateau_report::compare::RESAMPLES,
        value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1000..=100_000)
    )]
    pub resamples: usize,
    /// Count rows whose cell was unsteady, overloaded or failed on either side, or whose
    /// percentile rests on too few samples, in the better/worse tallies (they are flagged
    /// either way).
    #[arg(long)]
    pub include_unsteady: bool,
}

/// `plateau validate`.
#[derive(Args)]
pub struct ValidateArgs {
    /// The results directory [default: output_dir of benchmark_config.json, else
    /// results/default].
    #[arg(long)]
    pub results_dir: Option<PathBuf>,
    /// Largest fraction of measured requests that may fail in a cell (0 to 1).
    #[arg(long, default_value_t = 0.01, value_name = "FRACTION")]
    pub max_error_rate: f64,
}

/// `plateau export`.
#[derive(Args)]
pub struct ExportArgs {
    /// What to write.
    #[arg(long, value_enum)]
    pub format: ExportFormat,
    /// The results directory [default: output_dir of benchmark_config.json, else
    /// results/default].
    #[arg(value_name = "RESULTS_DIR", conflicts_with = "results_dir")]
    pub dir: Option<PathBuf>,
    /// The results directory (same as RESULTS_DIR).
    #[arg(long)]
    pub results_dir: Option<PathBuf>,
    /// Where to write: a directory for `vllm` [default: RESULTS_DIR/export/vllm], a file
    /// for `long-csv` [default: RESULTS_DIR/export/metrics_long.csv].
    #[arg(long)]
    pub out: Option<PathBuf>,
}

/// `plateau export --format`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ExportFormat {
    /// One `vllm bench serve --save-result` JSON per cell.
    Vllm,
    /// One CSV row per cell x metric x statistic.
    LongCsv,
}

/// `run --shard-by`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ShardBy {
    /// Deal the matrix's cells to the runners.
    Cells,
    /// Split every cell's load over the runners.
    Load,
}

impl From<ShardBy> for plateau_model::shard::ShardBy {
    fn from(s: ShardBy) -> Self {
        match s {
            ShardBy::Cells => plateau_model::shard::ShardBy::Cells,
            ShardBy::Load => plateau_model::shard::ShardBy::Load,
        }
    }
}

/// `run --redo`: which finished cells `--resume` runs again.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Redo {
    /// Cells whose measure window was not steady.
    Unsteady,
    /// Cells that failed any check.
    Failed,
}

impl From<Redo> for plateau_core::driver::Redo {
    fn from(r: Redo) -> Self {
        match r {
            Redo::Unsteady => plateau_core::driver::Redo::Unsteady,
            Redo::Failed => plateau_core::driver::Redo::Failed,
        }
    }
}

/// `plateau completions`.
#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell: bash, zsh, fish, elvish or powershell.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

/// `plateau man`.
#[derive(Debug, Args)]
pub struct ManArgs {
    /// Write `plateau.1` and one `plateau-<command>.1` per command into this folder instead
    /// of printing `plateau.1`.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
}
