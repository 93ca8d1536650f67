//! Running the `plateau` binary from xtask through `cargo run`, so an xtask alias
//! (`fetch-datasets`, `man`) is the binary's own code, built as the checkout is.

use std::process::Command;

use anyhow::{Context, bail};

/// `cargo run --quiet --package plateau-bench --bin plateau --`; append the binary's arguments.
pub fn command() -> Command {
    let mut cmd = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    cmd.args([
        "run",
        "--quiet",
        "--package",
        "plateau-bench",
        "--bin",
        "plateau",
        "--",
    ]);
    cmd
}

/// Runs `cmd` (from [`command`]), failing with its exit status; `what` names it.
pub fn run(mut cmd: Command, what: &str) -> anyhow::Result<()> {
    let status = cmd
        .status()
        .context("could not run `cargo run --package plateau-bench`")?;
    if !status.success() {
        bail!("{what} exited with {status}");
    }
    Ok(())
}
