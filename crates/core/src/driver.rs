//! Runs a whole plan: for each cell (or its finished summary under `--resume`), build the
//! workload and transport, run the closed loop, summarize, and write the cell's files
//! atomically, then `summary.csv` and `run.json`. A crash or Ctrl-C loses at most the cell
//! in progress, and Ctrl-C still writes it, marked `interrupted`. A cell that gives up (its
//! endpoint kept failing) is written `failed`, and that endpoint's later cells are skipped
//! with the reason; other endpoints go on. `resume` decides which earlier results stand;
//! `run_json` keeps `run.json` honest to the end, `failed` included; `cell` runs one cell.

mod capacity;
mod cell;
mod error;
mod resume;

pub use resume::Redo;
mod gpu_metrics;
mod run_json;
mod server_metrics;

pub use error::DriverError;
pub use run_json::{Start, interrupted_before_cells, plan_endpoints};

/// What a run was doing when a stopping signal came as it asked each server for its
/// configuration, before the first cell.
const ASKING: &str = "asking the servers for their configuration";

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use tokio_util::sync::CancellationToken;

use crate::fingerprint::{self};
use crate::live::Live;
use crate::plan::{BaseUrl, Cell, Plan};
use crate::runner::{Failures, GiveUp};
use crate::token_check::{self, TokenCheck};
use crate::tokens::TokenCounter;
use crate::workload::WorkloadFactory;
use plateau_http::Client;
use plateau_model::results::capacity::CapacityReport;
use plateau_model::results::repeats::{self, RepeatsReport};
use plateau_model::results::run_info::{CellState, EndpointInfo, Launch, RunInfo, RunStatus};
use plateau_model::results::summary::{CellStatus, CellSummary};
use plateau_model::results::{self, SUMMARY_FILE};

/// plateau's version, written into every result file.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// Hears about cells as they start and end (the binary draws progress from this).
pub trait Observer: Send + Sync {
    /// A cell is about to run; `index` counts from 0 of `total`.
    fn cell_started(&self, _index: usize, _total: usize, _cell: &Cell) {}
    /// A cell ended (or was skipped under `--resume`) with this summary.
    fn cell_finished(
        &self,
        _index: usize,
        _total: usize,
        _cell: &Cell,
        _summary: &CellSummary,
        _resumed: bool,
    ) {
    }
    /// A cell was not run: an earlier cell of its endpoint gave up.
    fn cell_skipped(&self, _index: usize, _total: usize, _cell: &Cell, _reason: &str) {}
}

/// What a run needs besides the plan.
pub struct RunContext<'a> {
    /// Shared HTTP client.
    pub client: Client,
    /// Base URL of each endpoint, in plan order (the simulator's loopback address for
    /// in-process endpoints).
    pub targets: Vec<BaseUrl>,
    /// Preflight findings per endpoint, for `run.json`.
    pub endpoint_infos: Vec<EndpointInfo>,
    /// Builds workloads.
    pub workloads: &'a dyn WorkloadFactory,
    /// Client tokenizer.
    pub counter: Arc<dyn TokenCounter>,
    /// Live counters.
    pub live: Arc<Live>,
    /// Ctrl-C.
    pub interrupt: CancellationToken,
    /// Reuse cells whose complete summary exists with the same fingerprint.
    pub resume: bool,
    /// Under `resume`, cells to run again although they could be reused (`--redo`).
    pub redo: Vec<Redo>,
    /// How this run was started, for `run.json`.
    pub launch: Launch,
    /// When this invocation started, for `run.json`.
    pub started_at: chrono::DateTime<chrono::Utc>,
    /// Progress.
    pub observer: &'a dyn Observer,
    /// The servers' spans (`server_traces`): each cell's records are joined to them.
    pub spans: Option<tokio::sync::Mutex<crate::server_traces::Spans>>,
}

/// The run's outcome.
#[derive(Debug)]
pub struct RunReport {
    /// Every cell's summary, in plan order (skipped cells included).
    pub summaries: Vec<CellSummary>,
    /// Ctrl-C ended the run.
    pub interrupted: bool,
    /// The run's metadata as written.
    pub info: RunInfo,
    /// The capacity searches' answers, when `capacity` is configured (also in
    /// `capacity.json`).
    pub capacity: Option<CapacityReport>,
    /// Each headline number's spread across runs, with `repeats` above 1 (also in
    /// `repeats.json`).
    pub repeats: Option<RepeatsReport>,
}

/// Runs every cell of `plan`. An error after `run.json` is first written comes back as
/// [`DriverError::Stopped`], with `run.json` closed as `failed` (best effort); cells already
/// written stay.
pub async fn run_plan(plan: &Plan, ctx: RunContext<'_>) -> Result<RunReport, DriverError> {
    if ctx.targets.len() != plan.endpoints.len() {
        return Err(DriverError::Setup(
            "one target URL per endpoint expected".into(),
        ));
    }
    let cells = plan.cells();
    let run_path = plan.output_dir.join(results::RUN_FILE);
    let start = Start {
        resume: ctx.resume,
        launch: ctx.launch.clone(),
        started_at: ctx.started_at,
    };
    let endpoints = tokio::select! {
        biased;
        () = ctx.interrupt.cancelled() => {
            let infos = if ctx.endpoint_infos.len() == plan.endpoints.len() {
                ctx.endpoint_infos.clone()
            } else {
                plan_endpoints(plan)
            };
            let info = run_json::interrupted_before_cells(plan, &start, infos, ASKING)?;
            return Ok(RunReport {
                summaries: Vec::new(),
                interrupted: true,
                info,
                capacity: None,
                repeats: None,
            });
        }
        e = run_json::endpoints(plan, &ctx) => e,
    };
    let mut info = run_json::open(plan, &start, endpoints, &cells, &run_path);
    results::write_json(&run_path, &info)?;
    run_cells(plan, &ctx, &cells, &run_path, &mut info)
        .await
        .map_err(|e| run_json::fail(&run_path, &mut info, e))
}

async fn run_cells(
    plan: &Plan,
    ctx: &RunContext<'_>,
    cells: &[Cell],
    run_path: &Path,
    info: &mut RunInfo,
) -> Result<RunReport, DriverError> {
    let mut state = State {
        endpoints: plan.endpoints.iter().cloned().map(Arc::new).collect(),
        summaries: Vec::new(),
        interrupted: false,
        failed_endpoints: vec![None; plan.endpoints.len()],
        watches: plan
            .endpoints
            .iter()
            .map(|_| Arc::new(GiveUp::new(plan.give_up_after)))
            .collect(),
        scrape_off: vec![false; plan.endpoints.len()],
        token_checks: HashMap::new(),
    };
    let at = Place {
        plan,
        ctx,
        run_path,
    };
    for (index, cell) in cells.iter().enumerate() {
        if ctx.interrupt.is_cancelled() {
            state.interrupted = true;
            break;
        }
        visit(&at, &mut state, info, index, cell).await?;
        if state.interrupted {
            break;
        }
    }
    let capacity = match &plan.capacity {
        Some(config) if !state.interrupted => {
            Some(capacity::search_all(&at, &mut state, info, config).await?)
        }
        _ => None,
    };
    let status = if state.interrupted {
        RunStatus::Interrupted
    } else {
        RunStatus::Complete
    };
    let repeats = (plan.repeats > 1).then(|| repeats::aggregate(&state.summaries, plan.repeats));
    if let Some(report) = &repeats {
        results::write_json(&plan.output_dir.join(repeats::REPEATS_FILE), report)?;
    }
    run_json::close(info, status, None);
    results::csv::write(&plan.output_dir.join(results::CSV_FILE), &state.summaries)?;
    results::write_json(run_path, info)?;
    Ok(RunReport {
        summaries: state.summaries,
        interrupted: state.interrupted,
        info: info.clone(),
        capacity,
        repeats,
    })
}

/// What every cell of a run shares.
struct Place<'a, 'c> {
    plan: &'a Plan,
    ctx: &'a RunContext<'c>,
    run_path: &'a Path,
}

/// What the run has learnt so far.
struct State {
    endpoints: Vec<Arc<crate::plan::Endpoint>>,
    /// Every cell's summary so far, in run order (skipped cells have none).
    summaries: Vec<CellSummary>,
    /// Ctrl-C ended a cell.
    interrupted: bool,
    /// Why each endpoint is given up on, once one of its cells gave up.
    failed_endpoints: Vec<Option<String>>,
    /// Each endpoint's failure streak, carried from one of its cells to the next.
    watches: Vec<Arc<GiveUp>>,
    /// Endpoints whose `/metrics` proved unusable: not scraped again this run.
    scrape_off: Vec<bool>,
    /// The server's `/tokenize` count of each (endpoint, model, scenario)'s prompts, asked
    /// before its first cell runs.
    token_checks: HashMap<(usize, usize, String), Option<TokenCheck>>,
}

/// Runs the cell at `index` of `run.json`'s list, reuses it (`--resume`), or skips it (its
/// endpoint gave up); returns its summary, `None` when skipped.
async fn visit(
    at: &Place<'_, '_>,
    state: &mut State,
    info: &mut RunInfo,
    index: usize,
    cell: &Cell,
) -> Result<Option<CellSummary>, DriverError> {
    let (plan, ctx) = (at.plan, at.ctx);
    let total = info.cells.len();
    let dir = plan.cell_dir(cell);
    let workload = ctx
        .workloads
        .workload(plan, cell)
        .map_err(|message| DriverError::Workload {
            scenario: cell.scenario.clone(),
            message,
        })?;
    let fingerprint = fingerprint::of(plan, cell, workload.info(), ctx.counter.name());
    if ctx.resume
        && let Some(done) = resume::reuse(&dir, &fingerprint, &ctx.redo, &mut info.cells[index])
    {
        let mut done = done;
        let endpoint = &plan.endpoints[cell.endpoint];
        if done.cell.labels != endpoint.labels || done.cell.hardware != endpoint.hardware {
            done.describe_endpoint(&endpoint.labels, endpoint.hardware.as_ref());
            results::write_json(&dir.join(SUMMARY_FILE), &done)?;
        }
        ctx.observer.cell_finished(index, total, cell, &done, true);
        info.cells[index].state = CellState::Resumed;
        state.summaries.push(done.clone());
        return Ok(Some(done));
    }
    if let Some(reason) = &state.failed_endpoints[cell.endpoint] {
        ctx.observer
            .cell_skipped(index, total, cell, reason.as_str());
        info.cells[index].state = CellState::Skipped;
        info.cells[index].reason = Some(reason.clone());
        return Ok(None);
    }
    let Some((token_check, scheduled)) = before_cell(at, state, cell, index).await else {
        // Stopped before the cell started: it stays pending.
        state.interrupted = true;
        return Ok(None);
    };
    ctx.observer.cell_started(index, total, cell);
    ctx.live.reset();
    // On disk while the cell runs (and if plateau dies in it); in memory, what run.json
    // says if an error stops the run inside this cell.
    info.cells[index].state = CellState::Running;
    results::write_json(at.run_path, info)?;
    info.cells[index].state = CellState::Failed;
    let failures = Failures {
        give_up: state.watches[cell.endpoint].clone(),
        seed: plan.seed ^ (index as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15),
    };
    let job = cell::Job {
        workload,
        fingerprint,
        failures,
        token_check,
        scheduled,
        scrape_every: plan
            .server_metrics
            .filter(|_| !state.scrape_off[cell.endpoint]),
    };
    let (summary, gave_up, scrape_refused) =
        cell::run_one(plan, cell, &dir, job, ctx, &state.endpoints).await?;
    if let Some(why) = scrape_refused {
        // A body quoted in the reason could echo a credential.
        let why = plan.endpoints[cell.endpoint].scrub(&why);
        tracing::info!(
            "endpoint {}: {why}; not scraping its server metrics for the rest of the run",
            plan.endpoints[cell.endpoint].name
        );
        state.scrape_off[cell.endpoint] = true;
    }
    state.interrupted = summary.status == CellStatus::Interrupted;
    info.cells[index].state = summary.status.into();
    info.cells[index].reason = summary.failure.clone();
    if gave_up {
        let why = summary.failure.clone().unwrap_or_default();
        tracing::error!(
            "{}: gave up: {why}; skipping the rest of endpoint {}",
            info.cells[index].path,
            plan.endpoints[cell.endpoint].name
        );
        state.failed_endpoints[cell.endpoint] =
            Some(format!("{} gave up: {why}", info.cells[index].path));
    }
    ctx.observer
        .cell_finished(index, total, cell, &summary, false);
    state.summaries.push(summary.clone());
    results::csv::write(&plan.output_dir.join(results::CSV_FILE), &state.summaries)?;
    results::write_json(at.run_path, info)?;
    Ok(Some(summary))
}

/// The server's count of the cell's prompts, then the wait for the cell's instant on the
/// load-sharded timetable (that instant is returned); `None` when a stopping signal came first.
async fn before_cell(
    at: &Place<'_, '_>,
    state: &mut State,
    cell: &Cell,
    index: usize,
) -> Option<(Option<TokenCheck>, Option<chrono::DateTime<chrono::Utc>>)> {
    let check = tokio::select! {
        biased;
        () = at.ctx.interrupt.cancelled() => return None,
        check = token_check(at, state, cell) => check,
    };
    let scheduled = at.plan.timetable.map(|t| t.cell_start(index));
    match scheduled {
        Some(instant) if !cell::wait_for(instant, &at.ctx.interrupt).await => None,
        _ => Some((check, scheduled)),
    }
}

/// The server's count of the cell's scenario's prompts, asked once per endpoint, model and
/// scenario (the first cell of each asks; `--resume`d cells do not). The check draws its
/// prompts from its own instance of the cell's workload, so the cell's instance (an ordered
/// replay's cursor, a session's first turn) starts where it would without the check.
async fn token_check(at: &Place<'_, '_>, state: &mut State, cell: &Cell) -> Option<TokenCheck> {
    let key = (cell.endpoint, cell.model, cell.scenario.clone());
    if let Some(done) = state.token_checks.get(&key) {
        return done.clone();
    }
    let workload = at.ctx.workloads.workload(at.plan, cell).ok()?;
    let server = token_check::Server {
        client: &at.ctx.client,
        endpoint: &at.plan.endpoints[cell.endpoint],
        base: &at.ctx.targets[cell.endpoint],
        model: &at.plan.models[cell.model].name,
    };
    let check = token_check::run(&server, workload.as_ref(), at.ctx.counter.as_ref()).await;
    if let Some(c) = &check {
        match (&c.error, c.rel_diff) {
            (Some(e), _) => tracing::debug!("{}: no token check: {e}", cell.scenario),
            (None, Some(d)) => tracing::debug!(
                "{}: the server counts the prompts {:+.1}% against plateau's tokenizer",
                cell.scenario,
                d * 100.0
            ),
            (None, None) => {}
        }
    }
    state.token_checks.insert(key, check.clone());
    check
}
