//! `plateau init [DIR]`: the files a user with only the binary edits — the default
//! `benchmark_config.json` and, with `--scenarios`, the built-in scenario definitions and a
//! custom-scenario example in `scenarios/`. It writes new files only: when any of them
//! exists, it writes none and says which.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::anyhow;
use clap::Args;
use plateau_scenarios::definition::defaults;

use crate::exit::Failure;
use crate::load;

/// `plateau init`.
#[derive(Debug, Args)]
pub struct InitArgs {
    /// The folder to write into (created if missing).
    #[arg(default_value = ".")]
    dir: PathBuf,
    /// Also write the built-in scenario definitions (and an example of a custom scenario)
    /// into DIR/scenarios/, to edit or copy; plateau reads that folder when run in DIR.
    #[arg(long)]
    scenarios: bool,
}

/// Writes the files, or none of them.
pub fn init(args: InitArgs) -> Result<ExitCode, Failure> {
    let files = files(&args);
    let taken: Vec<String> = files
        .iter()
        .filter(|(path, _)| path.symlink_metadata().is_ok())
        .map(|(path, _)| path.display().to_string())
        .collect();
    if !taken.is_empty() {
        return Err(Failure::bad_input(anyhow!(
            "{} already exist{}; plateau init writes new files only (move {} away, or name \
             another folder)",
            taken.join(", "),
            if taken.len() == 1 { "s" } else { "" },
            if taken.len() == 1 { "it" } else { "them" },
        )));
    }
    for (path, text) in &files {
        write_new(path, text)
            .map_err(|e| Failure::io(anyhow!("cannot write {}: {e}", path.display())))?;
        println!("wrote {}", path.display());
    }
    let here = args.dir == Path::new(".");
    println!(
        "next: edit {} (endpoints, models, scenarios, batch_sizes), then run `plateau run`{}",
        files[0].0.display(),
        if here {
            String::new()
        } else {
            format!(" in {}", args.dir.display())
        }
    );
    Ok(ExitCode::SUCCESS)
}

/// Every file `args` asks for, config first.
fn files(args: &InitArgs) -> Vec<(PathBuf, &'static str)> {
    let mut files = vec![(args.dir.join(load::DEFAULT_FILE), load::BUILT_IN)];
    if args.scenarios {
        let folder = args.dir.join("scenarios");
        files.extend(
            defaults::FILES
                .iter()
                .chain(defaults::CUSTOM_EXAMPLE)
                .map(|(name, text)| (folder.join(name), *text)),
        );
    }
    files
}

/// Creates `path` (and its folder) with `text`; fails if something is already there, even
/// if it appeared since the check.
fn write_new(path: &Path, text: &str) -> std::io::Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)?;
    file.write_all(text.as_bytes())?;
    file.sync_all()
}
