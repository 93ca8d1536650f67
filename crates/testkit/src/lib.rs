//! Shared test support for plateau's crates, a dev-dependency only (never published):
//! a [`dcgm`] exporter whose energy is known,
//! [`scratch`] directories, [`driver`] runs of a plan, [`cell`]s run through the runner alone, [`tree`] copies of fixture results, [`plan`]s and cells, child [`process`]es whose stderr is read, [`raw`] HTTP/1.1 test
//! servers that write exactly what a test scripts, [`proxy`] test proxies (HTTP CONNECT,
//! forward, SOCKS5), [`tls`] certificates made at test time and https servers, and fake
//! servers behind the runner's
//! [`transport::Transport`](plateau_core::transport::Transport) ([`transport`]).
//!
//! Helpers here panic on failure: they run inside tests, where a panic fails the test.

#![allow(
    clippy::unwrap_used,
    clippy::missing_panics_doc,
    reason = "test helpers fail the test by panicking"
)]

pub mod cell;
pub mod dcgm;
pub mod driver;
pub mod plan;
pub mod process;
pub mod proxy;
pub mod raw;
pub mod tls;
pub mod transport;
pub mod tree;

use tempfile::TempDir;

/// A fresh, empty directory named after `name` (`plateau-<name>-XXXXXX`), removed with
/// everything in it when the guard is dropped: keep it bound until the test ends.
pub fn scratch(name: &str) -> TempDir {
    tempfile::Builder::new()
        .prefix(&format!("plateau-{name}-"))
        .tempdir()
        .unwrap()
}
