//! The HTTP client: a pooled hyper 1.x client (HTTP/1.1 keep-alive, TCP_NODELAY, https via
//! rustls) and [`Client::exchange`], which sends one request and reads its body frame by
//! frame, stamping each frame's arrival before any parsing.

use std::time::Duration;

use bytes::Bytes;
use http::header::{ACCEPT, AUTHORIZATION, CONTENT_TYPE, HeaderMap, HeaderValue};
use http::{Method, Request, Uri};
use http_body_util::{BodyExt, Full};
use hyper_rustls::HttpsConnector;
use hyper_util::client::legacy::Client as HyperClient;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use tokio::time::{Instant, sleep_until};
use tokio_util::sync::CancellationToken;

use crate::clock::Clock;
use crate::exchange::{Exchange, RawChunk};
use crate::openai;
use crate::plan::Endpoint;
use crate::sample::Outcome;

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

/// A pooled HTTP(S) client shared by every slot of a run.
#[derive(Clone)]
pub struct Client {
    inner: HyperClient<HttpsConnector<HttpConnector>, Full<Bytes>>,
}

impl Client {
    /// A client whose pool keeps up to `pool_size` idle connections per host (size it for
    /// the largest concurrency so no slot waits for a connection).
    pub fn new(pool_size: usize) -> Result<Client, ClientError> {
        let mut http = HttpConnector::new();
        http.set_nodelay(true);
        http.enforce_http(false);
        http.set_connect_timeout(Some(Duration::from_secs(30)));
        http.set_keepalive(Some(Duration::from_secs(60)));
        let https = hyper_rustls::HttpsConnectorBuilder::new()
            .with_provider_and_webpki_roots(rustls::crypto::ring::default_provider())?
            .https_or_http()
            .enable_http1()
            .wrap_connector(http);
        let inner = HyperClient::builder(TokioExecutor::new())
            .pool_max_idle_per_host(pool_size.max(1))
            .pool_idle_timeout(Duration::from_secs(90))
            .retry_canceled_requests(false)
            .build(https);
        Ok(Client { inner })
    }

    /// GETs `uri` and decodes the JSON body (for `/v1/models` at preflight).
    pub async fn get_json(
        &self,
        uri: Uri,
        headers: &HeaderMap,
        timeout: Duration,
    ) -> Result<serde_json::Value, ClientError> {
        let mut req = Request::builder()
            .method(Method::GET)
            .uri(uri)
            .body(Full::new(Bytes::new()))?;
        req.headers_mut().extend(headers.clone());
        let fetch = async {
            let resp = self
                .inner
                .request(req)
                .await
                .map_err(|e| ClientError::Transport(error_chain(&e)))?;
            let status = resp.status();
            let body = resp
                .into_body()
                .collect()
                .await
                .map_err(|e| ClientError::Transport(error_chain(&e)))?
                .to_bytes();
            if !status.is_success() {
                return Err(ClientError::Status {
                    status: status.as_u16(),
                    message: openai::error_message(&body),
                });
            }
            Ok(serde_json::from_slice(&body)?)
        };
        tokio::time::timeout(timeout, fetch)
            .await
            .map_err(|_| ClientError::Timeout(timeout))?
    }

    /// Sends `req` and reads the whole response. Never fails: every failure is an
    /// [`Outcome`] in the returned exchange. `cancel` ends it early with
    /// [`Outcome::Cancelled`], keeping what arrived.
    pub async fn exchange(
        &self,
        req: Request<Full<Bytes>>,
        clock: &Clock,
        timeout: Duration,
        cancel: &CancellationToken,
    ) -> Exchange {
        let mut ex = Exchange::new(clock.now_us());
        let deadline = Instant::now() + timeout;
        let resp = tokio::select! {
            biased;
            _ = cancel.cancelled() => return end(ex, clock, Outcome::Cancelled, None),
            _ = sleep_until(deadline) => return end(ex, clock, Outcome::Timeout, Some(format!("no response headers within {timeout:?}"))),
            r = self.inner.request(req) => r,
        };
        let resp = match resp {
            Ok(r) => r,
            Err(e) => {
                let outcome = if e.is_connect() {
                    Outcome::Connect
                } else {
                    Outcome::Stream
                };
                return end(ex, clock, outcome, Some(error_chain(&e)));
            }
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
                            if let Err(e) = state.feed(data, t_us, &mut ex) {
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
        match reader {
            Reader::Sse(mut state) => {
                state.finish(t_end, &mut ex);
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
                    let msg = openai::error_message(&buf);
                    return end(
                        ex,
                        clock,
                        Outcome::HttpStatus {
                            status: status.as_u16(),
                        },
                        Some(msg),
                    );
                }
                match openai::decode(&buf, &mut ex.response) {
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
                        if d.content_len > 0 {
                            ex.chunks.push(RawChunk {
                                t_us: t_end,
                                end: ex.response.len(),
                                completion_tokens: None,
                            });
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

/// Builds the POST for one request body.
pub fn post(
    uri: &Uri,
    endpoint: &Endpoint,
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
    h.extend(auth_headers(endpoint));
    Ok(req)
}

/// The endpoint's extra headers and bearer token, values marked sensitive where secret.
pub fn auth_headers(endpoint: &Endpoint) -> HeaderMap {
    let mut h = HeaderMap::new();
    if let Some(key) = &endpoint.api_key
        && let Ok(mut v) = HeaderValue::from_str(&format!("Bearer {}", key.expose()))
    {
        v.set_sensitive(true);
        h.insert(AUTHORIZATION, v);
    }
    for (name, value) in &endpoint.headers {
        h.append(name.clone(), value.clone());
    }
    h
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

mod stream;

use stream::SseState;
