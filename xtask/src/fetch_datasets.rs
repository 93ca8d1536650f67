//! `cargo xtask fetch-datasets [ARGS]`: an alias of `plateau fetch-datasets [ARGS]`, run
//! through `cargo run` so both are the same code (`crates/cli/src/fetch.rs`).

use std::process::Command;

/// Arguments, passed to `plateau fetch-datasets` as they are.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// `[longbench|oasst2|sharegpt|all] [--datasets-dir DIR] [--revision REV] [--force]`; see
    /// `plateau fetch-datasets --help`.
    #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
    args: Vec<String>,
}

/// The `cargo run` command line that runs `plateau fetch-datasets` with `args`.
fn command(args: &Args) -> Command {
    let mut cmd = crate::plateau::command();
    cmd.arg("fetch-datasets").args(&args.args);
    cmd
}

/// Runs `plateau fetch-datasets`, failing with its exit code.
pub fn run(args: Args) -> anyhow::Result<()> {
    crate::plateau::run(command(&args), "plateau fetch-datasets")
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        args: Args,
    }

    #[test]
    fn flags_pass_through_to_plateau_unchanged() {
        let cli = Cli::try_parse_from([
            "fetch-datasets",
            "longbench",
            "--revision",
            "abc",
            "--force",
        ])
        .unwrap();
        let cmd = command(&cli.args);
        let args: Vec<_> = cmd
            .get_args()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        assert_eq!(
            args,
            [
                "run",
                "--quiet",
                "--package",
                "plateau-bench",
                "--bin",
                "plateau",
                "--",
                "fetch-datasets",
                "longbench",
                "--revision",
                "abc",
                "--force"
            ]
        );
    }
}
