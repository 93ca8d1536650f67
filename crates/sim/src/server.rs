//! `Server`: the listening socket, the accept loop, HTTP/1.1 connections, start and shutdown.
//!
//! With `wire.close_after_response`, each response body tells its connection when hyper has
//! taken its last frame (after the head was encoded, so the head still says keep-alive); the
//! connection then shuts down gracefully: hyper flushes the rest, chunked terminator included,
//! before the FIN.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::AtomicU64;
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use hyper::body::{Body, Frame, SizeHint};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Notify;
use tokio::task::{JoinHandle, JoinSet};
use tokio_util::sync::{CancellationToken, DropGuard};

use crate::body::{Aborted, SimBody};
use crate::config::{Profile, SimConfig};
use crate::metrics::Metrics;
use crate::routes::route;
use crate::state::State;
use crate::{SimError, engine, prompt};

/// A running simulated server. Dropping it stops it too, without waiting.
#[derive(Debug)]
pub struct Server {
    addr: SocketAddr,
    cancel: CancellationToken,
    accept: JoinHandle<()>,
    engine: Option<JoinHandle<()>>,
    _stop_on_drop: DropGuard,
}

impl Server {
    /// Validates `config`, loads the tokenizer, binds `addr` (port 0 picks a free port) and
    /// spawns the accept loop (and the engine, for the realistic profile) on the current
    /// tokio runtime. Returns as soon as the socket listens.
    pub async fn start(addr: SocketAddr, config: SimConfig) -> Result<Server, SimError> {
        config.validate()?;
        // Parse the BPE ranks now, off the runtime, so no request pays for it.
        tokio::task::spawn_blocking(|| {
            prompt::bpe();
        })
        .await
        .map_err(|e| SimError::Tokenizer(e.to_string()))?;
        let listener = TcpListener::bind(addr)
            .await
            .map_err(|source| SimError::Bind { addr, source })?;
        let local = listener
            .local_addr()
            .map_err(|source| SimError::Bind { addr, source })?;
        let cancel = CancellationToken::new();
        let (metrics, engine, engine_task) = match config.profile {
            Profile::Realistic => {
                let metrics = Arc::new(Metrics::new(u64::from(config.engine.cache_blocks)));
                let (handle, task) = engine::spawn(
                    &config.engine,
                    config.seed,
                    Arc::clone(&metrics),
                    cancel.clone(),
                );
                (metrics, Some(handle), Some(task))
            }
            Profile::Fixed => (Arc::new(Metrics::new(0)), None, None),
        };
        let exporter = config
            .otlp
            .as_ref()
            .map(|o| crate::otlp::Exporter::spawn(o, cancel.clone()))
            .transpose()?;
        let state = Arc::new(State {
            config,
            metrics,
            engine,
            next_request: AtomicU64::new(0),
            exporter,
        });
        let accept = tokio::spawn(accept_loop(listener, state, cancel.clone()));
        tracing::debug!(%local, "sim server listening");
        Ok(Server {
            addr: local,
            _stop_on_drop: cancel.clone().drop_guard(),
            cancel,
            accept,
            engine: engine_task,
        })
    }

    /// The address the server listens on (with the real port when started on port 0).
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Stops accepting, closes open connections, ends the engine task; returns when done.
    pub async fn shutdown(self) {
        self.cancel.cancel();
        let _ = self.accept.await;
        if let Some(engine) = self.engine {
            let _ = engine.await;
        }
    }
}

async fn accept_loop(listener: TcpListener, state: Arc<State>, cancel: CancellationToken) {
    let mut connections = JoinSet::new();
    loop {
        tokio::select! {
            () = cancel.cancelled() => break,
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => {
                    connections.spawn(serve(stream, Arc::clone(&state)));
                }
                Err(e) => {
                    // Out of file descriptors and the like: back off instead of spinning.
                    tracing::warn!(error = %e, "sim server: accept failed");
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
            },
            Some(_) = connections.join_next(), if !connections.is_empty() => {}
        }
    }
    drop(listener);
    connections.shutdown().await;
}

async fn serve(stream: TcpStream, state: Arc<State>) {
    if let Err(e) = stream.set_nodelay(true) {
        tracing::debug!(error = %e, "sim server: TCP_NODELAY not set");
    }
    let ended = state
        .config
        .wire
        .close_after_response
        .then(|| Arc::new(Notify::new()));
    let service = {
        let ended = ended.clone();
        service_fn(move |req| {
            let (state, ended) = (Arc::clone(&state), ended.clone());
            async move {
                let response = route(state, req).await?;
                Ok::<_, Infallible>(response.map(|body| Ending { body, ended }))
            }
        })
    };
    let conn = http1::Builder::new()
        .keep_alive(true)
        .timer(TokioTimer::new())
        .header_read_timeout(None)
        .serve_connection(TokioIo::new(stream), service);
    tokio::pin!(conn);
    let result = match ended {
        Some(ended) => tokio::select! {
            result = conn.as_mut() => result,
            () = ended.notified() => {
                conn.as_mut().graceful_shutdown();
                conn.await
            }
        },
        None => conn.await,
    };
    if let Err(e) = result {
        tracing::debug!(error = %e, "sim server: connection ended");
    }
}

/// A response body that, once hyper has its last frame, notifies `ended` (when set).
#[derive(Debug)]
struct Ending {
    body: SimBody,
    ended: Option<Arc<Notify>>,
}

impl Ending {
    fn notify(&self) {
        if let Some(ended) = &self.ended {
            ended.notify_one();
        }
    }
}

impl Body for Ending {
    type Data = Bytes;
    type Error = Aborted;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Aborted>>> {
        let this = self.get_mut();
        let frame = Pin::new(&mut this.body).poll_frame(cx);
        if matches!(frame, Poll::Ready(None)) || this.body.is_end_stream() {
            this.notify();
        }
        frame
    }

    fn is_end_stream(&self) -> bool {
        let end = self.body.is_end_stream();
        if end {
            self.notify();
        }
        end
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}
