//! `cargo install --locked --path crates/cli`, as the install guide says, into a temp root:
//! the binary it installs must say the same `--version` (version and commit) as the wheel's.
//! With `--path`, cargo builds in the workspace's `target/release`, so after CI's release
//! run this only links.

use std::path::Path;
use std::process::Command;
use std::time::Instant;

use anyhow::bail;

use super::output;

/// Installs with cargo and compares `--version` with `expected`.
pub fn run(root: &Path, expected: &str) -> anyhow::Result<()> {
    let started = Instant::now();
    let into = tempfile::Builder::new()
        .prefix("plateau-cargo-install-")
        .tempdir()?;
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    output(
        Command::new(cargo)
            .current_dir(root)
            .args([
                "install",
                "--quiet",
                "--locked",
                "--path",
                "crates/cli",
                "--root",
            ])
            .arg(into.path()),
    )?;
    let version = output(Command::new(into.path().join("bin/plateau")).arg("--version"))?;
    if version != expected {
        bail!("cargo install's plateau says {version}, the wheel's {expected}");
    }
    eprintln!(
        "cargo install --locked --path crates/cli: {} in {:.1} s",
        version.trim(),
        started.elapsed().as_secs_f64()
    );
    Ok(())
}
