//! Integration tests of plateau-scenarios: each scenario's defining property and prompt
//! lengths over 1,000 prompts, the TTFT order against the simulated engine, and the fetch
//! code against a local server serving fixtures in the upstream formats.

mod common;
mod fetch;
mod properties;
mod ttft;
