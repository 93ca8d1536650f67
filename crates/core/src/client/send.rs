//! Getting a connection and sending one request on it: `t_sent` is stamped once a usable
//! connection is in hand, its set-up time recorded, and the request resent only as the
//! client's documentation says (a reused connection the server had closed, not one byte of
//! response read).

use bytes::Bytes;
use http::header::{HOST, HeaderValue};
use http::request::Parts;
use http::{Request, Uri};
use http_body_util::Full;
use hyper::body::Incoming;
use tokio::time::{Duration, Instant, sleep_until};
use tokio_util::sync::CancellationToken;

use super::pool::{self, Checkout, Origin};
use super::{Client, MAX_ATTEMPTS, error_chain};
use crate::clock::Clock;
use crate::exchange::Exchange;
use crate::sample::Outcome;

impl Client {
    /// Gets a connection and sends the request: stamps `t_sent` once the connection is in
    /// hand, records its set-up time, and resends as the module documentation says.
    #[allow(clippy::too_many_arguments)]
    pub(super) async fn send(
        &self,
        origin: &Origin,
        parts: &Parts,
        body: &Full<Bytes>,
        ex: &mut Exchange,
        clock: &Clock,
        deadline: Instant,
        timeout: Duration,
        cancel: &CancellationToken,
    ) -> Result<(http::Response<Incoming>, pool::Conn), (Outcome, Option<String>)> {
        let mut fresh = false;
        for _ in 0..MAX_ATTEMPTS {
            let checkout = tokio::select! {
                biased;
                _ = cancel.cancelled() => return Err((Outcome::Cancelled, None)),
                _ = sleep_until(deadline) => return Err((Outcome::Timeout, Some(format!("no connection within {timeout:?}")))),
                c = self.pool.checkout(origin, fresh) => c,
            };
            let Checkout {
                mut conn,
                reused,
                connect_us,
                idle_for,
            } = checkout.map_err(|e| (Outcome::Connect, Some(error_chain(&e))))?;
            if connect_us.is_some() {
                ex.connect_us = connect_us;
            }
            ex.t_sent_us = clock.now_us();
            let reads_before = conn.reads();
            let sent = tokio::select! {
                biased;
                _ = cancel.cancelled() => return Err((Outcome::Cancelled, None)),
                _ = sleep_until(deadline) => return Err((Outcome::Timeout, Some(format!("no response headers within {timeout:?}")))),
                r = conn.sender.try_send_request(rebuild(parts, body)) => r,
            };
            match sent {
                Ok(resp) => return Ok((resp, conn)),
                // Closed before a byte of the request was written: any connection will do.
                Err(e) if e.message().is_some() => fresh = true,
                // Written to a reused connection the server had closed: not one byte of
                // response came back. Resend once, on a new connection.
                Err(e)
                    if ex.resends == 0
                        && closed_unanswered(e.error(), reused, conn.reads() == reads_before) =>
                {
                    if idle_for < pool::CLOSE_AFTER_RESPONSE {
                        self.pool.learn_closes(origin);
                    }
                    ex.resends += 1;
                    fresh = true;
                }
                Err(e) => return Err((Outcome::Stream, Some(error_chain(e.error())))),
            }
        }
        Err((
            Outcome::Connect,
            Some(format!(
                "the server closed {MAX_ATTEMPTS} connections in a row before answering"
            )),
        ))
    }
}

/// The one case a written request is sent again: it went out on a `reused` connection
/// that the server had already closed (`e` says the peer closed it) and not one byte of
/// response came back (`read_nothing`), so the server cannot have acted on it.
pub(super) fn closed_unanswered(e: &hyper::Error, reused: bool, read_nothing: bool) -> bool {
    reused && read_nothing && closed_by_peer(e)
}

/// Whether `e` says the peer closed the connection (EOF before a complete message, reset,
/// broken pipe).
fn closed_by_peer(e: &hyper::Error) -> bool {
    if e.is_incomplete_message() || e.is_closed() {
        return true;
    }
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        if let Some(io) = s.downcast_ref::<std::io::Error>() {
            return matches!(
                io.kind(),
                std::io::ErrorKind::ConnectionReset
                    | std::io::ErrorKind::BrokenPipe
                    | std::io::ErrorKind::UnexpectedEof
            );
        }
        source = s.source();
    }
    false
}

/// A new request from the parts of one: origin-form target and a `Host` header, as
/// HTTP/1.1 on a connection of our own wants.
pub(super) fn rebuild(parts: &Parts, body: &Full<Bytes>) -> Request<Full<Bytes>> {
    let mut req = Request::new(body.clone());
    *req.method_mut() = parts.method.clone();
    *req.headers_mut() = parts.headers.clone();
    let target = parts
        .uri
        .path_and_query()
        .map_or("/", http::uri::PathAndQuery::as_str);
    *req.uri_mut() = target.parse().unwrap_or_else(|_| Uri::from_static("/"));
    if let Some(authority) = parts.uri.authority()
        && !req.headers().contains_key(HOST)
        && let Ok(host) = HeaderValue::from_str(authority.as_str())
    {
        req.headers_mut().insert(HOST, host);
    }
    req
}
