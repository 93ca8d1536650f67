//! `cargo xtask book`: builds the mdBook in `docs/` with `mdbook build` (the `mdbook` on
//! `PATH`, or the one `MDBOOK` names; `.ci/run` installs a pinned version), then fails on a
//! broken link: in the built HTML (files and `#fragments`), in README.md, or a page in
//! `docs/src` that SUMMARY.md leaves out.

mod links;

use std::ffi::OsString;
use std::path::Path;
use std::process::Command;
use std::time::Instant;

use anyhow::{Context, bail};

pub fn run() -> anyhow::Result<()> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let docs = root.join("docs");
    let mdbook = std::env::var_os("MDBOOK").unwrap_or_else(|| OsString::from("mdbook"));
    let version = Command::new(&mdbook)
        .arg("--version")
        .output()
        .with_context(|| {
            format!(
                "could not run {}: install it with `cargo install --locked mdbook --version <the \
             one .ci/run pins>`, or set MDBOOK to its path",
                mdbook.to_string_lossy()
            )
        })?;
    let started = Instant::now();
    let status = Command::new(&mdbook)
        .arg("build")
        .arg(&docs)
        .status()
        .context("could not run mdbook build")?;
    if !status.success() {
        bail!("mdbook build docs failed ({status})");
    }
    eprintln!(
        "{} built the book in {:.1} s",
        String::from_utf8_lossy(&version.stdout).trim(),
        started.elapsed().as_secs_f64()
    );
    let report = links::check(&docs.join("book"), &docs.join("src"), &root)?;
    eprintln!("{}", report.summary());
    if !report.broken.is_empty() {
        bail!("broken links:\n{}", report.broken.join("\n"));
    }
    Ok(())
}
