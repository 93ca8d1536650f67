//! What every request handler shares: the configuration, the counters, the engine and the
//! request index.

use std::sync::Arc;
use std::sync::atomic::AtomicU64;

use crate::config::SimConfig;
use crate::engine::EngineHandle;
use crate::metrics::Metrics;

/// The model `/v1/models` lists when `served_models` is empty.
pub(crate) const DEFAULT_MODEL: &str = "plateau-sim";

/// What every request handler shares.
#[derive(Debug)]
pub(crate) struct State {
    /// The configuration the server was started with.
    pub config: SimConfig,
    /// Server counters.
    pub metrics: Arc<Metrics>,
    /// The engine (realistic profile only).
    pub engine: Option<EngineHandle>,
    /// Index of the next completion request (the stream of its RNG).
    pub next_request: AtomicU64,
    /// The span exporter, when `otlp` is configured.
    pub exporter: Option<crate::otlp::Exporter>,
}

impl State {
    /// The model used when a request names none, and the `/metrics` label.
    pub(crate) fn default_model(&self) -> &str {
        self.config
            .served_models
            .first()
            .map_or(DEFAULT_MODEL, String::as_str)
    }
}
