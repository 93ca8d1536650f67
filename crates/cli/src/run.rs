//! `plateau run`: config -> plan -> the output directory claimed -> workloads -> preflight
//! -> every cell -> table and verdict; a stopping signal ends it at any of these steps
//! with exit 130 and `run.json` saying where.

use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::anyhow;
use plateau_core::driver::{self, RunContext, Start};
use plateau_core::live::Live;
use plateau_core::plan::{BaseUrl, Plan};
use plateau_http::Client;
use plateau_model::results::claim::{self, Claim, ClaimError};
use plateau_model::results::run_info::{EndpointInfo, Launch};
use plateau_model::validate::{self, Severity};
use tokio_util::sync::CancellationToken;

use crate::args::RunArgs;
use crate::exit::{self, BadInput, Failure};
use crate::places::Places;
use crate::progress::{Display, RunProgress};
use crate::redact::Redactions;
use crate::resolve::{self, Resolved, Stop};
use crate::{context, limits, load, preflight, quick, server_tokens, signals};

/// Runs the benchmark matrix; every endpoint's secrets join `redactions` before anything
/// is printed. A stopping signal is heard from the first instant: while the workloads are
/// prepared, at preflight, in every phase of every cell and as the run ends.
pub async fn run(
    args: RunArgs,
    display: &Display,
    redactions: &Redactions,
) -> Result<ExitCode, Failure> {
    let interrupt = CancellationToken::new();
    signals::cancel_on_stop(interrupt.clone());
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
    let shard = crate::shard::of(&args, &env).await.bad_input()?;
    let started = resolve::start(
        &config,
        &origins,
        &env,
        &places.folders(&config),
        shard.as_ref(),
    );
    let start = Start::now(args.resume, launch(&args));
    // Claimed before the workloads are ready: a second run is refused at once, not after
    // minutes of preparation.
    let _claim = match started.plan() {
        Some(plan) if !args.dry_run => Some(claim(plan, args.force)?),
        _ => None,
    };
    signals::hold_at("prepare", &interrupt).await;
    let Resolved {
        mut plan,
        counter,
        server_lengths,
        mut catalog,
        mut sims,
    } = match started.finish(&origins, &interrupt).await {
        Ok(r) => r,
        Err(Stop::Failed(f)) => return Err(f),
        Err(Stop::Interrupted(plan)) => {
            return Err(stopped(
                plan.as_deref().filter(|_| !args.dry_run),
                &start,
                PREPARING,
            ));
        }
    };
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
    limits::raise_open_files(&plan);
    let pool = plan.max_in_flight() as usize + 8;
    // Listening before preflight, so a server's first spans are already received.
    let spans = crate::server_traces::start(&config, &plan, &mut sims)?;
    signals::hold_at("preflight", &interrupt).await;
    let checked = tokio::select! {
        biased;
        () = interrupt.cancelled() => return Err(stopped(Some(&plan), &start, PREFLIGHT)),
        checked = preflight(&plan, &sims, pool, redactions) => checked?,
    };
    let (client, targets, endpoint_infos, sims) = checked;
    if server_lengths {
        // Cut again in each server's tokens, still listening for a stopping signal.
        let cut = tokio::select! {
            biased;
            () = interrupt.cancelled() => Err(stopped(Some(&plan), &start, PREPARING)),
            cut = server_tokens::prepare(&plan, &targets, &client, &mut catalog, &*counter) => cut,
        };
        if let Err(f) = cut {
            sims.shutdown().await;
            return Err(f);
        }
    }
    // A custom prompt is never recut: its length is in the catalog's own tokenizer, also
    // under `server`, whose counter names no tokenizer that counted it.
    let tokens = catalog.tokenizer().name();
    if let Err(f) = context::check(&plan, &endpoint_infos, &catalog.longest_prompts(), &tokens) {
        sims.shutdown().await;
        return Err(f);
    }

    if !crate::shard::start(
        &mut plan,
        shard.as_ref().and_then(|s| s.start_at),
        &interrupt,
    )
    .await
    {
        sims.shutdown().await;
        return Err(stopped(Some(&plan), &start, WAITING));
    }
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
            interrupt: interrupt.clone(),
            resume: start.resume,
            redo: args.redo.iter().map(|&r| r.into()).collect(),
            launch: start.launch.clone(),
            started_at: start.started_at,
            observer: &progress,
            spans: spans.map(tokio::sync::Mutex::new),
        },
    )
    .await;
    drop(progress);
    sims.shutdown().await;
    let report = result.map_err(failure)?;
    signals::hold_at("end", &interrupt).await;
    let code = end_report(&plan, &report);
    if report.interrupted {
        return Err(Failure::interrupted());
    }
    if interrupt.is_cancelled() {
        return Err(Failure::interrupted_at_end());
    }
    if args.history {
        record(&plan.output_dir, args.db.clone(), &args.label)?;
    }
    Ok(code)
}

/// `--history`: records the finished run; a failure says how to record it later.
fn record(
    dir: &std::path::Path,
    db: Option<std::path::PathBuf>,
    labels: &[String],
) -> Result<(), Failure> {
    let later = || {
        let labels: String = labels.iter().map(|l| format!(" --label {l}")).collect();
        format!(
            "the results are written; record them later with `plateau history add {}{labels}`",
            dir.display()
        )
    };
    let mut store = crate::history::open(db).map_err(|f| f.context(later()))?;
    crate::history::add(&mut store, dir, labels).map_err(|f| f.context(later()))?;
    Ok(())
}

/// What a run was doing when a stopping signal ended it before its first cell.
const PREPARING: &str = "preparing the workloads";
/// See [`PREPARING`].
const WAITING: &str = "waiting for --start-at";
/// See [`PREPARING`].
const PREFLIGHT: &str = "checking the endpoints (preflight)";

/// Claims the plan's output directory (exit 2 when another run holds it, or when it is not
/// plateau's and `force` is off; exit 4 when it cannot be written).
fn claim(plan: &Plan, force: bool) -> Result<Claim, Failure> {
    let cells: Vec<String> = plan.cells().iter().map(|c| plan.cell_label(c)).collect();
    let claim = claim::claim(&plan.output_dir, force, &cells).map_err(|e| match e {
        ClaimError::Io(e) => Failure::io(anyhow!("cannot write results: {e}")),
        other => Failure::bad_input(other.into()),
    })?;
    if let Some(holder) = &claim.stale {
        tracing::warn!(
            "{}: taking over the lock of {holder}, which is gone (it crashed or was killed); \
             the cell it was running is redone by --resume",
            plan.output_dir.display()
        );
    }
    Ok(claim)
}

/// The exit of a run a stopping signal ended `while_` it was getting ready: `run.json`
/// says so (when the run has a plan and a directory), exit 130.
fn stopped(plan: Option<&Plan>, start: &Start, while_: &str) -> Failure {
    if let Some(plan) = plan {
        let endpoints = driver::plan_endpoints(plan);
        if let Err(e) = driver::interrupted_before_cells(plan, start, endpoints, while_) {
            tracing::error!("run.json could not record the interrupt: {e}");
        }
    }
    Failure::interrupted_while(while_)
}

/// Starts the in-process simulators, builds the client that reaches every endpoint (its
/// proxy, its TLS) and checks each one: the client, each one's base URL and preflight
/// findings, and the simulators to stop when the run ends.
async fn preflight(
    plan: &Plan,
    sims: &[Option<plateau_sim::SimConfig>],
    pool: usize,
    redactions: &Redactions,
) -> Result<(Client, Vec<BaseUrl>, Vec<EndpointInfo>, preflight::Sims), Failure> {
    let (targets, sims) = preflight::resolve_targets(plan, sims).await?;
    let checked = match crate::network::client(plan, &targets, pool, redactions) {
        Ok(client) => preflight::check(plan, &targets, &client)
            .await
            .map(|infos| (client, infos)),
        Err(f) => Err(f),
    };
    match checked {
        Ok((client, infos)) => Ok((client, targets, infos, sims)),
        Err(f) => {
            sims.shutdown().await;
            Err(f)
        }
    }
}

/// Prints the results table, capacity and repeats, and the findings; exit 1 when a
/// finding fails.
fn end_report(plan: &Plan, report: &driver::RunReport) -> ExitCode {
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
        return ExitCode::from(exit::INTERRUPTED);
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
        return ExitCode::from(exit::VALIDATION);
    }
    ExitCode::SUCCESS
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
