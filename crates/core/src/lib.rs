//! plateau's core: from a validated [`plan::Plan`] to measured [`sample::Sample`]s and the
//! [`metrics`] that summarize them.
//!
//! The flow: [`config::RunConfig`] (serde) -> [`plan::Plan`] (validated) -> for each
//! [`plan::Cell`], a [`workload::Workload`] gives each of N slots a [`workload::Session`];
//! the closed-loop runner keeps the N slots busy through the four [`phase::Phase`]s; each
//! request goes through [`transport`] on the HTTP client (`plateau_http`) and [`sse`] framing (the API's bodies and events
//! behind the [`wire`] seam) and comes back as a
//! [`sample::Sample`] with raw instants; the recorder writes `requests.jsonl.gz`; metrics
//! turn samples into a summary. Measuring never prints; reporting never measures. Over the
//! measure window, [`selfcheck`] watches the client itself (scheduling lag, CPU); beside every
//! cell, [`scrape`] reads the server's own Prometheus metrics.
//!
//! What a run leaves on disk (samples, phases, metrics, result files, validation, the
//! config types) is the result model, its own crate (`plateau-model`) so that reading
//! results needs no HTTP stack; its modules are re-exported here under their usual names.

pub mod backoff;
pub mod driver;
pub mod exchange;
pub mod fingerprint;
pub mod live;
pub mod pacer;
pub mod plan;
pub mod recorder;
pub mod runner;
pub mod scrape;
pub mod selfcheck;
pub mod server_info;
mod splitmix;
pub mod sse;
pub mod token_check;
pub mod tokens;
pub mod transport;
pub mod wire;
pub mod workload;

pub use plateau_model::{
    capacity, config, metrics, natural, phase, results, sample, secret, validate,
};
