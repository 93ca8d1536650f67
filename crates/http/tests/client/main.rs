//! The client against raw HTTP/1.1 servers on 127.0.0.1: framing as servers write it, the
//! resend rule, kernel arrival stamps, https to a server that does not speak TLS, proxies
//! (CONNECT, forward, SOCKS5, NO_PROXY, refusals) and TLS as operators configure it.

#![allow(
    clippy::unwrap_used,
    reason = "test helpers fail the test by panicking"
)]

mod arrival;
mod framing;
mod https;
mod proxies;
mod raw;
mod resend;
mod tls;
