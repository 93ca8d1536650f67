//! The HTTP client: HTTP/1.1 connections of its own (`pool`: one per in-flight request,
//! TCP_NODELAY, https via rustls, reused while the server keeps them open) and
//! [`Client::exchange`], which sends one request and reads its body frame by frame,
//! stamping each frame's arrival before any parsing.
//!
//! `t_sent` is stamped once a usable connection is in hand, so connection set-up is never
//! part of TTFT; it is recorded as the request's `connect_us`. A request is resent, once and
//! on a new connection, only when it went out on a reused connection that the server had
//! closed: the connection ended with not one byte of response read (what a server that
//! closes after each response, or an idle keep-alive timeout, does to the next request).

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http::header::{ACCEPT, CONTENT_TYPE, HOST, HeaderMap, HeaderValue};
use http::request::Parts;
use http::{Method, Request, Uri};
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use tokio::time::{Instant, sleep_until};
use tokio_util::sync::CancellationToken;

use crate::clock::Clock;
use crate::exchange::Exchange;
use crate::sample::Outcome;
use crate::wire::Wire;
use pool::{Checkout, Origin, Pool};

/// Largest non-streaming or error body read (larger ones are cut and fail with `decode`).
const MAX_BODY: usize = 64 * 1024 * 1024;

/// Most connections tried for one request: a first, one after a connection the server had
/// already closed before the request went out, one resend.
const MAX_ATTEMPTS: u32 = 3;

/// Why the client could not be built or a metadata request failed.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    /// TLS setup failed.
    #[error("TLS setup failed: {0}")]
    Tls(#[from] rustls::Error),
    /// A request could not be built.
    #[error("invalid request: {0}")]
    Request(#[from] http::Error),
    /// Connecting or reading failed.
    #[error("{0}")]
    Transport(String),
    /// The server answered with an error status.
    #[error("HTTP {status}: {message}")]
    Status {
        /// Status code.
        status: u16,
        /// The error body's message.
        message: String,
    },
    /// The body was not the expected JSON.
    #[error("the response was not the expected JSON: {0}")]
    Json(#[from] serde_json::Error),
    /// No answer in time.
    #[error("no answer within {0:?}")]
    Timeout(Duration),
}

/// An HTTP(S) client shared by every slot of a run.
#[derive(Clone)]
pub struct Client {
    pool: Arc<Pool>,
}

impl Client {
    /// A client that keeps up to `pool_size` idle connections per origin (size it for the
    /// largest concurrency so every slot finds its connection again).
    pub fn new(pool_size: usize) -> Result<Client, ClientError> {
        let mut roots = rustls::RootCertStore::empty();
        roots.extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned());
        let mut tls = rustls::ClientConfig::builder_with_provider(Arc::new(
            rustls::crypto::ring::default_provider(),
        ))
        .with_safe_default_protocol_versions()?
        .with_root_certificates(roots)
        .with_no_client_auth();
        tls.alpn_protocols = vec![b"http/1.1".to_vec()];
        Ok(Client {
            pool: Arc::new(Pool::new(Arc::new(tls), pool_size)),
        })
    }

    /// GETs `uri` and decodes the JSON body (for `/v1/models` at preflight); `wire` reads
    /// an error body.
    pub async fn get_json(
        &self,
        uri: Uri,
        headers: &HeaderMap,
        wire: &dyn Wire,
        timeout: Duration,
    ) -> Result<serde_json::Value, ClientError> {
        let (mut parts, body) = Request::builder()
            .method(Method::GET)
            .uri(uri)
            .body(Full::new(Bytes::new()))?
            .into_parts();
        parts.headers.extend(headers.clone());
        let fetch = async {
            let origin = Origin::of(&parts.uri)
                .ok_or_else(|| ClientError::Transport("the URL has no host".into()))?;
            let transport =
                |e: &(dyn std::error::Error + 'static)| ClientError::Transport(error_chain(e));
            let Checkout { mut conn, .. } = self
                .pool
                .checkout(&origin, false)
                .await
                .map_err(|e| transport(&e))?;
            let resp = conn
                .sender
                .send_request(rebuild(&parts, &body))
                .await
                .map_err(|e| transport(&e))?;
            let status = resp.status();
            let body = resp
                .into_body()
                .collect()
                .await
                .map_err(|e| transport(&e))?
                .to_bytes();
            self.pool.checkin(&origin, conn);
            if !status.is_success() {
                return Err(ClientError::Status {
                    status: status.as_u16(),
                    message: wire.error_message(&body),
                });
            }
            Ok(serde_json::from_slice(&body)?)
        };
        tokio::time::timeout(timeout, fetch)
            .await
            .map_err(|_| ClientError::Timeout(timeout))?
    }

    /// Sends `req` and reads the whole response, its body decoded by `wire`. Never fails:
    /// every failure is an [`Outcome`] in the returned exchange. `cancel` ends it early with
    /// [`Outcome::Cancelled`], keeping what arrived.
    pub async fn exchange(
        &self,
        req: Request<Full<Bytes>>,
        wire: &dyn Wire,
        clock: &Clock,
        timeout: Duration,
        cancel: &CancellationToken,
    ) -> Exchange {
        let mut ex = Exchange::new(clock.now_us());
        let deadline = Instant::now() + timeout;
        let Some(origin) = Origin::of(req.uri()) else {
            return end(
                ex,
                clock,
                Outcome::Connect,
                Some("the URL has no host".into()),
            );
        };
        let (parts, body) = req.into_parts();
        let (resp, conn) = match self
            .send(
                &origin, &parts, &body, &mut ex, clock, deadline, timeout, cancel,
            )
            .await
        {
            Ok(sent) => sent,
            Err((outcome, msg)) => return end(ex, clock, outcome, msg),
        };
        let status = resp.status();
        let is_sse = resp
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.starts_with("text/event-stream"));
        let mut body = resp.into_body();
        let mut reader = if is_sse && status.is_success() {
            Reader::Sse(SseState::default())
        } else {
            Reader::Whole(Vec::new())
        };
        loop {
            let frame = tokio::select! {
                biased;
                _ = cancel.cancelled() => return end(ex, clock, Outcome::Cancelled, None),
                _ = sleep_until(deadline) => return end(ex, clock, Outcome::Timeout, Some(format!("response not complete within {timeout:?}"))),
                f = body.frame() => f,
            };
            let t_us = clock.now_us();
            let read = conn.reads();
            match frame {
                None => break,
                Some(Err(e)) => {
                    return end(
                        ex,
                        clock,
                        Outcome::Stream,
                        Some(format!("body broke: {}", error_chain(&e))),
                    );
                }
                Some(Ok(frame)) => {
                    let Some(data) = frame.data_ref() else {
                        continue;
                    };
                    match &mut reader {
                        Reader::Sse(state) => {
                            if let Err(e) = state.feed(wire, data, t_us, read, &mut ex) {
                                return end(ex, clock, Outcome::Decode, Some(e));
                            }
                            if let Some((outcome, msg)) = state.failure.take() {
                                return end(ex, clock, outcome, Some(msg));
                            }
                        }
                        Reader::Whole(buf) => {
                            if buf.len() + data.len() > MAX_BODY {
                                return end(
                                    ex,
                                    clock,
                                    Outcome::Decode,
                                    Some(format!("body larger than {MAX_BODY} bytes")),
                                );
                            }
                            buf.extend_from_slice(data);
                        }
                    }
                }
            }
        }
        let t_end = clock.now_us();
        // The response was read to its end: the connection can serve another request.
        self.pool.checkin(&origin, conn);
        match reader {
            Reader::Sse(mut state) => {
                state.finish(wire, t_end, &mut ex);
                if let Some((outcome, msg)) = state.failure.take() {
                    return end(ex, clock, outcome, Some(msg));
                }
                if !state.done && !state.finished {
                    return end(
                        ex,
                        clock,
                        Outcome::Stream,
                        Some("stream ended before [DONE]".into()),
                    );
                }
            }
            Reader::Whole(buf) => {
                if !status.is_success() {
                    let msg = wire.error_message(&buf);
                    return end(
                        ex,
                        clock,
                        Outcome::HttpStatus {
                            status: status.as_u16(),
                        },
                        Some(msg),
                    );
                }
                match wire.decode(&buf, &mut ex.text) {
                    Err(e) => {
                        return end(
                            ex,
                            clock,
                            Outcome::Decode,
                            Some(format!("response body: {e}")),
                        );
                    }
                    Ok(d) if d.error.is_some() => {
                        return end(ex, clock, Outcome::ServerError, d.error);
                    }
                    Ok(d) => {
                        ex.usage = d.usage.or(ex.usage);
                        if d.carries_output() {
                            ex.record(t_end, 0, &d);
                        }
                    }
                }
            }
        }
        let outcome = if ex.chunks.is_empty() {
            Outcome::Empty
        } else {
            Outcome::Ok
        };
        let msg = (outcome == Outcome::Empty).then(|| "the response carried no content".to_owned());
        end(ex, clock, outcome, msg)
    }

    /// Gets a connection and sends the request: stamps `t_sent` once the connection is in
    /// hand, records its set-up time, and resends as the module documentation says.
    #[allow(clippy::too_many_arguments)]
    async fn send(
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
                    if reused
                        && ex.resends == 0
                        && conn.reads() == reads_before
                        && closed_by_peer(e.error()) =>
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
fn rebuild(parts: &Parts, body: &Full<Bytes>) -> Request<Full<Bytes>> {
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

/// Builds the POST of one request body with the API's `headers` (auth and extras).
pub fn post(
    uri: &Uri,
    headers: HeaderMap,
    stream: bool,
    body: Vec<u8>,
) -> Result<Request<Full<Bytes>>, http::Error> {
    let mut req = Request::builder()
        .method(Method::POST)
        .uri(uri.clone())
        .body(Full::new(Bytes::from(body)))?;
    let h = req.headers_mut();
    h.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    h.insert(
        ACCEPT,
        HeaderValue::from_static(if stream {
            "text/event-stream"
        } else {
            "application/json"
        }),
    );
    h.extend(headers);
    Ok(req)
}

fn end(mut ex: Exchange, clock: &Clock, outcome: Outcome, error: Option<String>) -> Exchange {
    ex.t_end_us = clock.now_us();
    ex.outcome = outcome;
    ex.error = error;
    ex
}

/// An error and its sources, `: `-joined (hyper's top-level messages say little).
pub fn error_chain(e: &(dyn std::error::Error + 'static)) -> String {
    let mut out = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        out.push_str(": ");
        out.push_str(&s.to_string());
        source = s.source();
    }
    out
}

enum Reader {
    Sse(SseState),
    Whole(Vec<u8>),
}

mod pool;
mod stream;

use stream::SseState;
