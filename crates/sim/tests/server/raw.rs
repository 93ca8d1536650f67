//! A one-connection HTTP/1.1 client (hyper) over a TCP stream that records every network read
//! with its instant, so tests see how the server's bytes were grouped into writes and when the
//! server closed the connection.

use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use http::{HeaderMap, Request};
use http_body_util::{BodyExt as _, Full};
use hyper_util::rt::TokioIo;
use serde_json::Value;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tokio::time::Instant;

/// One network read: its instant and its bytes (empty: the server closed the connection).
pub type Read = (Instant, Vec<u8>);

/// A TCP stream that logs its reads.
struct Logged {
    inner: TcpStream,
    reads: Arc<Mutex<Vec<Read>>>,
}

impl AsyncRead for Logged {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let before = buf.filled().len();
        let poll = Pin::new(&mut this.inner).poll_read(cx, buf);
        if let Poll::Ready(Ok(())) = poll {
            let read = (Instant::now(), buf.filled()[before..].to_vec());
            this.reads.lock().unwrap().push(read);
        }
        poll
    }
}

impl AsyncWrite for Logged {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().inner).poll_write(cx, buf)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_shutdown(cx)
    }
}

/// One request on a fresh connection, as seen on the wire.
pub struct Exchange {
    pub sent: Instant,
    pub status: u16,
    pub headers: HeaderMap,
    /// The decoded body.
    pub body: Bytes,
    /// Every read of the connection, head and chunk framing included.
    pub reads: Vec<Read>,
    /// Whether the server closed the connection within `linger` after the response.
    pub closed_by_server: bool,
}

/// POSTs `body` to `path` on a new connection, reads the whole response, then waits up to
/// `linger` for the server to close the connection (the client keeps it open).
pub async fn exchange(addr: SocketAddr, path: &str, body: &Value, linger: Duration) -> Exchange {
    let reads = Arc::new(Mutex::new(Vec::new()));
    let stream = Logged {
        inner: TcpStream::connect(addr).await.unwrap(),
        reads: Arc::clone(&reads),
    };
    let (mut sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .unwrap();
    let mut conn = tokio::spawn(conn);
    let req = Request::post(path)
        .header("host", "sim")
        .header("content-type", "application/json")
        .body(Full::new(Bytes::from(body.to_string())))
        .unwrap();
    let sent = Instant::now();
    let response = tokio::time::timeout(Duration::from_secs(10), async {
        let res = sender.send_request(req).await.unwrap();
        let (parts, body) = res.into_parts();
        (parts, body.collect().await.unwrap().to_bytes())
    })
    .await
    .expect("response within 10 s");
    let (parts, body) = response;
    // `sender` stays alive: only the server can end the connection now.
    let closed_by_server = match tokio::time::timeout(linger, &mut conn).await {
        Ok(joined) => {
            joined.unwrap().unwrap();
            true
        }
        Err(_) => {
            conn.abort();
            false
        }
    };
    drop(sender);
    let reads = reads.lock().unwrap().clone();
    Exchange {
        sent,
        status: parts.status.as_u16(),
        headers: parts.headers,
        body,
        reads,
        closed_by_server,
    }
}

/// Whether an SSE chunk carries a token: a chat delta with content, reasoning or a tool call
/// (not the role chunk), or a completion's text before the finish chunk.
pub fn carries_token(chunk: &Value) -> bool {
    let choice = &chunk["choices"][0];
    let delta = &choice["delta"];
    if delta.is_object() {
        delta.get("role").is_none()
            && ["content", "reasoning_content", "tool_calls"]
                .iter()
                .any(|k| delta.get(k).is_some())
    } else {
        choice["text"].is_string() && choice["finish_reason"].is_null()
    }
}

/// The `data:` payloads in `bytes` (chunk-size lines and comments skipped).
pub fn data_lines(bytes: &[u8]) -> Vec<String> {
    String::from_utf8_lossy(bytes)
        .lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .map(str::to_owned)
        .collect()
}

impl Exchange {
    /// The decoded body's SSE payloads, `[DONE]` included.
    pub fn events(&self) -> Vec<String> {
        data_lines(&self.body)
    }

    /// The decoded body's JSON chunks.
    pub fn chunks(&self) -> Vec<Value> {
        self.events()
            .iter()
            .filter(|e| *e != "[DONE]")
            .map(|e| serde_json::from_str(e).unwrap())
            .collect()
    }

    /// The chunks that carry tokens, in order.
    pub fn token_chunks(&self) -> Vec<Value> {
        self.chunks().into_iter().filter(carries_token).collect()
    }

    /// For each read carrying SSE events: ms since the request was sent, the tokens-carrying
    /// events in it, and all its events (`[DONE]` included).
    pub fn event_reads(&self) -> Vec<(f64, usize, usize)> {
        self.reads
            .iter()
            .filter_map(|(at, bytes)| {
                let events = data_lines(bytes);
                let tokens = events
                    .iter()
                    .filter(|e| serde_json::from_str::<Value>(e).is_ok_and(|v| carries_token(&v)))
                    .count();
                let ms = at.duration_since(self.sent).as_secs_f64() * 1e3;
                (!events.is_empty()).then_some((ms, tokens, events.len()))
            })
            .collect()
    }

    /// Every byte the server sent, framing included.
    pub fn raw(&self) -> Vec<u8> {
        self.reads.iter().flat_map(|(_, b)| b.clone()).collect()
    }
}

/// Asserts each `(got, want)` time in ms lies in `[want - 2, want + slack]`: a write is never
/// early (the clock fires at most 0.5 ms ahead) but may be late on a loaded 2-core machine.
pub fn assert_times(got: &[f64], want: &[f64], slack: f64) {
    assert_eq!(got.len(), want.len(), "{got:?} vs {want:?}");
    for (g, w) in got.iter().zip(want) {
        assert!(
            (w - 2.0..=w + slack).contains(g),
            "read at {g:.1} ms, want {w} ms (+{slack}): {got:?}"
        );
    }
}
