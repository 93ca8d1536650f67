//! The real `plateau` binary: exit codes, config errors, the dry run, Ctrl-C, --resume and secrets.

#![allow(
    clippy::unwrap_used,
    reason = "test helpers fail the test by panicking"
)]

mod common;
mod config_errors;
mod exit_codes;
mod interrupt;
mod resume;
mod secrets;
mod sim;
