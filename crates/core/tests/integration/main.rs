//! Integration tests: whole cells run by the public driver against the simulated engine on
//! 127.0.0.1, result files included.

#![allow(
    clippy::unwrap_used,
    reason = "test helpers fail the test by panicking"
)]

mod backoff;
mod calibration;
mod common;
mod faults;
mod gpu_metrics;
mod open_loop;
mod realistic;
mod schema;
mod server_info;
mod server_metrics;
mod server_spans;
mod server_timing;
mod wire;
