//! plateau's measured HTTP/1.1 client: connections of its own (`pool`: one per in-flight
//! request, `conn`: one connection and its read buffer, `send`: getting one, writing the
//! request and reading the response head; TCP_NODELAY, https via rustls, reused while the
//! server keeps them open), `http1`: the framing, and [`Response::read`], which reads a
//! body in the caller's own task (`body`), stamping each socket read before any parsing
//! with the kernel's receive time of its bytes on plain TCP under Linux (`stamped`), else
//! with the time the read returned, on the caller's [`Clock`]; `plain` holds the
//! whole-body GETs and POSTs around a run (`/models`, `/metrics`, `/tokenize`). It knows
//! HTTP and nothing of what the bodies say: the caller decodes them. How each origin is
//! reached, the [`Network`], is decided when the client is built: its [`proxy`] (the
//! environment's, or an endpoint's own) and its [`tls`] settings (the system's roots and
//! the web's, or an endpoint's own CA, client certificate and name).
//!
//! [`Stamps::t_sent_us`] is stamped once a usable connection is in hand, so connection
//! set-up is never part of TTFT; it is recorded as [`Stamps::connect_us`]. A request is
//! resent, once and on a new connection, only when it went out on a reused connection that
//! the server had closed: the connection ended with not one byte of response read (what a
//! server that closes after each response, or an idle keep-alive timeout, does to the next
//! request).

pub mod clock;
pub mod network;
pub mod proxy;
pub mod tls;

mod body;
mod conn;
mod http1;
mod plain;
mod pool;
mod send;
#[cfg(target_os = "linux")]
mod stamped;

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http::header::{ACCEPT, CONTENT_TYPE, HeaderMap, HeaderValue};
use http::{Method, Request, Uri};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

pub use body::Response;
pub use clock::{Clock, micros};
use network::Origin;
pub use network::{EndpointNet, Network, ProxyChoice};
use pool::Pool;

/// Largest non-streaming or error body read (larger ones are cut and fail with
/// [`FailureKind::TooLarge`]).
pub const MAX_BODY: usize = 64 * 1024 * 1024;

/// Why the client could not be built or a whole-body request failed.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    /// A TLS setting cannot be used (names the setting and file).
    #[error("{0}")]
    Tls(#[from] tls::TlsError),
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

/// How a request failed on the way: no connection, a broken stream, no answer in time,
/// cancelled, or a whole body past [`MAX_BODY`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FailureKind {
    /// No connection (TCP, TLS, or a URL without a host).
    Connect,
    /// The connection or its framing broke after the request went out.
    Stream,
    /// The deadline passed.
    Timeout,
    /// The caller cancelled.
    Cancelled,
    /// A whole body larger than [`MAX_BODY`].
    TooLarge,
}

/// A failed request: its kind and what went wrong.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{kind:?}: {}", message.as_deref().unwrap_or("no detail"))]
pub struct Failure {
    /// How it failed.
    pub kind: FailureKind,
    /// The detail (none for a cancellation).
    pub message: Option<String>,
}

impl Failure {
    /// A failure of `kind` with `message`.
    pub fn new(kind: FailureKind, message: impl Into<String>) -> Failure {
        Failure {
            kind,
            message: Some(message.into()),
        }
    }
}

/// What sending recorded, whether or not it succeeded.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stamps {
    /// Once a usable connection was in hand, just before the request was written, us on
    /// the caller's clock.
    pub t_sent_us: u64,
    /// Time to open the connection (TCP and TLS), us; `None` when one was reused.
    pub connect_us: Option<u64>,
    /// Times it was resent after a reused connection turned out closed by the server.
    pub resends: u32,
}

/// How long a request may go, and what ends it early.
pub struct Bounds<'a> {
    /// When it times out.
    pub deadline: Instant,
    /// The timeout it was given (for messages).
    pub timeout: Duration,
    /// Cancels it.
    pub cancel: &'a CancellationToken,
}

impl<'a> Bounds<'a> {
    /// A request that may take `timeout` from now, unless `cancel` fires.
    pub fn new(timeout: Duration, cancel: &'a CancellationToken) -> Bounds<'a> {
        Bounds {
            deadline: Instant::now() + timeout,
            timeout,
            cancel,
        }
    }
}

/// An HTTP(S) client shared by every slot of a run.
#[derive(Clone)]
pub struct Client {
    pool: Arc<Pool>,
}

impl Client {
    /// A client that keeps up to `pool_size` idle connections per origin (size it for the
    /// largest concurrency so every slot finds its connection again), reaching every origin
    /// directly and trusting the system's roots and the web's.
    pub fn new(pool_size: usize) -> Result<Client, ClientError> {
        let network = Network::direct(&tls::Roots::load())?;
        Ok(Client::with_network(pool_size, Arc::new(network)))
    }

    /// A client reaching origins as `network` says.
    pub fn with_network(pool_size: usize, network: Arc<Network>) -> Client {
        Client {
            pool: Arc::new(Pool::new(network, pool_size)),
        }
    }

    /// A client of its own connections (`pool_size` idle per origin) reaching origins the
    /// same way as this one (a scraper beside the slots).
    pub fn sibling(&self, pool_size: usize) -> Client {
        Client::with_network(pool_size, self.pool.network().clone())
    }

    /// The proxy requests to `uri` go through, shown without credentials.
    pub fn proxy_for(&self, uri: &Uri) -> Option<String> {
        self.pool.network().proxy_for(uri)
    }

    /// For a plain-http origin behind a forward proxy: the request goes in absolute form,
    /// with this `Proxy-Authorization` (if any).
    pub(crate) fn forward(&self, origin: &Origin) -> Option<Option<HeaderValue>> {
        if origin.https {
            return None;
        }
        self.pool.route(origin).forward(false)
    }
}

/// Appends `data` to a whole body, failing past [`MAX_BODY`].
pub fn whole(buf: &mut Vec<u8>, data: &[u8]) -> Result<(), Failure> {
    if buf.len() + data.len() > MAX_BODY {
        return Err(Failure::new(
            FailureKind::TooLarge,
            format!("body larger than {MAX_BODY} bytes"),
        ));
    }
    buf.extend_from_slice(data);
    Ok(())
}

/// Builds the POST of one request body with `headers` (auth and extras), asking for an
/// event stream when `stream`, else JSON.
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

/// An error and its sources, `: `-joined (an I/O error's top-level message says little).
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
