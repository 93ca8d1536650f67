//! Serving the receiver's connections: the accept loop (at most
//! [`super::Limits::max_connections`] at once) and one export request from head to answer
//! (a refusal's body is a `google.rpc.Status`: [`super::status`]).

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http::header::{CONTENT_ENCODING, CONTENT_LENGTH, CONTENT_TYPE};
use http::{HeaderValue, Method, Request, Response, StatusCode};
use http_body_util::{BodyExt as _, Full, Limited};
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::{TokioIo, TokioTimer};
use opentelemetry_proto::tonic::collector::trace::v1::{
    ExportTracePartialSuccess, ExportTraceServiceResponse,
};
use prost::Message as _;
use tokio::sync::Semaphore;
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;

use super::{Shared, bump, status};
use crate::TRACES_PATH;
use crate::decode::{self, Encoding};

/// Accepts connections until `stop`, serving at most `max_connections` at once.
pub(super) async fn accept<T: Send + 'static>(
    listener: tokio::net::TcpListener,
    shared: Arc<Shared<T>>,
    stop: CancellationToken,
) {
    let slots = Arc::new(Semaphore::new(shared.limits.max_connections.max(1)));
    let mut connections = JoinSet::new();
    loop {
        let permit = tokio::select! {
            () = stop.cancelled() => break,
            p = Arc::clone(&slots).acquire_owned() => match p {
                Ok(p) => p,
                Err(_) => break,
            },
        };
        let stream = tokio::select! {
            () = stop.cancelled() => break,
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                Err(e) => {
                    tracing::debug!("OTLP receiver: accept failed: {e}");
                    tokio::time::sleep(Duration::from_millis(20)).await;
                    continue;
                }
            },
        };
        let shared = Arc::clone(&shared);
        connections.spawn(async move {
            if opens_http2(&stream).await {
                bump(&shared.counters.grpc_connections, 1);
                tracing::debug!("OTLP receiver: an HTTP/2 (gRPC) connection, closed");
                return;
            }
            let service = service_fn(move |req| {
                let shared = Arc::clone(&shared);
                async move { Ok::<_, Infallible>(answer(&shared, req).await) }
            });
            let served = http1::Builder::new()
                .timer(TokioTimer::new())
                .header_read_timeout(Duration::from_secs(10))
                .serve_connection(TokioIo::new(stream), service)
                .await;
            if let Err(e) = served {
                tracing::debug!("OTLP receiver: connection ended: {e}");
            }
            drop(permit);
        });
        while connections.try_join_next().is_some() {}
    }
    connections.shutdown().await;
}

/// The start of the HTTP/2 connection preface (`PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n`).
const HTTP2_PREFACE: &[u8] = b"PRI * HTTP/2.0";

/// Whether the connection's first bytes are the HTTP/2 preface, waiting at most 10 s for
/// enough of them to tell (an HTTP/1 request differs from it within its first 3 bytes).
async fn opens_http2(stream: &tokio::net::TcpStream) -> bool {
    let mut buf = [0u8; HTTP2_PREFACE.len()];
    let look = async {
        loop {
            match stream.peek(&mut buf).await {
                Ok(0) | Err(_) => return false,
                Ok(n) if !HTTP2_PREFACE.starts_with(&buf[..n]) => return false,
                Ok(n) if n == HTTP2_PREFACE.len() => return true,
                Ok(_) => tokio::time::sleep(Duration::from_millis(5)).await,
            }
        }
    };
    tokio::time::timeout(Duration::from_secs(10), look)
        .await
        .unwrap_or(false)
}

/// Answers one request, counting it.
async fn answer<T>(shared: &Shared<T>, req: Request<Incoming>) -> Response<Full<Bytes>> {
    let c = &shared.counters;
    bump(&c.requests, 1);
    // A refusal answers in the request's encoding, protobuf when it named none.
    let asked = req
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(Encoding::of_content_type)
        .unwrap_or(Encoding::Protobuf);
    let (status, body, encoding) = match handle(shared, req).await {
        Ok((encoding, dropped)) => {
            bump(&c.accepted, 1);
            (StatusCode::OK, success(encoding, dropped), encoding)
        }
        Err((status, message)) => {
            let counter = match status {
                StatusCode::NOT_FOUND => &c.wrong_path,
                StatusCode::PAYLOAD_TOO_LARGE => &c.too_large,
                StatusCode::BAD_REQUEST | StatusCode::REQUEST_TIMEOUT => &c.malformed,
                _ => &c.unsupported,
            };
            bump(counter, 1);
            (status, status::body(status, &message, asked), asked)
        }
    };
    let mut r = Response::new(Full::new(body));
    *r.status_mut() = status;
    let kind = match encoding {
        Encoding::Protobuf => "application/x-protobuf",
        Encoding::Json => "application/json",
    };
    r.headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static(kind));
    r
}

type Refusal = (StatusCode, String);

/// Reads, decodes and holds one export request: its encoding and the spans dropped.
async fn handle<T>(shared: &Shared<T>, req: Request<Incoming>) -> Result<(Encoding, u64), Refusal> {
    let limit = shared.limits.max_body_bytes;
    if req.uri().path() != TRACES_PATH {
        return Err((
            StatusCode::NOT_FOUND,
            format!("no route; traces go to {TRACES_PATH}"),
        ));
    }
    if req.method() != Method::POST {
        return Err((StatusCode::METHOD_NOT_ALLOWED, "traces are POSTed".into()));
    }
    let header = |name| {
        req.headers()
            .get(name)
            .and_then(|v: &HeaderValue| v.to_str().ok())
    };
    let encoding = header(CONTENT_TYPE)
        .and_then(Encoding::of_content_type)
        .ok_or((
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "expected application/x-protobuf or application/json".into(),
        ))?;
    let gzip = match header(CONTENT_ENCODING).map(str::trim) {
        None | Some("identity") => false,
        Some(e) if e.eq_ignore_ascii_case("gzip") => true,
        Some(other) => {
            return Err((
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                format!("content encoding `{other}`: expected gzip or none"),
            ));
        }
    };
    let too_large = || {
        (
            StatusCode::PAYLOAD_TOO_LARGE,
            format!("body larger than {limit} bytes"),
        )
    };
    if header(CONTENT_LENGTH)
        .and_then(|v| v.parse::<u64>().ok())
        .is_some_and(|n| n > limit as u64)
    {
        return Err(too_large());
    }
    let _reader = shared
        .readers
        .acquire()
        .await
        .map_err(|_| (StatusCode::SERVICE_UNAVAILABLE, "shutting down".to_owned()))?;
    let read = Limited::new(req.into_body(), limit).collect();
    let body = match tokio::time::timeout(shared.limits.body_timeout, read).await {
        Err(_) => return Err((StatusCode::REQUEST_TIMEOUT, "the body took too long".into())),
        Ok(Err(e)) if e.is::<http_body_util::LengthLimitError>() => return Err(too_large()),
        Ok(Err(e)) => return Err((StatusCode::BAD_REQUEST, format!("reading the body: {e}"))),
        Ok(Ok(b)) => b.to_bytes(),
    };
    let body = if gzip {
        let expanded = decode::gunzip(&body, limit).map_err(|e| match e {
            decode::DecodeError::Gzip(m) if m.contains("expands past") => too_large(),
            e => (StatusCode::BAD_REQUEST, e.to_string()),
        })?;
        Bytes::from(expanded)
    } else {
        body
    };
    let spans =
        decode::decode(&body, encoding).map_err(|e| (StatusCode::BAD_REQUEST, e.to_string()))?;
    Ok((encoding, shared.hold(spans)))
}

/// The success body: an `ExportTraceServiceResponse`, with `partial_success` when spans
/// were dropped.
fn success(encoding: Encoding, dropped: u64) -> Bytes {
    let response = ExportTraceServiceResponse {
        partial_success: (dropped > 0).then(|| ExportTracePartialSuccess {
            rejected_spans: i64::try_from(dropped).unwrap_or(i64::MAX),
            error_message: "plateau's receiver holds no more spans; raise \
                            server_traces.max_spans"
                .into(),
        }),
    };
    match encoding {
        Encoding::Protobuf => Bytes::from(response.encode_to_vec()),
        // An empty response is `{}`, not a `null` field.
        Encoding::Json if dropped == 0 => Bytes::from_static(b"{}"),
        Encoding::Json => Bytes::from(serde_json::to_vec(&response).unwrap_or_default()),
    }
}
