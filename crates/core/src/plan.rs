//! The validated, typed plan: [`Plan::build`] checks a [`RunConfig`] once, naming the field
//! of every problem, and the runner sees only the plan (endpoints with parsed URLs and
//! headers, phase lengths as durations, the matrix of [`Cell`]s).

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use http::{HeaderName, HeaderValue};
use plateau_model::config::{
    AdaptivePhases, Api, Arrival, CapacityConfig, Engine, HardwareConfig, RateUnit, RunConfig,
    SloConfig, SteadyConfig,
};
use plateau_model::phase::DrainLimit;
use plateau_model::results::run_info::EndpointInfo;
use plateau_model::secret::{self, Secret};
use plateau_model::shard::{Shard, ShardClock, Timetable};

/// Where requests go.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    /// The simulated engine, started in-process on a loopback port.
    InProcessSim,
    /// A server at this base URL (scheme, authority and path prefix such as `/v1`).
    Url(BaseUrl),
}

/// One endpoint, validated.
#[derive(Clone, Debug)]
pub struct Endpoint {
    /// Short name (a path component of the results).
    pub name: String,
    /// Server software.
    pub engine: Engine,
    /// Where requests go.
    pub target: Target,
    /// Chat or completions.
    pub api: Api,
    /// Bearer token, read from the environment variable the config names.
    pub api_key: Option<Secret>,
    /// Extra headers (and `Authorization: Basic` from URL user info); credential values are
    /// marked sensitive so hyper never logs them.
    pub headers: Vec<(HeaderName, HeaderValue)>,
    /// Sent on every turn of a session, valued the session's id.
    pub session_header: Option<HeaderName>,
    /// Merged into each request body.
    pub extra_body: serde_json::Map<String, serde_json::Value>,
    /// Send `ignore_eos: true`.
    pub ignore_eos: bool,
    /// In-process simulator settings (engine `sim`), unparsed: the binary owns the simulator.
    pub sim: Option<serde_json::Value>,
    /// Every secret of this endpoint, for scrubbing text: the API key, credential header
    /// values and the tokens inside them, URL user info and credential query values, in
    /// every form [`plateau_model::secret::forms`] lists.
    pub secrets: Vec<Secret>,
    /// The user's labels (quantization, parallelism, ...), for the results only.
    pub labels: BTreeMap<String, String>,
    /// How it is reached: its own proxy and TLS settings.
    pub net: plateau_http::EndpointNet,
    /// The hardware behind the endpoint, as the user states it.
    pub hardware: Option<HardwareConfig>,
}

impl Endpoint {
    /// What the plan knows of this endpoint (reached at the URL shown as `url`) and its
    /// `/v1/models` answer, for run.json; the server's own description comes later
    /// (`server`).
    pub fn info(&self, url: &str, models: Option<serde_json::Value>) -> EndpointInfo {
        EndpointInfo {
            name: self.name.clone(),
            engine: self.engine,
            url: url.to_owned(),
            models,
            server: None,
            labels: self.labels.clone(),
            hardware: self.hardware.clone(),
            proxy: None,
            tls_insecure_skip_verify: self.net.tls.insecure_skip_verify,
        }
    }

    /// `text` with every secret of this endpoint replaced by `***`.
    pub fn scrub(&self, text: &str) -> String {
        secret::scrub(&self.secrets, text).into_owned()
    }

    /// Every string in `value` scrubbed (a server's JSON answer, before it is kept).
    pub fn scrub_json(&self, value: &mut serde_json::Value) {
        secret::scrub_json(&self.secrets, value);
    }
}

/// One model.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Model {
    /// Short id (a path component of the results).
    pub id: String,
    /// The request's `model`.
    pub name: String,
}

/// Phase lengths shared by every cell.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Phases {
    /// Fill.
    pub fill: Duration,
    /// Stabilize (adaptive: the longest it may last).
    pub stabilize: Duration,
    /// Measure (adaptive: the longest it may last).
    pub measure: Duration,
    /// The Drain limit, or how to derive it.
    pub drain: DrainLimit,
    /// Adaptive phases: their ranges and precision target; `None` for fixed phases.
    pub adaptive: Option<AdaptivePhases>,
}

/// Request settings shared by every cell.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RequestOptions {
    /// `max_tokens` of a request whose prompt carries none (workloads outside the scenario
    /// catalog: calibration, preflight): the configured number, or with a distribution its
    /// upper bound (512 when it has none). The scenarios draw each request's own from the
    /// configured `max_tokens` (validated here).
    pub max_tokens: u32,
    /// Stream with SSE.
    pub stream: bool,
    /// Per-request time limit.
    pub timeout: Duration,
    /// Keep prompt and response text in the records.
    pub store_text: bool,
}

impl RequestOptions {
    /// The `max_tokens` `prompt` is sent with: its own, else [`RequestOptions::max_tokens`].
    pub fn max_tokens_for(&self, prompt: &crate::workload::Prompt) -> u32 {
        prompt.max_tokens.unwrap_or(self.max_tokens)
    }

    /// The `max_tokens` every request of a cell running `workload` asks for, when it is the
    /// same for all: the workload's setting when it states one, else the plan's number.
    pub fn fixed_for(&self, workload: &crate::workload::WorkloadInfo) -> Option<u32> {
        match &workload.output_tokens {
            Some(o) => o.spec.fixed(),
            None => Some(self.max_tokens),
        }
    }
}

/// One cell of the matrix: endpoint x model x scenario x load (N in flight, or a rate).
#[derive(Clone, Debug, PartialEq)]
pub struct Cell {
    /// Index into [`Plan::endpoints`].
    pub endpoint: usize,
    /// Index into [`Plan::models`].
    pub model: usize,
    /// Scenario id.
    pub scenario: String,
    /// Closed loop at N, or open loop at a rate.
    pub load: Load,
    /// Which run of the cell this is, from 1 (see [`Plan::repeats`]).
    pub repeat: u32,
    /// Its own Measure length instead of the plan's (a capacity probe's, derived from its
    /// rate); `None` for listed cells.
    pub measure: Option<Duration>,
}

/// The validated plan the runner executes.
#[derive(Clone, Debug)]
pub struct Plan {
    /// Endpoints, in config order.
    pub endpoints: Vec<Endpoint>,
    /// Models, in config order.
    pub models: Vec<Model>,
    /// Scenario ids, in config order.
    pub scenarios: Vec<String>,
    /// Concurrencies, in config order.
    pub batch_sizes: Vec<u32>,
    /// Request rates (open loop), req/s, in config order.
    pub request_rates: Vec<f64>,
    /// How open-loop arrivals are spaced.
    pub arrival: Arrival,
    /// Open loop: most requests in flight before arrivals queue client-side.
    pub max_concurrency: Option<u32>,
    /// Open loop: what each arrival starts (a request, or a session run to its end).
    pub rate_unit: RateUnit,
    /// The capacity search, when configured.
    pub capacity: Option<CapacityConfig>,
    /// Phase lengths.
    pub phases: Phases,
    /// Request settings.
    pub request: RequestOptions,
    /// Results directory.
    pub output_dir: PathBuf,
    /// Seed for workloads and the simulator.
    pub seed: u64,
    /// How many times each listed cell runs.
    pub repeats: u32,
    /// Give up on a cell after a streak of failures this long.
    pub give_up_after: Duration,
    /// Goodput objectives.
    pub slo: Option<SloConfig>,
    /// Steady-state thresholds.
    pub steady: SteadyConfig,
    /// Time between scrapes of each server's `/metrics`; `None` when scraping is off.
    pub server_metrics: Option<Duration>,
    /// The GPU samplers run beside each cell (`gpu_metrics`); `None` when off.
    pub gpu: Option<gpu::GpuPlan>,
    /// Go on when `/v1/models` lists models but not a configured one.
    pub allow_unlisted_model: bool,
    /// The configuration with secrets removed, for `run.json`.
    pub redacted_config: RunConfig,
    /// Things that are allowed but probably not meant.
    pub warnings: Vec<String>,
    /// This runner's place in a benchmark split over several (`--shard`): [`Plan::shard`].
    pub shard: Option<Shard>,
    /// A sharded runner's clock as its run began, for `run.json` (set just before it).
    pub shard_clock: Option<ShardClock>,
    /// Under load sharding with `--start-at`: when each cell begins ([`Plan::follow_timetable`]).
    pub timetable: Option<Timetable>,
}

impl Plan {
    /// Validates `config`; `env` looks up environment variables (for `api_key_env`).
    pub fn build(
        config: &RunConfig,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Plan, PlanError> {
        let mut v = Validator::default();
        v.non_empty("endpoints", config.endpoints.len());
        v.non_empty("models", config.models.len());
        v.non_empty("scenarios", config.scenarios.len());
        if config.batch_sizes.is_empty()
            && config.request_rates.is_empty()
            && config.capacity.is_none()
        {
            v.problem(
                "batch_sizes".into(),
                "expected at least one concurrency (or `request_rates`, or a `capacity` search)",
            );
        }
        let endpoints: Vec<Endpoint> = config
            .endpoints
            .iter()
            .enumerate()
            .filter_map(|(i, e)| v.endpoint(i, e, config.ignore_eos, env))
            .collect();
        v.unique_names(
            "endpoints",
            config.endpoints.iter().map(|e| e.name.as_str()),
        );
        for (i, m) in config.models.iter().enumerate() {
            v.path_component(&format!("models[{i}].id"), &m.id);
            if m.name.trim().is_empty() {
                v.problem(
                    format!("models[{i}].name"),
                    "expected the model name the server serves",
                );
            }
        }
        v.unique_names("models", config.models.iter().map(|m| m.id.as_str()));
        for (i, s) in config.scenarios.iter().enumerate() {
            v.path_component(&format!("scenarios[{i}]"), s);
        }
        v.unique_names("scenarios", config.scenarios.iter().map(String::as_str));
        for (i, &n) in config.batch_sizes.iter().enumerate() {
            if n == 0 {
                v.problem(
                    format!("batch_sizes[{i}]"),
                    "expected a concurrency of at least 1",
                );
            }
        }
        let mut sorted = config.batch_sizes.clone();
        sorted.sort_unstable();
        if sorted.windows(2).any(|w| w[0] == w[1]) {
            v.problem("batch_sizes".into(), "expected each concurrency once");
        }
        v.open_loop(config);
        let fill = v.seconds("fill_seconds", config.fill_seconds, false);
        let adaptive = v.phases(&config.phases);
        let (stabilize, measure) = match adaptive {
            Some(a) => (
                Duration::from_secs_f64(a.stabilize.max),
                Duration::from_secs_f64(a.measure.max),
            ),
            None => (
                v.seconds("stabilize_seconds", config.stabilize_seconds, false),
                v.seconds("measure_seconds", config.measure_seconds, true),
            ),
        };
        let drain = config
            .drain_seconds
            .map(|d| v.seconds("drain_seconds", d, false));
        let timeout = v.seconds(
            "request_timeout_seconds",
            config.request_timeout_seconds,
            true,
        );
        let give_up_after = v.seconds("give_up_after_seconds", config.give_up_after_seconds, true);
        let phases = Phases {
            fill,
            stabilize,
            measure,
            drain: drain.map_or(
                DrainLimit::Derived { ceiling: timeout },
                DrainLimit::Configured,
            ),
            adaptive,
        };
        if let Err((field, message)) = config.max_tokens.check() {
            let at = if field.is_empty() {
                "max_tokens".to_owned()
            } else {
                format!("max_tokens.{field}")
            };
            v.problem(at, message);
        }
        if !(1..=1000).contains(&config.repeats) {
            v.problem(
                "repeats".into(),
                format!("got {}, expected from 1 to 1000", config.repeats),
            );
        }
        v.steady(&config.steady);
        let server_metrics = v.server_metrics(&config.server_metrics);
        let gpu = config.gpu_metrics.as_ref().and_then(|c| v.gpu_metrics(c));
        if let Some(slo) = &config.slo {
            v.slo(slo);
        }
        if config.output_dir.as_os_str().is_empty() {
            v.problem("output_dir".into(), "expected a directory path");
        }
        if !v.problems.is_empty() {
            return Err(PlanError {
                problems: v.problems,
            });
        }
        Ok(Plan {
            endpoints,
            models: config
                .models
                .iter()
                .map(|m| Model {
                    id: m.id.clone(),
                    name: m.name.clone(),
                })
                .collect(),
            scenarios: config.scenarios.clone(),
            batch_sizes: config.batch_sizes.clone(),
            request_rates: config.request_rates.clone(),
            arrival: config.arrival,
            max_concurrency: config.max_concurrency,
            rate_unit: config.rate_unit,
            capacity: config.capacity.clone(),
            phases,
            request: RequestOptions {
                max_tokens: config.max_tokens.fallback(),
                stream: config.stream,
                timeout,
                store_text: config.store_text,
            },
            output_dir: config.output_dir.clone(),
            seed: config.seed,
            repeats: config.repeats,
            give_up_after,
            slo: config.slo.clone(),
            steady: config.steady.clone(),
            server_metrics,
            gpu,
            allow_unlisted_model: config.allow_unlisted_model,
            redacted_config: redact(config),
            shard: None,
            shard_clock: None,
            timetable: None,
            warnings: v.warnings,
        })
    }
}

mod cells;
mod credentials;
pub mod gpu;
mod network;
mod problem;
mod timetable;
mod url;
mod validator;

pub use plateau_model::load::{
    Load, LoadInfo, OPEN_LOOP_SESSIONS, Rate, cell_dir_name, format_rps, round_rps,
};
pub use problem::{PlanError, Problem};
pub use url::BaseUrl;
use validator::{Validator, redact};

#[cfg(test)]
mod tests;
