//! `plateau completions SHELL` and `plateau man`: shell completion scripts (clap_complete)
//! and man pages (clap_mangen), generated from the command-line definition itself so they
//! never drift from it. `cargo xtask man` keeps the checked-in pages the wheel installs.

use std::io::Write;
use std::process::ExitCode;

use anyhow::anyhow;
use clap::CommandFactory;

use crate::args::{Cli, CompletionsArgs, ManArgs};
use crate::exit::Failure;

/// Prints the completion script for `args.shell`.
pub fn completions(args: CompletionsArgs) -> Result<ExitCode, Failure> {
    let mut out = Vec::new();
    clap_complete::generate(args.shell, &mut Cli::command(), "plateau", &mut out);
    print_all(&out)
}

/// Prints the main page, or writes every page into `args.out`.
pub fn man(args: ManArgs) -> Result<ExitCode, Failure> {
    // The plain version: the pages must not change with every commit. No `help` command
    // (as `generate_to` does): the pages are the help.
    let command = Cli::command()
        .version(env!("CARGO_PKG_VERSION"))
        .disable_help_subcommand(true);
    match args.out {
        Some(dir) => {
            let io = |e: std::io::Error| Failure::io(anyhow!("{}: {e}", dir.display()));
            std::fs::create_dir_all(&dir).map_err(io)?;
            clap_mangen::generate_to(command, &dir).map_err(io)?;
            println!("man pages written to {}", dir.display());
            Ok(ExitCode::SUCCESS)
        }
        None => {
            let mut out = Vec::new();
            clap_mangen::Man::new(command)
                .render(&mut out)
                .map_err(|e| Failure::other(e.into()))?;
            print_all(&out)
        }
    }
}

/// Writes `bytes` to stdout; a closed pipe (`| head`) is not an error worth a message.
fn print_all(bytes: &[u8]) -> Result<ExitCode, Failure> {
    let mut stdout = std::io::stdout().lock();
    match stdout.write_all(bytes).and_then(|()| stdout.flush()) {
        Ok(()) => Ok(ExitCode::SUCCESS),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(ExitCode::SUCCESS),
        Err(e) => Err(Failure::io(anyhow!("stdout: {e}"))),
    }
}
