//! The OTLP/HTTP trace receiver: `POST /v1/traces` on a socket of its own, served by a
//! single-threaded runtime on a thread of its own, so decoding a flood of spans never runs
//! on the threads that stamp the measured requests. Every limit is a count, never a crash:
//! bodies past [`Limits::max_body_bytes`] are refused with 413 (from `Content-Length` before
//! a byte is read, else when the limit is crossed), bodies that do not decode with 400,
//! other paths, methods and media types with 404, 405 and 415, each refusal with a
//! `google.rpc.Status` body in the request's encoding (the OTLP/HTTP specification's
//! failure answer); at most [`BODY_BUDGET`] bytes
//! of bodies are read at once (at most 4 readers); a connection that opens with the HTTP/2
//! preface (an exporter left on gRPC) is counted and closed; spans beyond
//! [`Limits::max_spans`] held are dropped and counted, and the exporter told so in the
//! response's `partial_success`. Spans the caller's [`Keep`] turns away (a trace's other
//! spans) are counted as ignored.

mod serve;
mod status;

use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use crate::Span;

/// Most bytes of bodies read at once, whatever the number of connections.
pub const BODY_BUDGET: usize = 64 << 20;

/// Most bodies read at once.
const MAX_READERS: usize = 4;

/// Turns a decoded span into what the caller keeps of it, or `None` to ignore it.
pub type Keep<T> = Arc<dyn Fn(Span) -> Option<T> + Send + Sync>;

/// The receiver's bounds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Largest body accepted, bytes (after gzip; the OpenTelemetry Collector's default is
    /// 20 MiB).
    pub max_body_bytes: usize,
    /// Most kept spans held between two [`Receiver::take`]s; more are dropped and counted.
    pub max_spans: usize,
    /// Connections served at once; more wait in the listen queue.
    pub max_connections: usize,
    /// Longest a request may take to arrive whole.
    pub body_timeout: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_body_bytes: 16 << 20,
            max_spans: 1_000_000,
            max_connections: 64,
            body_timeout: Duration::from_secs(10),
        }
    }
}

/// What the receiver has seen since it started.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// HTTP requests answered.
    pub requests: u64,
    /// Export requests decoded.
    pub accepted: u64,
    /// Refused: body past the limit (413).
    pub too_large: u64,
    /// Refused: body that is not an export request, or arrived too slowly (400, 408).
    pub malformed: u64,
    /// Refused: another method, media type or content encoding (405, 415).
    pub unsupported: u64,
    /// Refused: a path other than `/v1/traces` (404; an exporter given the base URL).
    pub wrong_path: u64,
    /// Connections that opened with the HTTP/2 preface (an exporter left on gRPC), closed.
    pub grpc_connections: u64,
    /// Spans decoded.
    pub spans: u64,
    /// Spans kept.
    pub kept: u64,
    /// Spans the caller turned away (not the kind it matches).
    pub ignored: u64,
    /// Spans dropped: [`Limits::max_spans`] were already held.
    pub dropped: u64,
}

/// The counters, shared with the serving thread.
#[derive(Default)]
struct Counters {
    requests: AtomicU64,
    accepted: AtomicU64,
    too_large: AtomicU64,
    malformed: AtomicU64,
    unsupported: AtomicU64,
    wrong_path: AtomicU64,
    grpc_connections: AtomicU64,
    spans: AtomicU64,
    kept: AtomicU64,
    ignored: AtomicU64,
    dropped: AtomicU64,
}

impl Counters {
    fn snapshot(&self) -> Counts {
        let get = |c: &AtomicU64| c.load(Ordering::Relaxed);
        Counts {
            requests: get(&self.requests),
            accepted: get(&self.accepted),
            too_large: get(&self.too_large),
            malformed: get(&self.malformed),
            unsupported: get(&self.unsupported),
            wrong_path: get(&self.wrong_path),
            grpc_connections: get(&self.grpc_connections),
            spans: get(&self.spans),
            kept: get(&self.kept),
            ignored: get(&self.ignored),
            dropped: get(&self.dropped),
        }
    }
}

/// How many bodies of at most `max_body_bytes` may be read at once within [`BODY_BUDGET`].
fn readers(max_body_bytes: usize) -> usize {
    (BODY_BUDGET / max_body_bytes.max(1)).clamp(1, MAX_READERS)
}

fn bump(c: &AtomicU64, n: u64) {
    c.fetch_add(n, Ordering::Relaxed);
}

/// What the serving thread shares with the handle.
struct Shared<T> {
    limits: Limits,
    keep: Keep<T>,
    readers: tokio::sync::Semaphore,
    held: Mutex<Vec<T>>,
    counters: Counters,
}

impl<T> Shared<T> {
    /// Keeps what `keep` makes of `spans`, up to the limit; returns the spans dropped.
    fn hold(&self, spans: Vec<Span>) -> u64 {
        let n = spans.len() as u64;
        let kept: Vec<T> = spans.into_iter().filter_map(|s| (self.keep)(s)).collect();
        bump(&self.counters.spans, n);
        bump(&self.counters.ignored, n - kept.len() as u64);
        let mut held = self.held.lock().unwrap_or_else(|p| p.into_inner());
        let room = self.limits.max_spans.saturating_sub(held.len());
        let dropped = kept.len().saturating_sub(room) as u64;
        let taken = kept.len() - dropped as usize;
        held.extend(kept.into_iter().take(taken));
        drop(held);
        bump(&self.counters.kept, taken as u64);
        bump(&self.counters.dropped, dropped);
        dropped
    }
}

/// A running receiver; dropping it stops it.
pub struct Receiver<T> {
    addr: SocketAddr,
    shared: Arc<Shared<T>>,
    stop: CancellationToken,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl<T: Send + 'static> Receiver<T> {
    /// Binds `addr` (port 0 picks one) and serves on a thread of its own; spans are turned
    /// into what the caller keeps by `keep`.
    pub fn start(addr: SocketAddr, limits: Limits, keep: Keep<T>) -> std::io::Result<Self> {
        let listener = std::net::TcpListener::bind(addr)?;
        listener.set_nonblocking(true)?;
        let addr = listener.local_addr()?;
        let shared = Arc::new(Shared {
            limits,
            keep,
            readers: tokio::sync::Semaphore::new(readers(limits.max_body_bytes)),
            held: Mutex::new(Vec::new()),
            counters: Counters::default(),
        });
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        let stop = CancellationToken::new();
        let thread = {
            let (shared, stop) = (Arc::clone(&shared), stop.clone());
            std::thread::Builder::new()
                .name("plateau-otlp".into())
                .spawn(move || {
                    runtime.block_on(async move {
                        match tokio::net::TcpListener::from_std(listener) {
                            Ok(listener) => serve::accept(listener, shared, stop).await,
                            Err(e) => tracing::warn!("OTLP receiver: {e}"),
                        }
                    });
                })?
        };
        Ok(Receiver {
            addr,
            shared,
            stop,
            thread: Some(thread),
        })
    }
}

impl<T> Receiver<T> {
    /// The address it listens on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Everything kept since the last call.
    pub fn take(&self) -> Vec<T> {
        let mut held = self.shared.held.lock().unwrap_or_else(|p| p.into_inner());
        std::mem::take(&mut *held)
    }

    /// The counts so far.
    pub fn counts(&self) -> Counts {
        self.shared.counters.snapshot()
    }

    /// Stops serving and waits for the thread to end.
    pub fn shutdown(mut self) {
        self.stop.cancel();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl<T> Drop for Receiver<T> {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}
