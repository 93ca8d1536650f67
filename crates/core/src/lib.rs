//! plateau's core: from a validated [`plan::Plan`] to measured samples
//! ([`plateau_model::sample::Sample`]) and the metrics that summarize them
//! ([`plateau_model::metrics`]).
//!
//! The flow: the config ([`plateau_model::config::RunConfig`], serde) -> [`plan::Plan`]
//! (validated) -> for each [`plan::Cell`], a [`workload::Workload`] gives each of N slots a
//! [`workload::Session`]; the closed-loop runner keeps the N slots busy through the four
//! phases ([`plateau_model::phase::Phase`]); each request goes out through [`transport`] on
//! the HTTP client ([`plateau_http`]: connections, framing, arrival stamps), its events
//! read with [`sse`] and the API's bodies behind the [`wire`] seam, and comes back as a
//! sample with raw instants; the recorder writes `requests.jsonl.gz`; metrics turn samples
//! into a summary. Measuring never prints; reporting never measures. Over the measure
//! window, [`selfcheck`] watches the client itself (scheduling lag, CPU); beside every
//! cell, [`scrape`] reads the server's own Prometheus metrics.
//!
//! What a run leaves on disk (samples, phases, metrics, result files, validation, the
//! config types) is the result model, its own crate ([`plateau_model`]) so that reading
//! results needs no HTTP stack: import it from there, this crate does not re-export it.

pub mod backoff;
pub mod clock_sync;
pub mod driver;
pub mod exchange;
pub mod fingerprint;
pub mod gpu;
pub mod live;
pub mod pacer;
pub mod plan;
pub mod recorder;
pub mod runner;
pub mod scrape;
pub mod selfcheck;
pub mod server_info;
pub mod server_traces;
mod splitmix;
pub mod sse;
pub mod token_check;
pub mod tokens;
pub mod trace;
pub mod transport;
pub mod wire;
pub mod workload;
