//! `plateau fetch-datasets [longbench|oasst2|all]`: the command line and progress bar around
//! `plateau_scenarios::fetch`, which gets the files through the Hugging Face hub cache and
//! normalises them (`cargo xtask fetch-datasets` runs this command).

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::anyhow;
use clap::{Args, ValueEnum};
use indicatif::{ProgressBar, ProgressStyle};
use plateau_hub::HubError;
use plateau_scenarios::fetch::{self, Dataset, FetchError, FetchOptions, Progress};

use crate::exit::Failure;
use crate::places::Places;
use crate::redact::Redactions;

/// Which dataset to fetch.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum Which {
    /// THUDM/LongBench-v2 data.json (scenario B2).
    Longbench,
    /// OpenAssistant/oasst2 conversation trees (scenario D).
    Oasst2,
    /// anon8231489123/ShareGPT_Vicuna_unfiltered conversations (scenario S).
    Sharegpt,
    /// All of them.
    All,
}

/// `plateau fetch-datasets`.
#[derive(Debug, Args)]
pub struct FetchArgs {
    /// The dataset to fetch.
    #[arg(value_enum, default_value = "all")]
    which: Which,
    /// Where datasets go (the config's `datasets_dir`) [default: `datasets/` of the plateau
    /// checkout this runs in, else `plateau/datasets` in the user's data directory,
    /// `$XDG_DATA_HOME` or `~/.local/share`].
    #[arg(long)]
    datasets_dir: Option<PathBuf>,
    /// A hub revision (commit, branch or tag) instead of the pinned one; needs one dataset.
    #[arg(long)]
    revision: Option<String>,
    /// Download again even if this revision's file is already in the hub cache.
    #[arg(long)]
    force: bool,
}

/// An indicatif bar behind the library's progress callbacks.
struct Bar(ProgressBar);

impl Progress for Bar {
    fn message(&self, text: &str) {
        self.0.println(text);
    }

    fn start(&self, total: Option<u64>, done: u64) {
        self.0.reset();
        self.0.set_length(total.unwrap_or(0));
        self.0.set_position(done);
        self.0.reset_eta();
    }

    fn advance(&self, bytes: u64) {
        self.0.inc(bytes);
    }

    fn finish(&self) {
        self.0.finish_and_clear();
    }
}

/// Fetches the chosen datasets (hub settings from the environment: HF_ENDPOINT, HF_TOKEN,
/// HF_HOME, HF_HUB_CACHE, HF_HUB_OFFLINE); the token joins `redactions` first.
pub async fn run(
    args: FetchArgs,
    quiet: bool,
    redactions: &Redactions,
) -> Result<ExitCode, Failure> {
    let datasets: Vec<Dataset> = match args.which {
        Which::Longbench => vec![Dataset::Longbench],
        Which::Oasst2 => vec![Dataset::Oasst2],
        Which::Sharegpt => vec![Dataset::Sharegpt],
        Which::All => Dataset::ALL.to_vec(),
    };
    if args.revision.is_some() && datasets.len() > 1 {
        return Err(Failure::bad_input(anyhow!(
            "--revision names one dataset's commit; give `longbench` or `oasst2`, not `all`"
        )));
    }
    let datasets_dir = args
        .datasets_dir
        .or_else(|| Places::find().datasets())
        .ok_or_else(|| {
            Failure::bad_input(anyhow!(
                "no home directory to keep the datasets in: pass --datasets-dir DIR"
            ))
        })?;
    let mut options = FetchOptions::from_env(datasets_dir, &|k| std::env::var(k).ok());
    redactions.add(options.hub.token.iter().cloned());
    options.revision = args.revision;
    options.force = args.force;
    for dataset in datasets {
        let bar = if quiet {
            ProgressBar::hidden()
        } else {
            ProgressBar::new(0).with_style(
                ProgressStyle::with_template(
                    "{prefix} [{bar:40}] {bytes}/{total_bytes} {bytes_per_sec} eta {eta}",
                )
                .map_err(|e| Failure::other(e.into()))?
                .progress_chars("=> "),
            )
        };
        bar.set_prefix(dataset.name());
        let fetched = fetch::fetch(dataset, &options, &Bar(bar.clone()))
            .await
            .map_err(|e| failure(dataset, e))?;
        bar.finish_and_clear();
        let m = &fetched.manifest;
        println!(
            "{}: {} records -> {} (revision {}, {} bytes, sha256 {}{})",
            dataset.name(),
            m.records,
            fetched.normalised.display(),
            m.repo_commit.as_deref().unwrap_or(&m.revision),
            m.bytes,
            m.sha256,
            if fetched.resumed_from > 0 {
                format!(", resumed at {} bytes", fetched.resumed_from)
            } else {
                String::new()
            },
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// The exit code of a failed fetch: 3 when the hub could not be reached or refused, 2 when
/// offline without the file, 4 for a local file, 1 else.
fn failure(dataset: Dataset, e: FetchError) -> Failure {
    let error = anyhow!("fetching {}: {e}", dataset.name());
    match e {
        FetchError::Hub(HubError::Unreachable { .. } | HubError::Status { .. }) => {
            Failure::unreachable(error)
        }
        FetchError::Hub(HubError::NotCached { .. }) => Failure::bad_input(error),
        FetchError::Io { .. } | FetchError::Hub(HubError::Io { .. }) => Failure::io(error),
        _ => Failure::other(error),
    }
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        args: FetchArgs,
    }

    fn parse(args: &[&str]) -> Result<FetchArgs, clap::Error> {
        Cli::try_parse_from(std::iter::once("fetch-datasets").chain(args.iter().copied()))
            .map(|c| c.args)
    }

    #[tokio::test]
    async fn arguments_parse_and_a_revision_needs_one_dataset() {
        let a = parse(&["longbench", "--revision", "abc", "--force"]).unwrap();
        assert!(
            matches!(a.which, Which::Longbench) && a.force && a.revision.as_deref() == Some("abc")
        );
        let a = parse(&[]).unwrap();
        assert!(matches!(a.which, Which::All));
        assert_eq!(a.datasets_dir, None, "the default is resolved when it runs");
        assert!(parse(&["wikipedia"]).is_err());
        let err = run(
            parse(&["all", "--revision", "abc"]).unwrap(),
            true,
            &Redactions::default(),
        )
        .await
        .unwrap_err();
        assert!(
            format!("{err:?}").contains("give `longbench` or `oasst2`"),
            "{err:?}"
        );
        assert!(format!("{err:?}").contains("code: 2"), "{err:?}");
    }
}
