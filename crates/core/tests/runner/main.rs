//! The runner on tokio's paused clock against fake servers (`plateau_testkit::transport`):
//! the closed loop's phases, its failures, and the open loop.

#![allow(
    clippy::unwrap_used,
    reason = "test helpers fail the test by panicking"
)]

mod adaptive;
mod closed;
mod failures;
mod open;
mod open_sessions;
mod open_trace;
