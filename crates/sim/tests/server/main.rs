//! Integration tests: the server on 127.0.0.1:0, driven over real sockets.

#![allow(
    clippy::unwrap_used,
    reason = "test helpers fail the test by panicking"
)]

mod client;
mod faults;
mod fields;
mod raw;
mod switches;
mod timing;
mod wire;
