//! `plateau run`: config -> plan -> preflight -> every cell -> table and verdict.

use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::anyhow;
use plateau_core::driver::{self, RunContext};
use plateau_core::live::Live;
use plateau_http::Client;
use plateau_model::results::{self, run_info::Launch};
use plateau_model::validate::{self, Severity};
use tokio_util::sync::CancellationToken;

use crate::args::RunArgs;
use crate::exit::{self, BadInput, Failure};
use crate::places::Places;
use crate::progress::{Display, RunProgress};
use crate::redact::Redactions;
use crate::resolve::{self, Resolved};
use crate::{limits, load, preflight, quick, server_tokens, signals};

/// Runs the benchmark matrix; every endpoint's secrets join `redactions` before anything
/// is printed.
pub async fn run(
    args: RunArgs,
    display: &Display,
    redactions: &Redactions,
) -> Result<ExitCode, Failure> {
    let load::Loaded {
        mut config,
        mut origins,
        given,
    } = match quick::config(&args) {
        Some(built) => {
            let mut loaded =
                load::load_value(&built, Path::new(quick::SOURCE), &args.set, None).bad_input()?;
            for (key, flag) in quick::keys(&args) {
                loaded.origins.record(key, flag);
            }
            loaded
        }
        None => {
            let source = load::Source::of(args.config.as_deref());
            if source == load::Source::BuiltIn {
                tracing::info!(
                    "no {} here: running the built-in default (`plateau init` writes it to edit)",
                    load::DEFAULT_FILE
                );
            }
            source.load(&args.set, None).bad_input()?
        }
    };
    if let Some(dir) = &args.output_dir {
        config.output_dir = dir.clone();
        origins.record("output_dir", "--output-dir");
    }
    let env = |name: &str| std::env::var(name).ok();
    let places = Places::find();
    let Resolved {
        plan,
        counter,
        server_lengths,
        mut catalog,
        sims,
    } = resolve::resolve(&config, &origins, &env, &places.folders(&config))?;
    redactions.add(
        plan.endpoints
            .iter()
            .flat_map(|e| e.secrets.iter().cloned()),
    );
    let shown = quick::given(&plan.redacted_config, &given).bad_input()?;
    if args.url.is_some() {
        println!(
            "config from --url/--model (edit it with --save-config FILE, run it with --config FILE):"
        );
        println!("{}", serde_json::to_string_pretty(&shown).bad_input()?);
    }
    if let Some(path) = &args.save_config {
        quick::save(path, &shown)?;
        println!("config written to {}", path.display());
    }
    for w in plan.warnings.iter().chain(catalog.warnings()) {
        tracing::warn!("{w}");
    }
    if args.dry_run {
        print!("{}", crate::dry_run::plan(&plan));
        print!("{}", crate::dry_run::output_lengths(&plan, &catalog));
        if let Some(c) = &plan.capacity {
            println!(
                "  + a capacity search per endpoint x model x scenario within {}: \
                 2 to {} open-loop probes each, to {}% resolution",
                c.slo.describe(),
                c.max_probes,
                c.resolution * 100.0
            );
        }
        return Ok(ExitCode::SUCCESS);
    }
    results::check_writable(&plan.output_dir)
        .map_err(|e| Failure::io(anyhow!("cannot write results: {e}")))?;
    limits::raise_open_files(&plan);
    let max_n = plan.max_in_flight() as usize;
    let client = Client::new(max_n + 8).map_err(|e| Failure::other(e.into()))?;
    let (targets, sims) = preflight::resolve_targets(&plan, &sims).await?;
    let prepared = match preflight::check(&plan, &targets, &client).await {
        Ok(infos) if server_lengths => {
            server_tokens::prepare(&plan, &targets, &client, &mut catalog, &*counter)
                .await
                .map(|()| infos)
        }
        other => other,
    };
    let endpoint_infos = match prepared {
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
            counter,
            live,
            interrupt,
            resume: args.resume,
            redo: args.redo.iter().map(|&r| r.into()).collect(),
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
    print!("{}", plateau_report::table::token_checks(&report.summaries));
    if let Some(capacity) = &report.capacity {
        println!("capacity within {}:", capacity.slo.describe());
        for search in &capacity.searches {
            println!("  {}", search.answer());
        }
    }
    if let Some(repeats) = &report.repeats {
        print!("{}", plateau_report::repeats::console(repeats));
    }
    println!("results: {}", plan.output_dir.display());
    if report.interrupted {
        return Err(Failure::interrupted());
    }
    let findings: Vec<_> = report
        .summaries
        .iter()
        .flat_map(|s| validate::check_cell(s, &validate::Thresholds::default()))
        .collect();
    let findings = validate::fold_run_wide(findings, report.summaries.len());
    for (severity, line) in crate::findings::grouped(&findings) {
        match severity {
            Severity::Fail => tracing::error!("{line}"),
            Severity::Warn => tracing::warn!("{line}"),
        }
    }
    if !findings.is_empty() {
        tracing::info!(
            "every finding: plateau validate --results-dir {}",
            plan.output_dir.display()
        );
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
        config_file: Some(match &args.url {
            Some(_) => quick::SOURCE.to_owned(),
            None => load::Source::of(args.config.as_deref()).name(),
        }),
        overrides,
        plateau_commit: Some(crate::args::COMMIT.to_owned()),
    }
}
