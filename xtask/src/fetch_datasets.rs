//! `cargo xtask fetch-datasets [longbench|oasst2|sharegpt|all]`: the command line and progress bar
//! around `plateau_scenarios::fetch`, which does the downloading and normalising.

use std::path::PathBuf;

use anyhow::{Context, bail};
use clap::{Parser, ValueEnum};
use indicatif::{ProgressBar, ProgressStyle};
use plateau_scenarios::fetch::{self, Dataset, FetchOptions, Progress};

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

/// Arguments of `fetch-datasets`.
#[derive(Debug, Parser)]
pub struct Args {
    /// The dataset to fetch.
    #[arg(value_enum, default_value = "all")]
    which: Which,
    /// Where datasets go (the config's `datasets_dir`).
    #[arg(long, default_value = "datasets")]
    datasets_dir: PathBuf,
    /// A hub revision (commit, branch or tag) instead of the pinned one; needs one dataset.
    #[arg(long)]
    revision: Option<String>,
    /// Download again even if this revision's file is already there.
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

pub fn run(args: Args) -> anyhow::Result<()> {
    let datasets: Vec<Dataset> = match args.which {
        Which::Longbench => vec![Dataset::Longbench],
        Which::Oasst2 => vec![Dataset::Oasst2],
        Which::Sharegpt => vec![Dataset::Sharegpt],
        Which::All => Dataset::ALL.to_vec(),
    };
    if args.revision.is_some() && datasets.len() > 1 {
        bail!(
            "--revision names one dataset's commit; give `longbench`, `oasst2` or `sharegpt`, not `all`"
        );
    }
    let mut options = FetchOptions::from_env(args.datasets_dir, &|k| std::env::var(k).ok());
    options.revision = args.revision;
    options.force = args.force;
    let runtime = tokio::runtime::Runtime::new().context("could not start the async runtime")?;
    for dataset in datasets {
        let bar = ProgressBar::new(0).with_style(
            ProgressStyle::with_template(
                "{prefix} [{bar:40}] {bytes}/{total_bytes} {bytes_per_sec} eta {eta}",
            )
            .context("bad progress template")?
            .progress_chars("=> "),
        );
        bar.set_prefix(dataset.name());
        let fetched = runtime
            .block_on(fetch::fetch(dataset, &options, &Bar(bar.clone())))
            .with_context(|| format!("fetching {}", dataset.name()))?;
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
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_parse_and_a_revision_needs_one_dataset() {
        let a = Args::try_parse_from([
            "fetch-datasets",
            "longbench",
            "--revision",
            "abc",
            "--force",
        ])
        .unwrap();
        assert!(
            matches!(a.which, Which::Longbench) && a.force && a.revision.as_deref() == Some("abc")
        );
        let a = Args::try_parse_from(["fetch-datasets"]).unwrap();
        assert!(matches!(a.which, Which::All));
        assert_eq!(a.datasets_dir, PathBuf::from("datasets"));
        assert!(Args::try_parse_from(["fetch-datasets", "wikipedia"]).is_err());
        let err =
            run(Args::try_parse_from(["fetch-datasets", "all", "--revision", "abc"]).unwrap())
                .unwrap_err();
        assert!(
            err.to_string().contains("give `longbench` or `oasst2`"),
            "{err}"
        );
    }
}
