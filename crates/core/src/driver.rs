//! Runs a whole plan: for each cell (or its finished summary under `--resume`), build the
//! workload and transport, run the closed loop, summarize, and write the cell's files
//! atomically, then `summary.csv` and `run.json`. A crash or Ctrl-C loses at most the cell
//! in progress, and Ctrl-C still writes it, marked `interrupted`. A cell that gives up (its
//! endpoint kept failing) is written `failed`, and that endpoint's later cells are skipped
//! with the reason; other endpoints go on. `resume` decides which earlier results stand;
//! `run_json` keeps `run.json` honest to the end, `failed` included.

mod capacity;
mod error;
mod resume;
mod run_json;
mod server_metrics;

pub use error::DriverError;

use std::path::Path;
use std::sync::Arc;

use chrono::Utc;
use tokio_util::sync::CancellationToken;

use crate::client::Client;
use crate::clock::{Clock, micros};
use crate::fingerprint::{self, Fingerprint};
use crate::live::Live;
use crate::metrics::{self, Options, Window};
use crate::plan::{BaseUrl, Cell, LoadInfo, Plan};
use crate::recorder::Recorder;
use crate::results::capacity::CapacityReport;
use crate::results::repeats::{self, RepeatsReport};
use crate::results::run_info::{CellState, EndpointInfo, Launch, RunInfo, RunStatus};
use crate::results::summary::{
    CellInfo, CellStatus, CellSummary, PhaseBounds, RecordsInfo, SCHEMA_VERSION,
};
use crate::results::{self, REQUESTS_FILE, ResultsError, SUMMARY_FILE};
use crate::runner::{self, CellInput, Ending, Failures, GiveUp, Timer};
use crate::tokens::TokenCounter;
use crate::transport::HttpTransport;
use crate::workload::{Workload, WorkloadFactory};

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
    /// How this run was started, for `run.json`.
    pub launch: Launch,
    /// Progress.
    pub observer: &'a dyn Observer,
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
    let endpoints = run_json::endpoints(plan, &ctx).await;
    let mut info = run_json::open(plan, &ctx, endpoints, &cells, &run_path);
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
    };
    let at = Place {
        plan,
        ctx,
        run_path,
    };
    for (index, cell) in cells.iter().enumerate() {
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
        && let Some(done) = resume::reuse(&dir, &fingerprint, &mut info.cells[index])
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
    ctx.observer.cell_started(index, total, cell);
    ctx.live.reset();
    // What run.json says if an error stops the run inside this cell.
    info.cells[index].state = CellState::Failed;
    let failures = Failures {
        give_up: state.watches[cell.endpoint].clone(),
        seed: plan.seed ^ (index as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15),
    };
    let job = Job {
        workload,
        fingerprint,
        failures,
        scrape_every: plan
            .server_metrics
            .filter(|_| !state.scrape_off[cell.endpoint]),
    };
    let (summary, gave_up, scrape_refused) =
        run_one(plan, cell, &dir, job, ctx, &state.endpoints).await?;
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

/// What one cell runs with, besides the plan and the run's context.
struct Job {
    workload: Arc<dyn Workload>,
    fingerprint: Fingerprint,
    failures: Failures,
    /// Scrape the server's `/metrics` this often (`None`: off, or the endpoint has none).
    scrape_every: Option<std::time::Duration>,
}

async fn run_one(
    plan: &Plan,
    cell: &Cell,
    dir: &Path,
    job: Job,
    ctx: &RunContext<'_>,
    endpoints: &[Arc<crate::plan::Endpoint>],
) -> Result<(CellSummary, bool, Option<String>), DriverError> {
    let Job {
        workload,
        fingerprint,
        failures,
        scrape_every,
    } = job;
    let endpoint = &endpoints[cell.endpoint];
    let model = &plan.models[cell.model];
    let base = &ctx.targets[cell.endpoint];
    std::fs::create_dir_all(dir).map_err(|e| ResultsError::io(dir, e))?;
    let requests_path = dir.join(REQUESTS_FILE);
    let tmp = results::temp_path(&requests_path);
    let recorder = Recorder::spawn(
        Some(tmp.clone()),
        ctx.counter.clone(),
        plan.request.store_text,
        ctx.live.clone(),
    )
    .map_err(|e| ResultsError::io(&tmp, e))?;
    let transport = HttpTransport::new(
        ctx.client.clone(),
        base,
        endpoint.clone(),
        model.name.clone(),
        plan.request,
    )
    .map_err(|e| DriverError::Setup(format!("endpoint {}: {e}", endpoint.name)))?;
    let schedule = plan.schedule(&cell.load);
    let workload_info = workload.info();
    let started_at = Utc::now();
    let clock = Clock::start();
    let scraper = server_metrics::start(scrape_every, endpoint, base, clock);
    let mut out = runner::run_cell_on(
        CellInput {
            transport: Arc::new(transport),
            workload,
            load: cell.load,
            schedule,
            seed: arrival_seed(plan.seed, cell),
            timer: Timer::Precise,
            live: ctx.live.clone(),
            interrupt: ctx.interrupt.clone(),
            failures,
        },
        recorder,
        clock,
    )
    .await;
    let ended_at = Utc::now();
    let write_failure = out.recorded.write_error.take();
    let write_error = write_failure.as_ref().map(|e| e.to_string());
    if write_error.is_none() {
        std::fs::rename(&tmp, &requests_path).map_err(|e| ResultsError::io(&requests_path, e))?;
    }
    let window = Window {
        m0_us: out.bounds.m0_us,
        m1_us: out.bounds.m1_us,
        concurrency: cell.load.concurrency(),
    };
    let metrics = metrics::summarize(
        &out.recorded.samples,
        &window,
        &Options {
            slo: plan.slo.as_ref(),
            steady: &plan.steady,
            stream: plan.request.stream,
            target_rps: cell.load.rate().map(|r| r.rps),
        },
    );
    let gave_up = out.ending == Ending::Failed;
    let (status, failure) = match out.ending {
        Ending::Interrupted => (CellStatus::Interrupted, None),
        Ending::Failed => (CellStatus::Failed, out.failure.clone()),
        Ending::Complete | Ending::DrainTimedOut => {
            match no_success(&metrics, &out.recorded.samples) {
                Some(why) => (CellStatus::Failed, Some(why)),
                None => (CellStatus::Complete, None),
            }
        }
    };
    let mut summary = CellSummary {
        schema_version: SCHEMA_VERSION,
        plateau_version: VERSION.into(),
        status,
        failure,
        cell: CellInfo {
            endpoint: endpoint.name.clone(),
            engine: endpoint.engine,
            url: fingerprint::endpoint_url(endpoint),
            model: model.id.clone(),
            model_name: model.name.clone(),
            scenario: cell.scenario.clone(),
            load: LoadInfo::from(&cell.load),
            api: endpoint.api,
            stream: plan.request.stream,
            max_tokens: plan.request.max_tokens,
            ignore_eos: endpoint.ignore_eos,
            repeat: cell.repeat,
            labels: Default::default(),
            hardware: None,
        },
        workload: workload_info,
        tokenizer: ctx.counter.name(),
        fingerprint: Some(fingerprint),
        phases: PhaseBounds {
            fill_s: schedule.fill.as_secs_f64(),
            stabilize_s: schedule.stabilize.as_secs_f64(),
            measure_s: schedule.measure.as_secs_f64(),
            drain_max_s: out.drain.limit.as_secs_f64(),
            drain_limit: out.drain.source.clone(),
            m0_us: micros(schedule.m0()),
            m1_us: micros(schedule.m1()),
            drain_end_us: out.bounds.drain_end_us,
            end_us: out.bounds.end_us,
            drain_timed_out: out.ending == Ending::DrainTimedOut,
        },
        started_at,
        ended_at,
        records: RecordsInfo {
            file: if write_error.is_none() {
                REQUESTS_FILE.into()
            } else {
                results::temp_path(Path::new(REQUESTS_FILE))
                    .to_string_lossy()
                    .into_owned()
            },
            count: out.recorded.samples.len() as u64,
            write_error,
        },
        client: out.client.clone(),
        server: None,
        cost: None,
        metrics,
    };
    summary.describe_endpoint(&endpoint.labels, endpoint.hardware.as_ref());
    // The scrapes' file is written before the summary; if it cannot be, the summary still
    // is, and the error stops the run after it.
    let (scrape_refused, scrape_error) = match scraper {
        Some(s) => match s.finish(dir, &summary.phases).await {
            Ok(done) => {
                summary.server = done.server;
                (done.refused, None)
            }
            Err(e) => (None, Some(e)),
        },
        None => (None, None),
    };
    let written = results::write_json(&dir.join(SUMMARY_FILE), &summary);
    // Records that could not be written stop the run, named first (the summary, kept if it
    // could be written, has the numbers; `--resume` redoes the cell).
    if let Some(e) = write_failure {
        return Err(ResultsError::io(&tmp, e).into());
    }
    written?;
    if let Some(e) = scrape_error {
        return Err(e.into());
    }
    Ok((summary, gave_up, scrape_refused))
}

/// The seed of a cell's arrival schedule: the same plan seed, scenario and load give the
/// same arrivals, whatever other cells the plan has.
fn arrival_seed(seed: u64, cell: &Cell) -> u64 {
    let scenario = fingerprint::fnv1a64(cell.scenario.as_bytes());
    seed ^ scenario.rotate_left(17) ^ cell.load.seed_key().wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

/// Why a cell that ran its course has no data: every measured request failed. Such a cell
/// is `failed` (so `--resume` redoes it), but its endpoint is not given up on for it.
fn no_success(metrics: &metrics::Metrics, samples: &[crate::sample::Sample]) -> Option<String> {
    let r = &metrics.requests;
    if r.measured_ok > 0 || r.measured_errors == 0 {
        return None;
    }
    let last = samples
        .iter()
        .filter(|s| s.outcome.is_error())
        .max_by_key(|s| s.t_end_us)
        .and_then(|s| s.error.as_deref())
        .map(|e| format!("; last: {e}"))
        .unwrap_or_default();
    Some(format!(
        "no measured request succeeded ({} failed: {}){last}",
        r.measured_errors,
        r.measured_error_kinds()
    ))
}
