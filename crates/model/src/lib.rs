//! plateau's result model: what a run leaves on disk and everything that reads it back,
//! with no network, runtime or HTTP stack. `plateau-core` measures and writes it;
//! `plateau-report` (report, compare, export) reads it.
//!
//! [`sample::Sample`]s (one per request, raw instants, on the cell's [`phase::Phase`]s)
//! are summarized by [`metrics`]; [`results`] names, writes and reads the result files
//! (`summary.json`, `run.json`, `requests.jsonl.gz`, `summary.csv`, `capacity.json`,
//! `repeats.json`); [`validate`] checks a results directory; [`scrape`] holds the server's
//! own `/metrics` scrapes and their per-phase summary; [`capacity`] judges open-loop probes
//! against an SLO; [`load`] is a cell's load axis; [`config`] is `benchmark_config.json`'s
//! serde types, which the result files carry; [`quantity`] is the one registry of the numbers
//! shown outside `summary.json` (CSV, tables, figures, compare, repeats); [`threshold`] writes a
//! value against its limit in every check's message.

pub mod capacity;
pub mod config;
pub mod gpu;
pub mod load;
pub mod metrics;
pub mod natural;
pub mod phase;
pub mod quantity;
pub mod results;
pub mod sample;
pub mod scrape;
pub mod secret;
pub mod server_timing;
pub mod shard;
pub mod threshold;
pub mod validate;
