//! The real `plateau` binary: exit codes, the dry run, Ctrl-C, --resume, I/O errors and
//! secrets.

#![allow(
    clippy::unwrap_used,
    reason = "test helpers fail the test by panicking"
)]

mod common;
mod exit_codes;
mod interrupt;
mod io_errors;
mod resume;
mod secrets;
mod sim;
