//! `run.json`: what ran, where and when — tool version, wall-clock start and end (RFC 3339),
//! wall duration, the configuration with secrets removed, the host, and each endpoint's
//! `/v1/models` answer.

use chrono::{DateTime, Utc};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::config::{Engine, RunConfig};

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
}

/// The run's metadata.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RunInfo {
    /// plateau version.
    pub plateau_version: String,
    /// How the run ended.
    pub status: RunStatus,
    /// Wall-clock start.
    pub started_at: DateTime<Utc>,
    /// Wall-clock end, once ended.
    pub ended_at: Option<DateTime<Utc>>,
    /// `ended_at - started_at`, s.
    pub wall_duration_s: Option<f64>,
    /// The machine the client ran on.
    pub host: Host,
    /// Each endpoint as found at preflight.
    pub endpoints: Vec<EndpointInfo>,
    /// Cells run, skipped (resume) and left, by path relative to the output directory.
    pub cells: Vec<CellEntry>,
    /// The configuration, secrets removed.
    pub config: RunConfig,
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
    /// Base URL (for the in-process simulator, the loopback address it ran on).
    pub url: String,
    /// The server's `/v1/models` answer.
    pub models: Option<serde_json::Value>,
}

/// One cell's fate in this run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct CellEntry {
    /// Path relative to the output directory.
    pub path: String,
    /// What happened to it.
    pub state: CellState,
    /// Why `--resume` ran it again instead of reusing the results it found.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub redone: Option<String>,
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
    /// Could not run (see the log).
    Failed,
    /// Not reached.
    Pending,
}
