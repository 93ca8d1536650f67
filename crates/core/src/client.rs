//! The HTTP client: HTTP/1.1 connections of its own (`pool`: one per in-flight request,
//! `conn`: one connection and its read buffer, `send`: getting one, writing the request and
//! reading the response head; TCP_NODELAY, https via rustls, reused while the server keeps
//! them open), `http1`: the framing, and [`Client::exchange`], which sends one request and
//! reads its body in its own task (`body`), stamping each socket read before any parsing
//! with the kernel's receive time of its bytes on plain TCP under Linux (`stamped`), else
//! with the time the read returned; `plain` holds the whole-body GETs and POSTs around a
//! run (`/models`, `/metrics`, `/tokenize`).
//!
//! `t_sent` is stamped once a usable connection is in hand, so connection set-up is never
//! part of TTFT; it is recorded as the request's `connect_us`. A request is resent, once and
//! on a new connection, only when it went out on a reused connection that the server had
//! closed: the connection ended with not one byte of response read (what a server that
//! closes after each response, or an idle keep-alive timeout, does to the next request).

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http::header::{ACCEPT, CONTENT_TYPE, HeaderMap, HeaderValue, RETRY_AFTER};
use http::{Method, Request, Uri};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use crate::clock::Clock;
use crate::exchange::Exchange;
use crate::sample::Outcome;
use crate::wire::Wire;
use pool::{Origin, Pool};

/// Largest non-streaming or error body read (larger ones are cut and fail with `decode`).
const MAX_BODY: usize = 64 * 1024 * 1024;

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

    /// Sends `req` and reads the whole response, its body decoded by `wire`. Never fails:
    /// every failure is an [`Outcome`] in the returned exchange. `cancel` ends it early with
    /// [`Outcome::Cancelled`], keeping what arrived.
    pub async fn exchange(
        &self,
        req: Request<Bytes>,
        wire: &dyn Wire,
        clock: &Clock,
        timeout: Duration,
        cancel: &CancellationToken,
    ) -> Exchange {
        let mut ex = Exchange::new(clock.now_us());
        let bounds = Bounds {
            deadline: Instant::now() + timeout,
            timeout,
            cancel,
        };
        let Some(origin) = Origin::of(req.uri()) else {
            return end(
                ex,
                clock,
                Outcome::Connect,
                Some("the URL has no host".into()),
            );
        };
        let (parts, body) = req.into_parts();
        let mut request = Vec::with_capacity(body.len() + 512);
        http1::write_request(&parts, &body, &mut request);
        drop(body);
        let sent = self.send(&origin, &request, &mut ex, clock, &bounds).await;
        drop(request);
        let sent = match sent {
            Ok(sent) => sent,
            Err((outcome, msg)) => return end(ex, clock, outcome, msg),
        };
        let status = sent.head.status;
        if !status.is_success() {
            ex.retry_after = sent
                .head
                .headers
                .get(RETRY_AFTER)
                .and_then(|v| v.to_str().ok())
                .and_then(|v| crate::backoff::parse_retry_after(v, std::time::SystemTime::now()));
        }
        let is_sse = sent
            .head
            .headers
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.starts_with("text/event-stream"));
        let mut reader = if is_sse && status.is_success() {
            Reader::Sse(SseState::default())
        } else {
            Reader::Whole(Vec::new())
        };
        let ended = self
            .read_body(
                &origin,
                &parts.method,
                sent,
                clock,
                &bounds,
                &mut |data, t_us, read| match &mut reader {
                    Reader::Sse(state) => {
                        state
                            .feed(wire, data, t_us, read, &mut ex)
                            .map_err(|e| (Outcome::Decode, Some(e)))?;
                        match state.failure.take() {
                            Some((outcome, msg)) => Err((outcome, Some(msg))),
                            None => Ok(()),
                        }
                    }
                    Reader::Whole(buf) => whole(buf, data),
                },
            )
            .await;
        if let Err((outcome, msg)) = ended {
            return end(ex, clock, outcome, msg);
        }
        let t_end = clock.now_us();
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
}

/// Appends `data` to a whole body, failing past [`MAX_BODY`].
fn whole(buf: &mut Vec<u8>, data: &[u8]) -> Result<(), body::Stop> {
    if buf.len() + data.len() > MAX_BODY {
        return Err((
            Outcome::Decode,
            Some(format!("body larger than {MAX_BODY} bytes")),
        ));
    }
    buf.extend_from_slice(data);
    Ok(())
}

/// Builds the POST of one request body with the API's `headers` (auth and extras).
pub fn post(
    uri: &Uri,
    headers: HeaderMap,
    stream: bool,
    body: Vec<u8>,
) -> Result<Request<Bytes>, http::Error> {
    let mut req = Request::builder()
        .method(Method::POST)
        .uri(uri.clone())
        .body(Bytes::from(body))?;
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

mod body;
mod conn;
mod http1;
mod plain;
mod pool;
mod send;
#[cfg(target_os = "linux")]
mod stamped;
mod stream;

use send::Bounds;
use stream::SseState;
