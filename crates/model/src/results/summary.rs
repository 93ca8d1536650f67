//! `summary.json`: one cell's identity, phase bounds, provenance and every metric. Its JSON
//! Schema is checked in at `schemas/summary.schema.json` and tested against real output.

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::cost::Cost;
use super::fingerprint::Fingerprint;
use crate::config::{Api, Engine, HardwareConfig};
use crate::load::LoadInfo;
use crate::metrics::Metrics;
use crate::phase::DrainSource;
use crate::results::health::ClientHealth;
use crate::results::token_check::TokenCheck;
use crate::results::workload::WorkloadInfo;
use crate::scrape::ServerMetrics;
use crate::server_timing::ServerTimingSummary;

pub use super::version::SCHEMA_VERSION;

/// Whether a cell ran to its end.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CellStatus {
    /// Fill, Stabilize, Measure and Drain all ran.
    Complete,
    /// Ctrl-C ended it; the metrics cover what was recorded.
    Interrupted,
    /// Its endpoint kept failing and it gave up early (`failure` says why); the metrics
    /// cover what was recorded.
    Failed,
}

/// One cell's summary.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CellSummary {
    /// Layout version ([`SCHEMA_VERSION`]).
    pub schema_version: u32,
    /// plateau version that wrote it.
    pub plateau_version: String,
    /// Whether the cell ran to its end.
    pub status: CellStatus,
    /// Why the cell failed (status `failed`): it gave up on its endpoint, or every measured
    /// request failed; with the server's last message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure: Option<String>,
    /// Which cell.
    pub cell: CellInfo,
    /// Where the prompts came from.
    pub workload: WorkloadInfo,
    /// The client tokenizer used for targets and fallback counts.
    pub tokenizer: String,
    /// Every input that shapes the numbers, and its hash: `--resume` reuses the cell only
    /// when it matches. Absent in summaries written before plateau recorded it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fingerprint: Option<Box<Fingerprint>>,
    /// Phase lengths and bounds.
    pub phases: PhaseBounds,
    /// Wall-clock start (RFC 3339).
    pub started_at: DateTime<Utc>,
    /// Wall-clock end (RFC 3339).
    pub ended_at: DateTime<Utc>,
    /// The request records file.
    pub records: RecordsInfo,
    /// The client's own scheduling lag and CPU use over the measure window; absent when
    /// the cell never reached Measure.
    #[serde(default)]
    pub client: Option<Box<ClientHealth>>,
    /// The server's own metrics per phase, scraped from its Prometheus `/metrics`; absent
    /// when scraping was off or the server has none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server: Option<Box<ServerMetrics>>,
    /// The server's own timing of the measured requests (llama.cpp's `timings`) beside the
    /// client's, with the gap between the two TTFTs; absent when the server gave none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_timing: Option<Box<ServerTimingSummary>>,
    /// Output tokens/s per GPU and USD per million output tokens, from the endpoint's
    /// `hardware`; absent when it gives neither `gpu_count` nor `cost_per_hour`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost: Option<Cost>,
    /// The GPUs' power and energy per phase and the energy per output token over Measure,
    /// from `gpu_metrics`; absent when it is off.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gpu: Option<Box<crate::gpu::GpuMetrics>>,
    /// The server's `/tokenize` count of the scenario's prompts beside plateau's; absent
    /// when the engine has no such endpoint.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_check: Option<TokenCheck>,
    /// The runners a `plateau merge`d cell was joined from (load sharding), each with
    /// its share, its start and its own client health; empty for a cell one runner ran.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub shards: Vec<CellShard>,
    /// Under a load-sharded timetable (`--start-at`): when this runner was to begin the
    /// cell and how far from that it began each phase.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timetable: Option<crate::shard::CellTimetable>,
    /// Every metric.
    #[serde(flatten)]
    pub metrics: Metrics,
}

impl CellSummary {
    /// Where the cell's files lie under its results directory, as it says of itself:
    /// `endpoint/model/scenario/c8` (`r2.5` for an open loop, `c8-2` for a second run).
    pub fn rel_path(&self) -> String {
        let dir = self.cell.load.load().map_or_else(
            || "?".into(),
            |l| crate::load::cell_dir_name(&l, self.cell.repeat),
        );
        format!(
            "{}/{}/{}/{dir}",
            self.cell.endpoint, self.cell.model, self.cell.scenario
        )
    }

    /// Records what the user says of the endpoint (`labels`, `hardware`) in the cell info
    /// and derives `cost` from the cell's own server output throughput. Called for a new
    /// cell and for one reused by `--resume`, so every cell of a run states today's
    /// hardware and price (neither is in the fingerprint: they describe the numbers, they
    /// do not shape them).
    pub fn describe_endpoint(
        &mut self,
        labels: &BTreeMap<String, String>,
        hardware: Option<&HardwareConfig>,
    ) {
        self.cell.labels.clone_from(labels);
        self.cell.hardware = hardware.cloned();
        self.cost = Cost::of(hardware, self.metrics.throughput.server_direct_tps);
    }
}

/// The cell's coordinates and request settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CellInfo {
    /// Endpoint name.
    pub endpoint: String,
    /// Server software.
    pub engine: Engine,
    /// Endpoint base URL, credentials shown as `***` (`sim://` for the in-process simulator).
    pub url: String,
    /// Model id.
    pub model: String,
    /// The request's `model`.
    pub model_name: String,
    /// Scenario id.
    pub scenario: String,
    /// Target concurrency N (closed loop), or request rate, arrival and cap (open loop).
    #[serde(flatten)]
    pub load: LoadInfo,
    /// Chat or completions.
    pub api: Api,
    /// Streaming on.
    pub stream: bool,
    /// `max_tokens` of every request; absent when each request draws its own (the
    /// distribution and the lengths asked for are in `workload.output_tokens`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u32>,
    /// `ignore_eos` sent.
    pub ignore_eos: bool,
    /// Which run of the cell this is, from 1 (config `repeats`); absent when 1.
    #[serde(default = "first_repeat", skip_serializing_if = "is_first_repeat")]
    pub repeat: u32,
    /// The endpoint's `labels`, as configured.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub labels: BTreeMap<String, String>,
    /// The endpoint's `hardware`, as configured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hardware: Option<HardwareConfig>,
}

fn first_repeat() -> u32 {
    1
}

fn is_first_repeat(repeat: &u32) -> bool {
    *repeat == 1
}

/// Configured phase lengths and the bounds as they happened (us since cell start).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PhaseBounds {
    /// Fill length, s.
    pub fill_s: f64,
    /// Stabilize length, s.
    pub stabilize_s: f64,
    /// Measure length, s.
    pub measure_s: f64,
    /// Drain limit used, s: configured, or derived at `m1` (see `drain_limit`).
    pub drain_max_s: f64,
    /// Where the Drain limit came from: `configured` (`drain_seconds`), or `derived` from
    /// the longest request seen at full load before `m1`.
    #[serde(default)]
    pub drain_limit: DrainSource,
    /// Start of Measure.
    pub m0_us: u64,
    /// End of Measure.
    pub m1_us: u64,
    /// End of Drain.
    pub drain_end_us: u64,
    /// End of the cell (last request ended).
    pub end_us: u64,
    /// Drain hit its limit with measured requests still running.
    pub drain_timed_out: bool,
    /// Adaptive phases (`"phases": "adaptive"`): why Stabilize and Measure ended, and
    /// when; `stabilize_s` and `measure_s` are then the lengths they had. Absent with
    /// fixed phases.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phase_end: Option<crate::phase::PhaseEnds>,
}

/// The records file and whether it is whole.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct RecordsInfo {
    /// File name within the cell directory.
    pub file: String,
    /// Records written (every request of the cell, all phases).
    pub count: u64,
    /// Why the file is incomplete, if writing failed (the summary still covers every record).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub write_error: Option<String>,
}

/// One runner's part of a merged cell (`summary.json`'s `shards`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CellShard {
    /// The runner's index.
    pub index: u32,
    /// Its results directory, as given to `plateau merge`.
    pub dir: String,
    /// The host it ran on.
    pub host: String,
    /// How its part of the cell ended (`interrupted` also when it has no summary).
    pub status: CellStatus,
    /// What it held of the load.
    pub held: LoadInfo,
    /// When its part of the cell started (its wall clock).
    pub started_at: DateTime<Utc>,
    /// Its records' shift onto the merged timeline: its start after the earliest
    /// runner's, microseconds.
    pub shift_us: u64,
    /// Its requests in the merged records.
    pub requests: u64,
    /// Why its part is not complete, when it is not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Its own scheduling lag and CPU use (each runner's client is its own machine).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client: Option<Box<ClientHealth>>,
    /// On the common timetable: how far from it this runner began each phase, us.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offsets_us: Option<crate::shard::PhaseOffsets>,
}
