//! plateau's core: from a validated [`plan::Plan`] to measured [`sample::Sample`]s and the
//! [`metrics`] that summarize them.
//!
//! The flow: [`config::RunConfig`] (serde) -> [`plan::Plan`] (validated) -> for each
//! [`plan::Cell`], a [`workload::Workload`] gives each of N slots a [`workload::Session`];
//! the closed-loop runner keeps the N slots busy through the four [`phase::Phase`]s; each
//! request goes through the client (HTTP and [`sse`] framing; the API's bodies and events
//! behind the [`wire`] seam) and comes back as a
//! [`sample::Sample`] with raw instants; the recorder writes `requests.jsonl.gz`; metrics
//! turn samples into a summary. Measuring never prints; reporting never measures. Over the
//! measure window, [`selfcheck`] watches the client itself (scheduling lag, CPU); beside every
//! cell, [`scrape`] reads the server's own Prometheus metrics.

pub mod backoff;
pub mod capacity;
pub mod client;
pub mod clock;
pub mod config;
pub mod driver;
pub mod exchange;
pub mod live;
pub mod metrics;
pub mod pacer;
pub mod phase;
pub mod plan;
pub mod recorder;
pub mod results;
pub mod runner;
pub mod sample;
pub mod scrape;
pub mod secret;
pub mod selfcheck;
pub mod server_info;
mod splitmix;
pub mod sse;
pub mod tokens;
pub mod transport;
pub mod validate;
pub mod wire;
pub mod workload;
