//! `plateau run`: config -> plan -> preflight -> every cell -> table and verdict.

use std::process::ExitCode;
use std::sync::Arc;

use anyhow::anyhow;
use plateau_core::client::Client;
use plateau_core::driver::{self, RunContext};
use plateau_core::live::Live;
use plateau_core::plan::Plan;
use plateau_core::results::{self, run_info::Launch};
use plateau_core::validate::{self, Severity};
use plateau_scenarios::Catalog;
use plateau_scenarios::Tokenizer;
use tokio_util::sync::CancellationToken;

use crate::args::RunArgs;
use crate::exit::{self, BadInput, Failure};
use crate::progress::{Display, RunProgress};
use crate::{load, preflight, signals};

/// Runs the benchmark matrix.
pub async fn run(args: RunArgs, display: &Display) -> Result<ExitCode, Failure> {
    let mut config = load::load(&args.config, &args.set, None).bad_input()?;
    if let Some(dir) = &args.output_dir {
        config.output_dir = dir.clone();
    }
    let env = |name: &str| std::env::var(name).ok();
    let plan = Plan::build(&config, &env)
        .map_err(|e| Failure::bad_input(anyhow!("{}:\n{e}", args.config.display())))?;
    for w in &plan.warnings {
        tracing::warn!("{w}");
    }
    let tokenizer = Arc::new(Tokenizer::load(config.tokenizer.as_deref()).bad_input()?);
    let catalog = Catalog::load(&config, tokenizer.clone()).bad_input()?;
    for w in catalog.warnings() {
        tracing::warn!("{w}");
    }
    if args.dry_run {
        print!("{}", plateau_report::table::plan(&plan));
        return Ok(ExitCode::SUCCESS);
    }
    results::check_writable(&plan.output_dir)
        .map_err(|e| Failure::io(anyhow!("cannot write results: {e}")))?;
    raise_fd_limit(&plan);
    let max_n = plan.batch_sizes.iter().copied().max().unwrap_or(1) as usize;
    let client = Client::new(max_n + 8).map_err(|e| Failure::other(e.into()))?;
    let (targets, sims) = preflight::resolve_targets(&plan).await?;
    let endpoint_infos = match preflight::check(&plan, &targets, &client).await {
        Ok(infos) => infos,
        Err(f) => {
            sims.shutdown().await;
            return Err(f);
        }
    };

    let interrupt = CancellationToken::new();
    signals::cancel_on_stop(interrupt.clone());

    let live = Arc::new(Live::default());
    let progress = RunProgress::new(display, &plan, live.clone());
    let result = driver::run_plan(
        &plan,
        RunContext {
            client,
            targets,
            endpoint_infos,
            workloads: &catalog,
            counter: tokenizer,
            live,
            interrupt,
            resume: args.resume,
            launch: launch(&args),
            observer: &progress,
        },
    )
    .await;
    drop(progress);
    sims.shutdown().await;
    let report = result.map_err(failure)?;

    println!("{}", plateau_report::table::text(&report.summaries));
    print!("{}", plateau_report::table::turns(&report.summaries));
    println!("results: {}", plan.output_dir.display());
    if report.interrupted {
        return Err(Failure::interrupted());
    }
    let findings: Vec<_> = report
        .summaries
        .iter()
        .flat_map(|s| validate::check_cell(s, &validate::Thresholds::default()))
        .collect();
    for f in &findings {
        match f.severity {
            Severity::Fail => tracing::error!("{f}"),
            Severity::Warn => tracing::warn!("{f}"),
        }
    }
    if findings.iter().any(|f| f.severity == Severity::Fail) {
        return Ok(ExitCode::from(exit::VALIDATION));
    }
    Ok(ExitCode::SUCCESS)
}

/// The exit code and message of a run that stopped: a result file that could not be
/// written is exit 4, on one line naming the file and the OS error.
fn failure(e: driver::DriverError) -> Failure {
    if e.is_io() {
        Failure::io(anyhow!(
            "cannot write results: {e}; the cells already written are kept: \
             fix this and rerun with --resume"
        ))
    } else if matches!(e.cause(), driver::DriverError::Workload { .. }) {
        Failure::bad_input(e.into())
    } else {
        Failure::other(e.into())
    }
}

/// How this run was started, for run.json: the config file and the keys overridden
/// (`--set`, `--output-dir`, `PLATEAU__*`), without values, which may hold secrets.
fn launch(args: &RunArgs) -> Launch {
    let mut overrides: Vec<String> = args
        .set
        .iter()
        .map(|kv| {
            kv.split_once('=')
                .map_or(kv.as_str(), |(k, _)| k)
                .to_owned()
        })
        .collect();
    if args.output_dir.is_some() {
        overrides.push("output_dir".into());
    }
    overrides.extend(
        std::env::vars_os()
            .filter_map(|(k, _)| k.into_string().ok())
            .filter(|k| k.starts_with("PLATEAU__")),
    );
    Launch {
        config_file: Some(args.config.display().to_string()),
        overrides,
    }
}

/// Two file descriptors per connection (client and in-process simulator) plus slack.
fn raise_fd_limit(plan: &Plan) {
    let max_n = u64::from(plan.batch_sizes.iter().copied().max().unwrap_or(1));
    match rlimit::increase_nofile_limit(4 * max_n + 256) {
        Ok(got) if got < 2 * max_n + 64 => {
            tracing::warn!(
                "open-file limit is {got}; concurrency {max_n} may run out of sockets (raise ulimit -n)"
            )
        }
        Ok(_) => {}
        Err(e) => tracing::warn!("could not raise the open-file limit: {e}"),
    }
}
