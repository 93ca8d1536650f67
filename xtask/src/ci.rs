//! `cargo xtask ci`: the checks `.ci/run` runs, in order, stopping at the first failure.

use std::process::Command;

use anyhow::{Context, bail};

/// Each step: a description and the command line.
const STEPS: &[(&str, &[&str])] = &[
    ("format", &["cargo", "fmt", "--all", "--check"]),
    (
        "clippy",
        &[
            "cargo",
            "clippy",
            "--workspace",
            "--all-targets",
            "--",
            "-D",
            "warnings",
        ],
    ),
    ("tests", &["cargo", "test", "--workspace"]),
    ("docs", &["cargo", "doc", "--no-deps", "--workspace"]),
];

pub fn run() -> anyhow::Result<()> {
    for (name, argv) in STEPS {
        eprintln!("==> {name}: {}", argv.join(" "));
        let mut cmd = Command::new(argv[0]);
        cmd.args(&argv[1..]);
        if *name == "docs" {
            cmd.env("RUSTDOCFLAGS", "-D warnings");
        }
        let status = cmd
            .status()
            .with_context(|| format!("could not start {}", argv[0]))?;
        if !status.success() {
            bail!("{name} failed ({status})");
        }
    }
    Ok(())
}
