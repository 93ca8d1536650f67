//! Integration tests of plateau-scenarios: each scenario's defining property and prompt
//! lengths over 1,000 prompts, the TTFT order and output lengths against the simulated
//! engine, and the fetch code and
//! hub tokenizers against a local hub serving fixtures in the upstream formats.

// Test code: helpers outside `#[test]` functions unwrap too (clippy.toml allows it only in them).
#![allow(clippy::unwrap_used)]

mod agent;
mod common;
mod fetch;
mod fetch_resume;
mod hub;
mod hub_tokenizer;
mod lengths;
mod open_sessions;
mod properties;
mod server_metrics;
mod token_check;
mod trace;
mod trace_open;
mod trace_sessions;
mod ttft;
