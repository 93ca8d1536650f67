//! `run.json` over a run's life: opened `running` with this invocation after the earlier
//! ones (under `--resume`), closed `complete` or `interrupted`, or `failed` with the reason
//! when the run stopped on an error, so that it never claims to be running after plateau
//! has exited. Its endpoint entries add what each server says of its configuration,
//! asked once as the run opens.

use plateau_model::shard::ShardRecord;
use std::path::Path;

use chrono::{DateTime, Utc};
use serde_json::Value;

use super::{DriverError, RunContext, VERSION};
use crate::plan::{Cell, Plan};
use crate::server_info;
use plateau_model::results::run_info::Launch;
use plateau_model::results::run_info::{
    CellEntry, CellState, EndpointInfo, Host, Invocation, RunInfo, RunStatus,
};
use plateau_model::results::{self, ResultsError};

/// Each endpoint as `run.json` states it: preflight's findings (or, when the run had no
/// preflight, the plan's endpoint and its `/v1/models` answer) and what the server says of
/// its configuration ([`server_info::capture`]), one endpoint after another.
pub(super) async fn endpoints(plan: &Plan, ctx: &RunContext<'_>) -> Vec<EndpointInfo> {
    let mut out = Vec::new();
    for (i, (e, base)) in plan.endpoints.iter().zip(&ctx.targets).enumerate() {
        let mut info = match ctx.endpoint_infos.get(i) {
            Some(found) => found.clone(),
            None => {
                let models = server_info::models(&ctx.client, e, base).await;
                e.info(base.as_str(), models)
            }
        };
        info.server = Some(server_info::capture(&ctx.client, e, base).await);
        out.push(info);
    }
    out
}

/// `run.json` for a run starting now: every cell pending, this invocation running.
pub(super) fn open(
    plan: &Plan,
    start: &Start,
    endpoints: Vec<EndpointInfo>,
    cells: &[Cell],
    path: &Path,
) -> RunInfo {
    let now = start.started_at;
    let mut invocations = if start.resume {
        earlier_invocations(path)
    } else {
        Vec::new()
    };
    invocations.push(Invocation {
        started_at: now,
        ended_at: None,
        status: RunStatus::Running,
        reason: None,
        resume: start.resume,
        launch: start.launch.clone(),
    });
    RunInfo {
        plateau_version: VERSION.into(),
        status: RunStatus::Running,
        reason: None,
        started_at: invocations.first().map_or(now, |i| i.started_at),
        ended_at: None,
        wall_duration_s: None,
        invocations,
        host: Host::current(),
        endpoints,
        cells: cells
            .iter()
            .map(|c| CellEntry {
                path: plan.cell_label(c),
                state: CellState::Pending,
                redone: None,
                reason: None,
            })
            .collect(),
        config: plan.redacted_config.clone(),
        shard: plan
            .shard
            .map(|s| ShardRecord::new(s, &plan.loads(), plan.shard_clock.clone(), plan.timetable)),
        merged_from: Vec::new(),
    }
}

/// How a run was started, as `run.json` records it.
#[derive(Clone, Debug)]
pub struct Start {
    /// Started with `--resume`.
    pub resume: bool,
    /// The config file and the keys overridden.
    pub launch: Launch,
    /// When this invocation started (before its workloads were prepared).
    pub started_at: DateTime<Utc>,
}

impl Start {
    /// An invocation starting now.
    pub fn now(resume: bool, launch: Launch) -> Start {
        Start {
            resume,
            launch,
            started_at: Utc::now(),
        }
    }
}

/// Writes `run.json` for a run that a stopping signal ended `while` it was getting ready
/// (preparing the workloads, checking the endpoints), before any cell ran: every cell as
/// an earlier invocation left it (under `--resume`) or pending, this invocation
/// `interrupted`, with the reason.
pub fn interrupted_before_cells(
    plan: &Plan,
    start: &Start,
    endpoints: Vec<EndpointInfo>,
    while_: &str,
) -> Result<RunInfo, DriverError> {
    let path = plan.output_dir.join(results::RUN_FILE);
    let cells = plan.cells();
    let mut info = open(plan, start, endpoints, &cells, &path);
    if start.resume {
        keep_earlier_states(&path, &mut info);
    }
    close(
        &mut info,
        RunStatus::Interrupted,
        Some(format!("interrupted while {while_}, before any cell ran")),
    );
    results::write_json(&path, &info)?;
    Ok(info)
}

/// Each cell's state and reason as the earlier `run.json` at `path` left them (the cells
/// this invocation never reached).
fn keep_earlier_states(path: &Path, info: &mut RunInfo) {
    let Ok(raw) = results::read_json::<Value>(path) else {
        return;
    };
    let Some(earlier) = raw.get("cells").and_then(Value::as_array) else {
        return;
    };
    for entry in earlier {
        let Ok(e) = serde_json::from_value::<CellEntry>(entry.clone()) else {
            continue;
        };
        if let Some(now) = info.cells.iter_mut().find(|c| c.path == e.path) {
            *now = e;
        }
    }
}

/// Each endpoint as the plan gives it, without asking its server (a run stopped before
/// preflight, or before the servers were asked).
pub fn plan_endpoints(plan: &Plan) -> Vec<EndpointInfo> {
    plan.endpoints
        .iter()
        .map(|e| e.info(&crate::fingerprint::endpoint_url(e), None))
        .collect()
}

/// Ends the run, and this invocation, now with `status`.
pub(super) fn close(info: &mut RunInfo, status: RunStatus, reason: Option<String>) {
    let now = Utc::now();
    if let Some(this) = info.invocations.last_mut() {
        this.ended_at = Some(now);
        this.status = status;
        this.reason.clone_from(&reason);
    }
    info.status = status;
    info.reason = reason;
    info.ended_at = Some(now);
    let ran_ms: i64 = info
        .invocations
        .iter()
        .filter_map(|i| Some((i.ended_at? - i.started_at).num_milliseconds()))
        .sum();
    info.wall_duration_s = Some(ran_ms as f64 / 1000.0);
}

/// Closes the run as `failed` because of `cause` and says whether `run.json` took it.
pub(super) fn fail(path: &Path, info: &mut RunInfo, cause: DriverError) -> DriverError {
    close(info, RunStatus::Failed, Some(cause.to_string()));
    DriverError::Stopped {
        run_json: results::write_json(path, info).err(),
        cause: Box::new(cause),
    }
}

/// The invocations recorded in an earlier `run.json` at `path`: read as plain JSON, so that
/// a file from another plateau version (or with a config this one rejects) still gives
/// them up. A `run.json` from before invocations were recorded gives its own start and end.
fn earlier_invocations(path: &Path) -> Vec<Invocation> {
    let raw: Value = match results::read_json(path) {
        Ok(v) => v,
        Err(ResultsError::Io { error, .. }) if error.kind() == std::io::ErrorKind::NotFound => {
            return Vec::new();
        }
        Err(e) => {
            tracing::warn!("earlier invocations not kept: {e}");
            return Vec::new();
        }
    };
    if let Some(list) = raw.get("invocations").and_then(Value::as_array) {
        return list
            .iter()
            .filter_map(|i| serde_json::from_value(i.clone()).ok())
            .collect();
    }
    let time =
        |key: &str| -> Option<DateTime<Utc>> { serde_json::from_value(raw.get(key)?.clone()).ok() };
    let Some(started_at) = time("started_at") else {
        return Vec::new();
    };
    vec![Invocation {
        started_at,
        ended_at: time("ended_at"),
        status: raw
            .get("status")
            .and_then(|s| serde_json::from_value(s.clone()).ok())
            .unwrap_or(RunStatus::Running),
        reason: None,
        resume: false,
        launch: Default::default(),
    }]
}

#[cfg(test)]
mod tests;
