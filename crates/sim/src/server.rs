//! `Server`: the listening socket, the accept loop, HTTP/1.1 connections, start and shutdown.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::AtomicU64;
use std::time::Duration;

use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::{JoinHandle, JoinSet};
use tokio_util::sync::{CancellationToken, DropGuard};

use crate::config::{Profile, SimConfig};
use crate::metrics::Metrics;
use crate::routes::{State, route};
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
        let state = Arc::new(State {
            config,
            metrics,
            engine,
            next_request: AtomicU64::new(0),
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
    let service = service_fn(move |req| route(Arc::clone(&state), req));
    let result = http1::Builder::new()
        .keep_alive(true)
        .timer(TokioTimer::new())
        .header_read_timeout(None)
        .serve_connection(TokioIo::new(stream), service)
        .await;
    if let Err(e) = result {
        tracing::debug!(error = %e, "sim server: connection ended");
    }
}
