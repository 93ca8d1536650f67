//! `cargo xtask docs`: writes the book's generated reference pages (configuration keys from
//! the config's JSON Schema, commands from their `--help`, findings from the registry);
//! `--check` writes nothing and fails when a checked-in page differs from what the code
//! generates (CI runs it).

mod commands;
mod config;
mod findings;

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};

/// `cargo xtask docs`.
#[derive(clap::Args)]
pub struct Args {
    /// Write nothing; fail when a checked-in page is not what the code generates.
    #[arg(long)]
    pub check: bool,
}

/// The book's source folder.
pub fn book_src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/src")
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let pages = [
        ("reference/configuration.md", config::page()?),
        ("reference/findings.md", findings::page()),
        ("reference/commands.md", commands::page()?),
    ];
    let mut stale = Vec::new();
    for (rel, text) in pages {
        let path = book_src().join(rel);
        let current = std::fs::read_to_string(&path).unwrap_or_default();
        if current == text {
            continue;
        }
        if args.check {
            stale.push(rel);
        } else {
            std::fs::write(&path, text).with_context(|| path.display().to_string())?;
            eprintln!("wrote docs/src/{rel}");
        }
    }
    if !stale.is_empty() {
        bail!(
            "generated pages are stale: {} (run `cargo xtask docs` and commit them)",
            stale.join(", ")
        );
    }
    Ok(())
}
