//! One cell, start to end: the recorder, the transport, the runner on the cell's clock,
//! the scraper and the GPU samplers beside it, then the metrics and `summary.json` (written even when the
//! records or scrapes could not be, so the numbers are kept and the error named).

use std::path::Path;
use std::sync::Arc;

use chrono::{DateTime, Utc};
use plateau_model::shard::{CellTimetable, PhaseOffsets};
use tokio_util::sync::CancellationToken;

use super::{DriverError, RunContext, VERSION, gpu_metrics, server_metrics};
use crate::fingerprint::{self, Fingerprint};
use crate::plan::{Cell, LoadInfo, Plan};
use crate::recorder::Recorder;
use crate::runner::{self, CellInput, CellOutput, Ending, Failures, Timer};
use crate::token_check::TokenCheck;
use crate::transport::HttpTransport;
use crate::workload::Workload;
use plateau_http::clock::{Clock, micros};
use plateau_model::metrics::{self, Options, Window};
use plateau_model::phase::Schedule;
use plateau_model::results::summary::{
    CellInfo, CellStatus, CellSummary, PhaseBounds, RecordsInfo, SCHEMA_VERSION,
};
use plateau_model::results::{self, REQUESTS_FILE, ResultsError, SUMMARY_FILE};
use plateau_model::server_timing::{ServerTimingSummary, engines};

/// What one cell runs with, besides the plan and the run's context.
pub(super) struct Job {
    pub workload: Arc<dyn Workload>,
    pub fingerprint: Fingerprint,
    pub failures: Failures,
    /// The server's count of the scenario's prompts, kept in the summary.
    pub token_check: Option<TokenCheck>,
    /// When the cell is to begin on the load-sharded timetable (`--start-at`).
    pub scheduled: Option<DateTime<Utc>>,
    /// Scrape the server's `/metrics` this often (`None`: off, or the endpoint has none).
    pub scrape_every: Option<std::time::Duration>,
}

/// Waits until `at` by the wall clock (at once if it has passed); `false` when a stopping
/// signal came first.
pub(super) async fn wait_for(at: DateTime<Utc>, interrupt: &CancellationToken) -> bool {
    let Ok(wait) = (at - Utc::now()).to_std() else {
        return true;
    };
    tokio::select! {
        biased;
        () = interrupt.cancelled() => false,
        () = tokio::time::sleep(wait) => true,
    }
}

/// Runs `cell` into `dir`: records, the server's scrapes and `summary.json`. Returns the
/// summary, whether the cell gave up on its endpoint, and why the endpoint's `/metrics`
/// is unusable (then it is not scraped again).
pub(super) async fn run_one(
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
        token_check,
        scheduled,
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
    let schedule = plan.schedule_of(cell);
    let load = plan.load_of(cell);
    let workload_info = workload.info();
    let started_at = Utc::now();
    let clock = Clock::start();
    let scraper = server_metrics::start(&ctx.client, scrape_every, endpoint, base, clock);
    let gpus = plan
        .gpu
        .as_ref()
        .map(|g| gpu_metrics::start(&ctx.client, g, clock));
    let mut out = runner::run_cell_on(
        CellInput {
            transport: Arc::new(transport),
            workload,
            load,
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
    let join = match &ctx.spans {
        // llama.cpp's timings come in its responses; it exports no spans.
        Some(spans) if endpoint.engine != plateau_model::config::Engine::Llamacpp => {
            let table = engines::of(endpoint.engine);
            Some(
                spans
                    .lock()
                    .await
                    .join(&mut out.recorded.samples, table)
                    .await,
            )
        }
        _ => None,
    };
    let write_failure = out.recorded.write_error.take();
    let write_error = write_failure.as_ref().map(|e| e.to_string());
    if write_error.is_none() {
        std::fs::rename(&tmp, &requests_path).map_err(|e| ResultsError::io(&requests_path, e))?;
        if join.is_some() {
            // The recorder streamed the records before their spans came: written again,
            // once, with the server's timings on them.
            results::write_samples(&requests_path, &out.recorded.samples)?;
        }
    }
    let window = Window {
        m0_us: out.bounds.m0_us,
        m1_us: out.bounds.m1_us,
        concurrency: load.concurrency(),
    };
    let server_timing = match &join {
        Some(join) => Some(ServerTimingSummary::measure_spans(
            &out.recorded.samples,
            &window,
            plan.request.stream,
            join,
        )),
        None => ServerTimingSummary::measure(&out.recorded.samples, &window, plan.request.stream),
    };
    let metrics = metrics::summarize(
        &out.recorded.samples,
        &window,
        &Options {
            slo: plan.slo.as_ref(),
            steady: &plan.steady,
            stream: plan.request.stream,
            target_rps: load.rate().map(|r| r.rps),
            fill_end_us: Some(micros(schedule.fill)),
        },
    );
    let max_tokens = plan.request.fixed_for(&workload_info);
    let mut workload_info = workload_info;
    if let Some(o) = &mut workload_info.output_tokens {
        o.requested = metrics::RequestedTokens::measure(&out.recorded.samples, &window);
    }
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
            load: LoadInfo::from(&load),
            api: endpoint.api,
            stream: plan.request.stream,
            max_tokens,
            ignore_eos: endpoint.ignore_eos,
            repeat: cell.repeat,
            labels: Default::default(),
            hardware: None,
        },
        workload: workload_info,
        tokenizer: ctx.counter.name(),
        fingerprint: Some(Box::new(fingerprint)),
        phases: phase_bounds(&schedule, &out),
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
        client: out.client.clone().map(Box::new),
        server: None,
        server_timing: server_timing.map(Box::new),
        cost: None,
        gpu: None,
        token_check,
        shards: Vec::new(),
        timetable: scheduled.map(|at| timetable(at, started_at, &schedule, &out)),
        metrics,
    };
    summary.describe_endpoint(&endpoint.labels, endpoint.hardware.as_ref());
    // The scrapes' file is written before the summary; if it cannot be, the summary still
    // is, and the error stops the run after it.
    let (scrape_refused, scrape_error) = match scraper {
        Some(s) => match s.finish(dir, &summary.phases).await {
            Ok(done) => {
                summary.server = done.server.map(Box::new);
                (done.refused, None)
            }
            Err(e) => (None, Some(e)),
        },
        None => (None, None),
    };
    let gpu_error = match gpus {
        Some(g) => match g
            .finish(dir, &summary.phases, &summary.metrics.throughput)
            .await
        {
            Ok(gpu) => {
                summary.gpu = gpu.map(Box::new);
                None
            }
            Err(e) => Some(e),
        },
        None => None,
    };
    let written = results::write_json(&dir.join(SUMMARY_FILE), &summary);
    // Records that could not be written stop the run, named first (the summary, kept if it
    // could be written, has the numbers; `--resume` redoes the cell).
    if let Some(e) = write_failure {
        return Err(ResultsError::io(&tmp, e).into());
    }
    written?;
    if let Some(e) = scrape_error.or(gpu_error) {
        return Err(e.into());
    }
    Ok((summary, gave_up, scrape_refused))
}

/// The phases as they ran: with adaptive phases, Stabilize and Measure last as long as
/// their rules decided (the schedule's lengths are their maxima), and why is kept.
fn phase_bounds(schedule: &Schedule, out: &CellOutput) -> PhaseBounds {
    let (stabilize_s, measure_s) = match &out.phase_end {
        None => (
            schedule.stabilize.as_secs_f64(),
            schedule.measure.as_secs_f64(),
        ),
        Some(_) => (
            out.bounds.m0_us.saturating_sub(micros(schedule.fill)) as f64 / 1e6,
            out.bounds.m1_us.saturating_sub(out.bounds.m0_us) as f64 / 1e6,
        ),
    };
    PhaseBounds {
        fill_s: schedule.fill.as_secs_f64(),
        stabilize_s,
        measure_s,
        drain_max_s: out.drain.limit.as_secs_f64(),
        drain_limit: out.drain.source.clone(),
        m0_us: out.bounds.m0_us,
        m1_us: out.bounds.m1_us,
        drain_end_us: out.bounds.drain_end_us,
        end_us: out.bounds.end_us,
        drain_timed_out: out.ending == Ending::DrainTimedOut,
        phase_end: out.phase_end.clone(),
    }
}

/// How far from `scheduled` (by the wall clock) the cell that began at `started_at` began
/// each phase: its start's offset plus each phase's lateness on the cell's own clock.
fn timetable(
    scheduled: DateTime<Utc>,
    started_at: DateTime<Utc>,
    schedule: &Schedule,
    out: &CellOutput,
) -> CellTimetable {
    let fill = (started_at - scheduled)
        .num_microseconds()
        .unwrap_or(i64::MAX);
    let planned = [schedule.fill, schedule.m0(), schedule.m1()];
    let at =
        |i: usize| out.phase_starts_us[i].map(|us| fill + us as i64 - micros(planned[i]) as i64);
    CellTimetable {
        scheduled_start: scheduled,
        offsets_us: PhaseOffsets {
            fill,
            stabilize: at(0),
            measure: at(1),
            drain: at(2),
        },
    }
}

/// The seed of a cell's arrival schedule: the same plan seed, scenario and load give the
/// same arrivals, whatever other cells the plan has.
fn arrival_seed(seed: u64, cell: &Cell) -> u64 {
    let scenario = fingerprint::fnv1a64(cell.scenario.as_bytes());
    seed ^ scenario.rotate_left(17) ^ cell.load.seed_key().wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

/// Why a cell that ran its course has no data: every measured request failed. Such a cell
/// is `failed` (so `--resume` redoes it), but its endpoint is not given up on for it. An
/// overloaded cell whose measured requests were all still queued when Drain ended is not:
/// its verdict is the answer a rate sweep asks for.
fn no_success(
    metrics: &metrics::Metrics,
    samples: &[plateau_model::sample::Sample],
) -> Option<String> {
    let r = &metrics.requests;
    if r.measured_ok > 0 || r.measured_errors == 0 || metrics.steady.overloaded {
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
