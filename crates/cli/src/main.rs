//! The `plateau` binary: parses the command line, sets up logging, runs a command and maps
//! its result to the exit codes of SPEC.md section 2.

mod args;
mod check;
mod compare;
mod context;
mod dry_run;
mod exit;
mod export;
mod fetch;
mod findings;
mod history;
mod init;
mod inputs;
mod limits;
mod load;
mod logging;
mod merge;
mod network;
mod places;
mod preflight;
mod progress;
mod quick;
mod redact;
mod report;
mod resolve;
mod run;
mod server_tokens;
mod server_traces;
mod shard;
mod shell;
mod signals;
mod sim;
mod start_at;
mod trace;
mod validate;

use std::process::ExitCode;

use clap::Parser;

use crate::args::{Cli, Command};

fn main() -> ExitCode {
    let cli = Cli::parse();
    let progress = progress::Display::new(cli.quiet);
    let redactions = logging::init(cli.verbose, cli.quiet, &progress);
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => return exit::report(exit::Failure::other(e.into()), &redactions),
    };
    let result = runtime.block_on(async {
        match cli.command {
            Command::Run(args) => run::run(*args, &progress, &redactions).await,
            Command::Sim(args) => sim::serve(args).await,
            Command::Report(args) => report::report(args),
            Command::Compare(args) => compare::compare(args),
            Command::History(args) => history::history(args),
            Command::Check(args) => check::check(args),
            Command::Validate(args) => validate::validate(args, cli.quiet),
            Command::Export(args) => export::export(args),
            Command::Merge(args) => merge::merge(args),
            Command::FetchDatasets(args) => fetch::run(args, cli.quiet, &redactions).await,
            Command::Init(args) => init::init(args),
            Command::Completions(args) => shell::completions(args),
            Command::Man(args) => shell::man(args),
            Command::Trace(args) => trace::trace(args),
        }
    });
    match result {
        Ok(code) => code,
        Err(failure) => exit::report(failure, &redactions),
    }
}
