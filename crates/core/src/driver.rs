//! Runs a whole plan: for each cell (or its finished summary under `--resume`), build the
//! workload and transport, run the closed loop, summarize, and write the cell's files
//! atomically, then `summary.csv` and `run.json`. A crash or Ctrl-C loses at most the cell
//! in progress, and Ctrl-C still writes it, marked `interrupted`. `resume` decides which
//! earlier results stand; `run_json` keeps `run.json` honest to the end, `failed` included.

mod resume;
mod run_json;

use std::path::Path;
use std::sync::Arc;

use chrono::Utc;
use tokio_util::sync::CancellationToken;

use crate::client::Client;
use crate::clock::micros;
use crate::live::Live;
use crate::metrics::{self, Options, Window};
use crate::plan::{BaseUrl, Cell, Plan};
use crate::recorder::Recorder;
use crate::results::fingerprint::{self, Fingerprint};
use crate::results::run_info::{CellState, EndpointInfo, Launch, RunInfo, RunStatus};
use crate::results::summary::{
    CellInfo, CellStatus, CellSummary, PhaseBounds, RecordsInfo, SCHEMA_VERSION,
};
use crate::results::{self, REQUESTS_FILE, ResultsError, SUMMARY_FILE};
use crate::runner::{self, CellInput, Ending};
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

/// A run that could not go on.
#[derive(Debug, thiserror::Error)]
pub enum DriverError {
    /// A result file could not be written.
    #[error(transparent)]
    Results(#[from] ResultsError),
    /// A workload could not be built.
    #[error("scenario {scenario}: {message}")]
    Workload {
        /// Scenario id.
        scenario: String,
        /// What is wrong.
        message: String,
    },
    /// The targets do not match the plan.
    #[error("{0}")]
    Setup(String),
    /// The run stopped on `cause` after `run.json` was opened; `run.json` was closed as
    /// `failed`, unless writing it failed too (`run_json`).
    #[error("{cause}{}", unclosed(run_json))]
    Stopped {
        /// What stopped the run.
        cause: Box<DriverError>,
        /// Why `run.json` could not be closed, if it could not.
        run_json: Option<ResultsError>,
    },
}

impl DriverError {
    /// What stopped the run, past any [`DriverError::Stopped`] wrapper.
    pub fn cause(&self) -> &DriverError {
        match self {
            DriverError::Stopped { cause, .. } => cause.cause(),
            other => other,
        }
    }

    /// Whether a result file could not be written or read (exit code 4 in the binary).
    pub fn is_io(&self) -> bool {
        match self {
            DriverError::Results(ResultsError::Io { .. }) => true,
            DriverError::Stopped { cause, run_json } => {
                cause.is_io() || matches!(run_json, Some(ResultsError::Io { .. }))
            }
            _ => false,
        }
    }
}

/// The part of a [`DriverError::Stopped`] message about `run.json`.
fn unclosed(run_json: &Option<ResultsError>) -> String {
    run_json.as_ref().map_or(String::new(), |e| {
        format!("; run.json could not be marked failed either ({e})")
    })
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
    let mut info = run_json::open(plan, &ctx, &cells, &run_path);
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
    let endpoints: Vec<_> = plan.endpoints.iter().cloned().map(Arc::new).collect();
    let mut summaries = Vec::new();
    let mut interrupted = false;
    for (index, cell) in cells.iter().enumerate() {
        let dir = plan.cell_dir(cell);
        let workload =
            ctx.workloads
                .workload(plan, cell)
                .map_err(|message| DriverError::Workload {
                    scenario: cell.scenario.clone(),
                    message,
                })?;
        let fingerprint = Fingerprint::of(plan, cell, workload.info(), ctx.counter.name());
        if ctx.resume
            && let Some(done) = resume::reuse(&dir, &fingerprint, &mut info.cells[index])
        {
            ctx.observer
                .cell_finished(index, cells.len(), cell, &done, true);
            info.cells[index].state = CellState::Resumed;
            summaries.push(done);
            continue;
        }
        ctx.observer.cell_started(index, cells.len(), cell);
        ctx.live.reset();
        // What run.json says if an error stops the run inside this cell.
        info.cells[index].state = CellState::Failed;
        let summary = run_one(plan, cell, &dir, workload, fingerprint, ctx, &endpoints).await?;
        interrupted = summary.status == CellStatus::Interrupted;
        info.cells[index].state = if interrupted {
            CellState::Interrupted
        } else {
            CellState::Complete
        };
        ctx.observer
            .cell_finished(index, cells.len(), cell, &summary, false);
        summaries.push(summary);
        results::csv::write(&plan.output_dir.join(results::CSV_FILE), &summaries)?;
        results::write_json(run_path, info)?;
        if interrupted {
            break;
        }
    }
    let status = if interrupted {
        RunStatus::Interrupted
    } else {
        RunStatus::Complete
    };
    run_json::close(info, status, None);
    results::csv::write(&plan.output_dir.join(results::CSV_FILE), &summaries)?;
    results::write_json(run_path, info)?;
    Ok(RunReport {
        summaries,
        interrupted,
        info: info.clone(),
    })
}

fn relative(plan: &Plan, cell: &Cell) -> String {
    let dir = plan.cell_dir(cell);
    dir.strip_prefix(&plan.output_dir)
        .unwrap_or(&dir)
        .to_string_lossy()
        .into_owned()
}

async fn run_one(
    plan: &Plan,
    cell: &Cell,
    dir: &Path,
    workload: Arc<dyn Workload>,
    fingerprint: Fingerprint,
    ctx: &RunContext<'_>,
    endpoints: &[Arc<crate::plan::Endpoint>],
) -> Result<CellSummary, DriverError> {
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
    let schedule = plan.schedule(cell.concurrency);
    let workload_info = workload.info();
    let started_at = Utc::now();
    let mut out = runner::run_cell(
        CellInput {
            transport: Arc::new(transport),
            workload,
            schedule,
            live: ctx.live.clone(),
            interrupt: ctx.interrupt.clone(),
        },
        recorder,
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
        concurrency: cell.concurrency,
    };
    let metrics = metrics::summarize(
        &out.recorded.samples,
        &window,
        &Options {
            slo: plan.slo.as_ref(),
            steady: &plan.steady,
            stream: plan.request.stream,
        },
    );
    let summary = CellSummary {
        schema_version: SCHEMA_VERSION,
        plateau_version: VERSION.into(),
        status: if out.ending == Ending::Interrupted {
            CellStatus::Interrupted
        } else {
            CellStatus::Complete
        },
        cell: CellInfo {
            endpoint: endpoint.name.clone(),
            engine: endpoint.engine,
            url: fingerprint::endpoint_url(endpoint),
            model: model.id.clone(),
            model_name: model.name.clone(),
            scenario: cell.scenario.clone(),
            concurrency: cell.concurrency,
            api: endpoint.api,
            stream: plan.request.stream,
            max_tokens: plan.request.max_tokens,
            ignore_eos: endpoint.ignore_eos,
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
        metrics,
    };
    let written = results::write_json(&dir.join(SUMMARY_FILE), &summary);
    // Records that could not be written stop the run, named first (the summary, kept if it
    // could be written, has the numbers; `--resume` redoes the cell).
    if let Some(e) = write_failure {
        return Err(ResultsError::io(&tmp, e).into());
    }
    written?;
    Ok(summary)
}
