//! The real `plateau` binary: exit codes, config errors, the dry run, Ctrl-C, --resume, I/O
//! errors, failing endpoints, secrets and `plateau compare`; running from anywhere; what an
//! install offers.

#![allow(
    clippy::unwrap_used,
    reason = "test helpers fail the test by panicking"
)]

mod adaptive;
mod anywhere;
mod bounded;
mod common;
mod compare;
mod config_errors;
mod demo;
mod echo_server;
mod exit_codes;
mod failing;
mod history;
mod install;
mod interrupt;
mod interrupt_steps;
mod io_errors;
mod networks;
mod open_loop;
mod output_dir;
mod output_lengths;
mod quick;
mod repeats;
mod resolve;
mod resume;
mod secrets;
mod session_capacity;
mod sessions;
mod shard;
mod sim;
mod timetable;
mod trace;
mod unlisted;
