//! Connections. Each request holds one HTTP/1.1 connection of its own from before
//! `t_sent` to its last byte; a connection goes back to the idle list only when its
//! response was read to the end and the server has not closed it. Opening a connection
//! (TCP, through the origin's proxy if it has one, then TLS for https, as the origin's
//! route in the [`Network`] says) is timed on its own, so it never reaches TTFT.
//!
//! Servers that close the connection after every response while their headers say
//! keep-alive (llama.cpp's server does) are learned per origin: once an idle connection
//! is found closed within [`CLOSE_AFTER_RESPONSE`] of its response ending, or a reused
//! connection dies before any response byte, that origin gets a fresh connection for
//! every request.

use std::collections::{HashMap, HashSet};
use std::io;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use rustls::pki_types::ServerName;
use tokio::time::Instant;

use crate::network::{Network, Origin, Route};

pub(crate) use crate::conn::Conn;

/// An idle connection found closed sooner than this after its response ended means the
/// server closes after every response (an idle timeout is seconds, not this).
pub(crate) const CLOSE_AFTER_RESPONSE: Duration = Duration::from_secs(1);

/// Longest wait for TCP and TLS set-up.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(30);

/// A connection in hand for one request.
pub(crate) struct Checkout {
    pub(crate) conn: Conn,
    /// Whether it served an earlier request.
    pub(crate) reused: bool,
    /// TCP (and TLS) set-up time when it was opened for this request, us.
    pub(crate) connect_us: Option<u64>,
    /// How long a reused connection had been idle.
    pub(crate) idle_for: Duration,
}

struct Idle {
    conn: Conn,
    since: Instant,
}

/// Idle connections by origin, and the origins that close after every response.
pub(crate) struct Pool {
    network: Arc<Network>,
    max_idle: usize,
    idle: Mutex<HashMap<Origin, Vec<Idle>>>,
    closing: Mutex<HashSet<Origin>>,
}

impl Pool {
    pub(crate) fn new(network: Arc<Network>, max_idle: usize) -> Pool {
        Pool {
            network,
            max_idle: max_idle.max(1),
            idle: Mutex::default(),
            closing: Mutex::default(),
        }
    }

    /// The routes connections follow.
    pub(crate) fn network(&self) -> &Arc<Network> {
        &self.network
    }

    /// How connections to `origin` are made.
    pub(crate) fn route(&self, origin: &Origin) -> Arc<Route> {
        self.network.route(origin)
    }

    /// A usable connection to `origin`: an idle one that is still open, unless `fresh`
    /// or the origin closes after every response, else a new one.
    pub(crate) async fn checkout(&self, origin: &Origin, fresh: bool) -> io::Result<Checkout> {
        if !fresh && !self.closes(origin) {
            while let Some(mut idle) = self.pop(origin) {
                let idle_for = idle.since.elapsed();
                if idle.conn.idle_usable() {
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

    /// Returns a connection whose response was read to the end and that may carry
    /// another request.
    pub(crate) fn checkin(&self, origin: &Origin, mut conn: Conn) {
        if self.closes(origin) || !conn.unread().is_empty() {
            return;
        }
        conn.shrink();
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
    pub(crate) fn learn_closes(&self, origin: &Origin) {
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
        let route = self.route(origin);
        let tcp = crate::proxy::connect(
            route.proxy.as_ref(),
            origin.https,
            &origin.host,
            origin.port,
        )
        .await?;
        tcp.set_nodelay(true)?;
        let keepalive = socket2::TcpKeepalive::new().with_time(Duration::from_secs(60));
        socket2::SockRef::from(&tcp).set_tcp_keepalive(&keepalive)?;
        if origin.https {
            let host = route.server_name.as_deref().unwrap_or(&origin.host);
            let name = ServerName::try_from(host.to_owned())
                .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?;
            let tls = route.tls.connect(name, tcp).await.map_err(|e| {
                let text = crate::tls::explain(&e).unwrap_or_else(|| crate::error_chain(&e));
                io::Error::new(e.kind(), text)
            })?;
            Ok(Conn::new(Box::new(tls)))
        } else {
            #[cfg(target_os = "linux")]
            let tcp = crate::stamped::StampedTcp::new(tcp)?;
            Ok(Conn::new(Box::new(tcp)))
        }
    }
}
