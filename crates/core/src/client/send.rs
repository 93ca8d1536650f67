//! Getting a connection, writing one request on it and reading the response head:
//! `t_sent` is stamped once a usable connection is in hand, its set-up time recorded, and
//! the request resent only as the client's documentation says (a reused connection the
//! server had closed, not one byte of response read).

use std::io;

use tokio::time::{Duration, Instant, sleep_until};
use tokio_util::sync::CancellationToken;

use super::Client;
use super::http1::{self, Head};
use super::pool::{self, Checkout, Conn, Origin};
use crate::clock::Clock;
use crate::exchange::Exchange;
use crate::sample::Outcome;

/// A response whose head has been read.
pub(super) struct Sent {
    pub(super) head: Head,
    pub(super) conn: Conn,
    /// When the read that completed the head returned (body bytes that came with it
    /// arrived then), us since the clock's start.
    pub(super) t_us: u64,
}

/// Where and how long a request may go.
pub(super) struct Bounds<'a> {
    pub(super) deadline: Instant,
    pub(super) timeout: Duration,
    pub(super) cancel: &'a CancellationToken,
}

/// How one attempt failed.
enum Failed {
    /// No connection.
    Connect(io::Error),
    /// The connection ended (or was found closed) before one byte of response: the
    /// server cannot have acted on the request.
    Unanswered(io::Error),
    /// Anything else.
    Broken(String),
    Cancelled,
    Timeout(&'static str),
}

impl Client {
    /// Gets a connection, writes `request` (a whole HTTP/1.1 request) and
    /// reads the response head: stamps `t_sent` once the connection is in hand, records
    /// its set-up time, and resends as the module documentation says.
    pub(super) async fn send(
        &self,
        origin: &Origin,
        request: &[u8],
        ex: &mut Exchange,
        clock: &Clock,
        bounds: &Bounds<'_>,
    ) -> Result<Sent, (Outcome, Option<String>)> {
        // At most two attempts: an idle connection found closed is replaced in `checkout`,
        // and the one resend goes out on a fresh connection, which is never resent.
        let mut fresh = false;
        loop {
            let Checkout {
                mut conn,
                reused,
                connect_us,
                idle_for,
            } = match bounded(bounds, self.pool.checkout(origin, fresh), "no connection").await {
                Ok(Ok(c)) => c,
                Ok(Err(e)) => return Err(failure(Failed::Connect(e), bounds)),
                Err(f) => return Err(failure(f, bounds)),
            };
            if connect_us.is_some() {
                ex.connect_us = connect_us;
            }
            ex.t_sent_us = clock.now_us();
            let attempt = bounded(
                bounds,
                exchange_head(&mut conn, request, clock, ex.t_sent_us),
                "no response headers",
            )
            .await;
            match attempt.and_then(|r| r) {
                Ok((head, t_us)) => return Ok(Sent { head, conn, t_us }),
                Err(Failed::Unanswered(_)) if reused && ex.resends == 0 => {
                    if idle_for < pool::CLOSE_AFTER_RESPONSE {
                        self.pool.learn_closes(origin);
                    }
                    ex.resends += 1;
                    fresh = true;
                }
                Err(f) => return Err(failure(f, bounds)),
            }
        }
    }
}

/// Runs `step` unless the request is cancelled or its deadline passes first.
async fn bounded<T>(
    bounds: &Bounds<'_>,
    step: impl Future<Output = T>,
    waiting_for: &'static str,
) -> Result<T, Failed> {
    tokio::select! {
        biased;
        _ = bounds.cancel.cancelled() => Err(Failed::Cancelled),
        _ = sleep_until(bounds.deadline) => Err(Failed::Timeout(waiting_for)),
        r = step => Ok(r),
    }
}

fn failure(f: Failed, bounds: &Bounds<'_>) -> (Outcome, Option<String>) {
    match f {
        Failed::Connect(e) => (Outcome::Connect, Some(super::error_chain(&e))),
        Failed::Unanswered(e) => (
            Outcome::Stream,
            Some(format!(
                "the server closed the connection before answering: {}",
                super::error_chain(&e)
            )),
        ),
        Failed::Broken(msg) => (Outcome::Stream, Some(msg)),
        Failed::Cancelled => (Outcome::Cancelled, None),
        Failed::Timeout(what) => (
            Outcome::Timeout,
            Some(format!("{what} within {:?}", bounds.timeout)),
        ),
    }
}

/// Writes `request` (sent at `t_sent`) and reads until the response head is complete: the
/// head and when the bytes of its last read arrived.
async fn exchange_head(
    conn: &mut Conn,
    request: &[u8],
    clock: &Clock,
    t_sent: u64,
) -> Result<(Head, u64), Failed> {
    let reads_before = conn.reads();
    if let Err(e) = conn.write(request).await {
        return Err(if closed_by_peer(&e) {
            Failed::Unanswered(e)
        } else {
            Failed::Broken(format!("writing the request: {}", super::error_chain(&e)))
        });
    }
    loop {
        match conn.read().await {
            Ok(0) if conn.reads() == reads_before => {
                return Err(Failed::Unanswered(io::Error::from(
                    io::ErrorKind::UnexpectedEof,
                )));
            }
            Ok(0) => {
                return Err(Failed::Broken(
                    "the connection closed before the response head was complete".into(),
                ));
            }
            Ok(_) => {}
            Err(e) if conn.reads() == reads_before && closed_by_peer(&e) => {
                return Err(Failed::Unanswered(e));
            }
            Err(e) => return Err(Failed::Broken(super::error_chain(&e))),
        }
        let t_us = conn.arrival_us(clock, t_sent);
        match http1::parse_head(conn.unread()) {
            Ok(Some((head, n))) => {
                conn.consume(n);
                return Ok((head, t_us));
            }
            Ok(None) => {}
            Err(e) => return Err(Failed::Broken(e.to_string())),
        }
    }
}

/// Whether `e` says the peer closed the connection (reset, broken pipe, EOF).
fn closed_by_peer(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::ConnectionReset
            | io::ErrorKind::ConnectionAborted
            | io::ErrorKind::BrokenPipe
            | io::ErrorKind::UnexpectedEof
    )
}
