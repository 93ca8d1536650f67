//! `run.json`: what ran, where and when — tool version, wall-clock start and end (RFC 3339),
//! wall duration, every invocation (a run continued with `--resume` has several), the
//! configuration with secrets removed, the host, and each endpoint: its `/v1/models` answer,
//! what the server says of its configuration, and the user's labels and hardware.

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::config::{Engine, HardwareConfig, RunConfig};
use crate::results::server_info::ServerInfo;
use crate::results::summary::CellStatus;

/// How the run ended (or that it is still going).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RunStatus {
    /// Still running (or the process died).
    Running,
    /// Every cell ran.
    Complete,
    /// Ctrl-C.
    Interrupted,
    /// Stopped on an error (see `reason`), e.g. a result file that could not be written.
    Failed,
}

/// The run's metadata.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RunInfo {
    /// plateau version.
    pub plateau_version: String,
    /// How the run (its latest invocation) ended.
    pub status: RunStatus,
    /// Why the run failed, when `status` is `failed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Wall-clock start of the first invocation.
    pub started_at: DateTime<Utc>,
    /// Wall-clock end of the latest invocation, once ended.
    pub ended_at: Option<DateTime<Utc>>,
    /// Time spent running, s: the invocations' durations summed (for a single invocation,
    /// `ended_at - started_at`).
    pub wall_duration_s: Option<f64>,
    /// Every `plateau run` that wrote into this directory, oldest first: a run continued
    /// with `--resume` keeps the earlier ones.
    #[serde(default)]
    pub invocations: Vec<Invocation>,
    /// The machine the client ran on.
    pub host: Host,
    /// Each endpoint as found at preflight.
    pub endpoints: Vec<EndpointInfo>,
    /// Cells run, skipped (resume) and left, by path relative to the output directory.
    pub cells: Vec<CellEntry>,
    /// The configuration, secrets removed.
    pub config: RunConfig,
    /// This runner's place when the benchmark was split over several (`--shard`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<crate::shard::ShardRecord>,
    /// The runners a `plateau merge`d directory was joined from; empty otherwise.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub merged_from: Vec<MergedFrom>,
}

/// One `plateau run` of this results directory.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Invocation {
    /// Wall-clock start.
    pub started_at: DateTime<Utc>,
    /// Wall-clock end; absent while running, or when the process died.
    pub ended_at: Option<DateTime<Utc>>,
    /// How it ended.
    pub status: RunStatus,
    /// Why it failed, when it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Started with `--resume`.
    pub resume: bool,
    /// How it was started.
    #[serde(flatten)]
    pub launch: Launch,
}

/// How a run was started: the config file and the keys overridden. Override values are left
/// out: they may hold secrets.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Launch {
    /// The configuration file, as given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub config_file: Option<String>,
    /// Keys overridden by `--set`, `--output-dir` or `PLATEAU__*` variables.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub overrides: Vec<String>,
    /// The commit the `plateau` binary was built from ("unknown" for a build outside a git
    /// checkout); absent in files of plateau before 0.1.0's packaging.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plateau_commit: Option<String>,
}

/// The client machine.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Host {
    /// Host name.
    pub hostname: String,
    /// Operating system.
    pub os: String,
    /// CPU architecture.
    pub arch: String,
    /// Logical CPUs available.
    pub cpus: usize,
}

impl Host {
    /// This machine.
    pub fn current() -> Host {
        let hostname = std::fs::read_to_string("/proc/sys/kernel/hostname")
            .or_else(|_| std::fs::read_to_string("/etc/hostname"))
            .map(|s| s.trim().to_owned())
            .unwrap_or_else(|_| "unknown".into());
        Host {
            hostname,
            os: std::env::consts::OS.into(),
            arch: std::env::consts::ARCH.into(),
            cpus: std::thread::available_parallelism().map_or(1, |n| n.get()),
        }
    }
}

/// An endpoint as found at preflight.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct EndpointInfo {
    /// Endpoint name.
    pub name: String,
    /// Server software.
    pub engine: Engine,
    /// Base URL, user info and credential query values shown as `***` (for the in-process
    /// simulator, the loopback address it ran on).
    pub url: String,
    /// The server's `/v1/models` answer, the endpoint's secrets scrubbed.
    pub models: Option<serde_json::Value>,
    /// What the server says of its configuration (`/version`, `/get_server_info`, `/info`,
    /// `/props`, by engine), secrets redacted; absent when it was not asked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server: Option<ServerInfo>,
    /// The endpoint's `labels`, as configured.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub labels: BTreeMap<String, String>,
    /// The endpoint's `hardware`, as configured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hardware: Option<HardwareConfig>,
    /// The proxy requests went through (its URL without credentials); absent when they
    /// went direct. Its connection is part of each request's `connect_us`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub proxy: Option<String>,
    /// `tls.insecure_skip_verify` was on: the server's certificate was not checked, so
    /// nothing proves the numbers came from this server.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub tls_insecure_skip_verify: bool,
}

/// One cell's fate in this run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct CellEntry {
    /// Path relative to the output directory.
    pub path: String,
    /// What happened to it.
    pub state: CellState,
    /// Why it failed or was skipped.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Why `--resume` ran it again instead of reusing the results it found.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub redone: Option<String>,
}

impl From<CellStatus> for CellState {
    fn from(status: CellStatus) -> CellState {
        match status {
            CellStatus::Complete => CellState::Complete,
            CellStatus::Interrupted => CellState::Interrupted,
            CellStatus::Failed => CellState::Failed,
        }
    }
}

/// What happened to a cell in this run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CellState {
    /// Ran to its end.
    Complete,
    /// Ctrl-C ended it.
    Interrupted,
    /// Finished in an earlier run; skipped by `--resume`.
    Resumed,
    /// Gave up early: its endpoint kept failing (see `reason`), or an error stopped the
    /// run inside it.
    Failed,
    /// Not run: an earlier cell of its endpoint failed (see `reason`).
    Skipped,
    /// Not reached.
    Pending,
    /// Running now: `run.json` is written as each cell starts, so a reader sees which cell
    /// a live run is in (and, after a crash, the cell it died in).
    Running,
}

/// One runner a merged directory was joined from (`run.json`'s `merged_from`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct MergedFrom {
    /// Its place and shares.
    #[serde(flatten)]
    pub shard: crate::shard::ShardRecord,
    /// Its results directory, as given to `plateau merge`.
    pub dir: String,
    /// The host it ran on.
    pub host: String,
    /// How its run ended.
    pub status: RunStatus,
}
