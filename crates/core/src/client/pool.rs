//! Connections. Each request holds one HTTP/1.1 connection of its own from before
//! `t_sent` to its last byte; a connection goes back to the idle list only when its
//! response was read to the end and the server has not closed it. Opening a connection
//! (TCP, then TLS for https) is timed on its own, so it never reaches TTFT.
//!
//! Servers that close the connection after every response while their headers say
//! keep-alive (llama.cpp's server does) are learned per origin: once an idle connection
//! is found closed within [`CLOSE_AFTER_RESPONSE`] of its response ending, or a reused
//! connection dies before any response byte, that origin gets a fresh connection for
//! every request. Each connection counts its socket reads, so the reader can tell which
//! body frames arrived in one read.

use std::collections::{HashMap, HashSet};
use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use http::Uri;
use http_body_util::Full;
use hyper::client::conn::http1::{self, SendRequest};
use hyper_util::rt::TokioIo;
use rustls::pki_types::ServerName;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tokio::time::Instant;
use tokio_rustls::TlsConnector;

/// An idle connection found closed sooner than this after its response ended means the
/// server closes after every response (an idle timeout is seconds, not this).
pub(super) const CLOSE_AFTER_RESPONSE: Duration = Duration::from_secs(1);

/// Longest wait for TCP and TLS set-up.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(30);

/// Where connections go: scheme, host and port.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(super) struct Origin {
    https: bool,
    host: String,
    port: u16,
}

impl Origin {
    /// The origin of `uri`; `None` without a host.
    pub(super) fn of(uri: &Uri) -> Option<Origin> {
        let https = uri.scheme_str() == Some("https");
        let host = uri.host()?.trim_start_matches('[').trim_end_matches(']');
        let port = uri.port_u16().unwrap_or(if https { 443 } else { 80 });
        Some(Origin {
            https,
            host: host.to_owned(),
            port,
        })
    }
}

/// One open connection and its read counter.
pub(super) struct Conn {
    pub(super) sender: SendRequest<Full<Bytes>>,
    /// Socket reads that returned bytes, so far.
    pub(super) reads: Arc<AtomicU64>,
}

impl Conn {
    /// Reads so far.
    pub(super) fn reads(&self) -> u64 {
        self.reads.load(Ordering::Acquire)
    }
}

/// A connection in hand for one request.
pub(super) struct Checkout {
    pub(super) conn: Conn,
    /// Whether it served an earlier request.
    pub(super) reused: bool,
    /// TCP (and TLS) set-up time when it was opened for this request, us.
    pub(super) connect_us: Option<u64>,
    /// How long a reused connection had been idle.
    pub(super) idle_for: Duration,
}

struct Idle {
    conn: Conn,
    since: Instant,
}

/// Idle connections by origin, and the origins that close after every response.
pub(super) struct Pool {
    tls: TlsConnector,
    max_idle: usize,
    idle: Mutex<HashMap<Origin, Vec<Idle>>>,
    closing: Mutex<HashSet<Origin>>,
}

impl Pool {
    pub(super) fn new(tls: Arc<rustls::ClientConfig>, max_idle: usize) -> Pool {
        Pool {
            tls: TlsConnector::from(tls),
            max_idle: max_idle.max(1),
            idle: Mutex::default(),
            closing: Mutex::default(),
        }
    }

    /// A usable connection to `origin`: an idle one that is still open, unless `fresh`
    /// or the origin closes after every response, else a new one.
    pub(super) async fn checkout(&self, origin: &Origin, fresh: bool) -> io::Result<Checkout> {
        if !fresh && !self.closes(origin) {
            while let Some(mut idle) = self.pop(origin) {
                let idle_for = idle.since.elapsed();
                if !idle.conn.sender.is_closed() && idle.conn.sender.ready().await.is_ok() {
                    return Ok(Checkout {
                        conn: idle.conn,
                        reused: true,
                        connect_us: None,
                        idle_for,
                    });
                }
                if idle_for < CLOSE_AFTER_RESPONSE {
                    self.learn_closes(origin);
                }
            }
        }
        let started = Instant::now();
        let conn = tokio::time::timeout(CONNECT_TIMEOUT, self.open(origin))
            .await
            .map_err(|_| {
                io::Error::new(
                    io::ErrorKind::TimedOut,
                    format!("no connection within {CONNECT_TIMEOUT:?}"),
                )
            })??;
        Ok(Checkout {
            conn,
            reused: false,
            connect_us: Some(crate::clock::micros(started.elapsed())),
            idle_for: Duration::ZERO,
        })
    }

    /// Returns a connection whose response was read to the end.
    pub(super) fn checkin(&self, origin: &Origin, conn: Conn) {
        if conn.sender.is_closed() || self.closes(origin) {
            return;
        }
        let mut idle = self.idle.lock().unwrap_or_else(PoisonError::into_inner);
        let list = idle.entry(origin.clone()).or_default();
        if list.len() < self.max_idle {
            list.push(Idle {
                conn,
                since: Instant::now(),
            });
        }
    }

    /// Marks `origin` as closing after every response.
    pub(super) fn learn_closes(&self, origin: &Origin) {
        let mut closing = self.closing.lock().unwrap_or_else(PoisonError::into_inner);
        if closing.insert(origin.clone()) {
            tracing::info!(
                host = %origin.host,
                port = origin.port,
                "the server closes the connection after each response: a new connection per request"
            );
        }
    }

    fn closes(&self, origin: &Origin) -> bool {
        self.closing
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .contains(origin)
    }

    fn pop(&self, origin: &Origin) -> Option<Idle> {
        // Last in, first out: the most recently used connection is the likeliest open.
        self.idle
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get_mut(origin)?
            .pop()
    }

    async fn open(&self, origin: &Origin) -> io::Result<Conn> {
        let tcp = TcpStream::connect((origin.host.as_str(), origin.port)).await?;
        tcp.set_nodelay(true)?;
        let keepalive = socket2::TcpKeepalive::new().with_time(Duration::from_secs(60));
        socket2::SockRef::from(&tcp).set_tcp_keepalive(&keepalive)?;
        let reads = Arc::new(AtomicU64::new(0));
        if origin.https {
            let name = ServerName::try_from(origin.host.clone())
                .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?;
            let tls = self.tls.connect(name, tcp).await?;
            handshake(tls, reads).await
        } else {
            handshake(tcp, reads).await
        }
    }
}

async fn handshake<T>(io: T, reads: Arc<AtomicU64>) -> io::Result<Conn>
where
    T: AsyncRead + AsyncWrite + Send + Unpin + 'static,
{
    let counted = TokioIo::new(Counted {
        io,
        reads: Arc::clone(&reads),
    });
    let (sender, connection) = http1::Builder::new()
        .handshake(counted)
        .await
        .map_err(io::Error::other)?;
    tokio::spawn(async move {
        if let Err(e) = connection.await {
            tracing::debug!(error = %e, "connection ended");
        }
    });
    Ok(Conn { sender, reads })
}

/// A stream that counts the reads that returned bytes.
struct Counted<T> {
    io: T,
    reads: Arc<AtomicU64>,
}

impl<T: AsyncRead + Unpin> AsyncRead for Counted<T> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.io).poll_read(cx, buf);
        if matches!(polled, Poll::Ready(Ok(()))) && buf.filled().len() > before {
            self.reads.fetch_add(1, Ordering::Release);
        }
        polled
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for Counted<T> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.io).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.io).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_shutdown(cx)
    }
}
