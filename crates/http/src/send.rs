//! Getting a connection, writing one request on it and reading the response head:
//! `t_sent` is stamped once a usable connection is in hand, its set-up time recorded, and
//! the request resent only as the crate's documentation says (a reused connection the
//! server had closed, not one byte of response read).

use std::io;

use bytes::Bytes;
use http::Request;
use tokio::time::sleep_until;

use crate::body::Response;
use crate::clock::Clock;
use crate::http1::{self, Head};
use crate::network::Origin;
use crate::pool::{self, Checkout, Conn};
use crate::{Bounds, Client, Failure, FailureKind, Stamps};

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
    /// Sends `req` and reads the response head within `bounds`: stamps (on `clock`) when it
    /// went out once a connection was in hand, records that connection's set-up time and
    /// any resend in `stamps` (failed or not), and resends as the crate documentation says.
    /// The body is read with [`Response::read`].
    pub async fn send(
        &self,
        req: Request<Bytes>,
        clock: &Clock,
        bounds: &Bounds<'_>,
        stamps: &mut Stamps,
    ) -> Result<Response<'_>, Failure> {
        let Some(origin) = Origin::of(req.uri()) else {
            return Err(Failure::new(FailureKind::Connect, "the URL has no host"));
        };
        let (parts, body) = req.into_parts();
        let mut request = Vec::with_capacity(body.len() + 512);
        let forward = self.forward(&origin);
        http1::write_request(&parts, &body, forward.as_ref(), &mut request);
        drop(body);
        let (head, conn, t_us) = self
            .send_bytes(&origin, &request, clock, bounds, stamps)
            .await?;
        Ok(Response {
            client: self,
            origin,
            method: parts.method,
            head,
            conn,
            t_us,
        })
    }

    /// Gets a connection and writes `request` (a whole HTTP/1.1 request) on it: the
    /// response head, the connection, and when the read that completed the head arrived
    /// (body bytes that came with it arrived then).
    async fn send_bytes(
        &self,
        origin: &Origin,
        request: &[u8],
        clock: &Clock,
        bounds: &Bounds<'_>,
        stamps: &mut Stamps,
    ) -> Result<(Head, Conn, u64), Failure> {
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
                stamps.connect_us = connect_us;
            }
            stamps.t_sent_us = clock.now_us();
            let attempt = bounded(
                bounds,
                exchange_head(&mut conn, request, clock, stamps.t_sent_us),
                "no response headers",
            )
            .await;
            match attempt.and_then(|r| r) {
                Ok((head, t_us)) => return Ok((head, conn, t_us)),
                Err(Failed::Unanswered(_)) if reused && stamps.resends == 0 => {
                    if idle_for < pool::CLOSE_AFTER_RESPONSE {
                        self.pool.learn_closes(origin);
                    }
                    stamps.resends += 1;
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

fn failure(f: Failed, bounds: &Bounds<'_>) -> Failure {
    match f {
        Failed::Connect(e) => Failure::new(FailureKind::Connect, crate::error_chain(&e)),
        Failed::Unanswered(e) => Failure::new(
            FailureKind::Stream,
            format!(
                "the server closed the connection before answering: {}",
                crate::error_chain(&e)
            ),
        ),
        Failed::Broken(msg) => Failure::new(FailureKind::Stream, msg),
        Failed::Cancelled => Failure {
            kind: FailureKind::Cancelled,
            message: None,
        },
        Failed::Timeout(what) => Failure::new(
            FailureKind::Timeout,
            format!("{what} within {:?}", bounds.timeout),
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
        return Err(if let Some(tls) = refused_by_tls(&e) {
            tls
        } else if closed_by_peer(&e) {
            Failed::Unanswered(e)
        } else {
            Failed::Broken(format!("writing the request: {}", crate::error_chain(&e)))
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
            Err(e) => {
                return Err(if let Some(tls) = refused_by_tls(&e) {
                    tls
                } else if conn.reads() == reads_before && closed_by_peer(&e) {
                    Failed::Unanswered(e)
                } else {
                    Failed::Broken(crate::error_chain(&e))
                });
            }
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

/// A TLS alert the server sent once the handshake seemed done (TLS 1.3 refuses a missing
/// or untrusted client certificate only then): no connection, in words.
fn refused_by_tls(e: &io::Error) -> Option<Failed> {
    crate::tls::explain(e).map(|text| Failed::Connect(io::Error::new(e.kind(), text)))
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
