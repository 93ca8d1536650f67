//! The real `plateau` binary: exit codes, the dry run, Ctrl-C, --resume and secrets.

#![allow(
    clippy::unwrap_used,
    reason = "test helpers fail the test by panicking"
)]

mod common;
mod echo_server;
mod exit_codes;
mod failing;
mod interrupt;
mod resume;
mod secrets;
mod sim;
