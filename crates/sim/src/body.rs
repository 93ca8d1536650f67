//! Response bodies: whole buffers, and the token stream that turns a `Source` into SSE frames.
//!
//! A stream generates chunks as the source releases their tokens and buffers them until its
//! `Grouping` says to write: each chunk at once by default, `k` at a time, or all but the
//! first at the end. One write is one body frame, which hyper sends in one `writev`.
//!
//! The stream is polled by hyper's connection task itself: no extra task or channel per
//! request. When the client goes, hyper drops the body, which drops the engine's receiver
//! (the sequence leaves the batch) and the running guard.

use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::Ordering::Relaxed;
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use hyper::body::{Body, Frame, SizeHint};
use tokio::time::{Instant, Sleep, sleep_until};

use crate::faults::Fault;
use crate::metrics::{Metrics, RunningGuard};
use crate::otlp::{Exporter, Pending};
use crate::source::{Source, next_chunk_end};
use crate::sse::{KEEPALIVE, Writer};
use crate::wire::Grouping;

/// The body error that makes hyper drop the connection mid-response.
#[derive(Debug, thiserror::Error)]
#[error("simulated connection drop")]
pub(crate) struct Aborted;

/// Every response body the server sends.
#[derive(Debug)]
pub(crate) enum SimBody {
    /// A whole buffer (taken when sent).
    Full(Option<Bytes>),
    /// A token stream.
    Stream(Box<TokenStream>),
    /// Headers, then the connection drops.
    Abort,
}

impl SimBody {
    /// A whole body.
    pub(crate) fn full(bytes: impl Into<Bytes>) -> Self {
        SimBody::Full(Some(bytes.into()))
    }
}

impl Body for SimBody {
    type Data = Bytes;
    type Error = Aborted;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Aborted>>> {
        match self.get_mut() {
            SimBody::Full(bytes) => Poll::Ready(bytes.take().map(|b| Ok(Frame::data(b)))),
            SimBody::Stream(stream) => stream.poll_next(cx),
            SimBody::Abort => Poll::Ready(Some(Err(Aborted))),
        }
    }

    fn is_end_stream(&self) -> bool {
        match self {
            SimBody::Full(bytes) => bytes.is_none(),
            SimBody::Stream(stream) => stream.done,
            SimBody::Abort => false,
        }
    }

    fn size_hint(&self) -> SizeHint {
        match self {
            SimBody::Full(bytes) => {
                SizeHint::with_exact(bytes.as_ref().map_or(0, |b| b.len() as u64))
            }
            _ => SizeHint::default(),
        }
    }
}

/// One streaming response: generated tokens become chunks as the source releases them.
#[derive(Debug)]
pub(crate) struct TokenStream {
    source: Source,
    writer: Writer,
    /// Tokens to generate.
    total: u32,
    /// Whether the output ends on a (simulated) EOS rather than `max_tokens`.
    stopped: bool,
    per_chunk: u32,
    /// Which chunks share a write.
    grouping: Grouping,
    /// Tokens generated (and formatted) so far.
    sent: u32,
    /// Chunks generated so far.
    chunks: u32,
    /// Formatted chunks not yet written.
    pending: Vec<u8>,
    /// Where a disconnect fault that had to write buffered chunks first stands.
    cut: Cut,
    fault: Fault,
    keepalive: Option<(Duration, Pin<Box<Sleep>>)>,
    done: bool,
    metrics: Arc<Metrics>,
    _running: Option<RunningGuard>,
    /// When the stream started, and when its first token was generated (for the TTFT and
    /// TPOT histograms).
    born: Instant,
    first: Option<Instant>,
    /// The request's span, exported when the last token is written.
    span: Option<(Pending, Exporter)>,
}

/// A disconnect fault that had buffered chunks to write before cutting.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Cut {
    /// No cut under way.
    No,
    /// The buffered chunks were just returned; yield once so hyper flushes them.
    Flushing,
    /// Drop the connection.
    Now,
}

/// What a `TokenStream` is made of.
#[derive(Debug)]
pub(crate) struct StreamParts {
    /// Token clock.
    pub source: Source,
    /// Chunk formatter.
    pub writer: Writer,
    /// Tokens to generate.
    pub total: u32,
    /// Ends on EOS (`finish_reason: "stop"`).
    pub stopped: bool,
    /// Tokens per chunk after the first.
    pub per_chunk: u32,
    /// Which chunks share a write.
    pub grouping: Grouping,
    /// Fault to play (`None`, `Disconnect`, `ErrorEvent` or `Stall`).
    pub fault: Fault,
    /// Keep-alive interval while waiting for the first token.
    pub keepalive: Option<Duration>,
    /// Server counters.
    pub metrics: Arc<Metrics>,
    /// Counts the request as running while the stream lives (fixed profile).
    pub running: Option<RunningGuard>,
    /// The request's span and where it goes when the stream completes (`otlp`).
    pub span: Option<(Pending, Exporter)>,
}

impl TokenStream {
    /// A stream starting now.
    pub(crate) fn new(parts: StreamParts) -> Self {
        let keepalive = parts
            .keepalive
            .map(|every| (every, Box::pin(sleep_until(Instant::now() + every))));
        TokenStream {
            source: parts.source,
            writer: parts.writer,
            total: parts.total,
            stopped: parts.stopped,
            per_chunk: parts.per_chunk,
            grouping: parts.grouping,
            sent: 0,
            chunks: 0,
            pending: Vec::new(),
            cut: Cut::No,
            fault: parts.fault,
            keepalive,
            done: false,
            metrics: parts.metrics,
            _running: parts.running,
            born: Instant::now(),
            first: None,
            span: parts.span,
        }
    }

    fn poll_next(&mut self, cx: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, Aborted>>> {
        if self.done {
            return Poll::Ready(None);
        }
        match self.cut {
            Cut::No => {}
            Cut::Flushing => {
                // hyper flushes the last frame when the body is pending; cut on the next poll.
                self.cut = Cut::Now;
                cx.waker().wake_by_ref();
                return Poll::Pending;
            }
            Cut::Now => {
                self.done = true;
                return Poll::Ready(Some(Err(Aborted)));
            }
        }
        loop {
            let target = next_chunk_end(self.sent, self.per_chunk, self.total);
            match self.source.poll_reach(cx, target) {
                Poll::Ready(true) => {
                    if let Some(frame) = self.generate(target) {
                        return Poll::Ready(Some(frame));
                    }
                    // Buffered: wait for the next chunk.
                }
                Poll::Ready(false) => {
                    self.done = true; // the engine stopped: cut the stream
                    return Poll::Ready(Some(Err(Aborted)));
                }
                Poll::Pending => break,
            }
        }
        if self.sent == 0
            && let Some((every, sleep)) = &mut self.keepalive
            && sleep.as_mut().poll(cx).is_ready()
        {
            let next = sleep.deadline() + *every;
            sleep.as_mut().reset(next);
            // Poll once so the new deadline is registered with this waker.
            let _ = sleep.as_mut().poll(cx);
            return Poll::Ready(Some(Ok(Frame::data(Bytes::from_static(KEEPALIVE)))));
        }
        Poll::Pending
    }

    /// The buffered bytes as one frame.
    fn write(&mut self) -> Frame<Bytes> {
        Frame::data(Bytes::from(std::mem::take(&mut self.pending)))
    }

    /// Formats the chunk of tokens up to `target` (or plays the fault that replaces it) and
    /// returns the frame to write now, if any.
    fn generate(&mut self, target: u32) -> Option<Result<Frame<Bytes>, Aborted>> {
        match self.fault {
            Fault::Disconnect { after } if self.sent >= after => {
                if !self.pending.is_empty() {
                    // What was buffered leaves first, then the connection drops.
                    self.cut = Cut::Flushing;
                    return Some(Ok(self.write()));
                }
                self.done = true;
                return Some(Err(Aborted));
            }
            Fault::ErrorEvent { after } if self.sent >= after => {
                self.done = true;
                Writer::error_event(&mut self.pending);
                return Some(Ok(self.write()));
            }
            _ => {}
        }
        let n = target - self.sent;
        if self.sent == 0 {
            self.writer.role_chunk(&mut self.pending);
        }
        let chunk = self.writer.content_chunk(n);
        self.pending.extend_from_slice(&chunk);
        self.sent = target;
        self.chunks += 1;
        let first = *self.first.get_or_insert_with(Instant::now);
        self.metrics
            .generation_tokens
            .fetch_add(u64::from(n), Relaxed);
        let last = self.sent == self.total;
        if last {
            self.writer.finish(&mut self.pending, self.stopped);
            self.done = true;
            self.metrics.record_success(self.stopped);
            let ttft = (first - self.born).as_secs_f64();
            let tpot = (self.total >= 2)
                .then(|| first.elapsed().as_secs_f64() / f64::from(self.total - 1));
            self.metrics.record_timing(ttft, tpot);
            if let Some((p, exporter)) = self.span.take() {
                exporter.send(p.finish(first, Instant::now(), self.total, self.stopped));
            }
        }
        self.grouping
            .flush(self.chunks, last)
            .then(|| Ok(self.write()))
    }
}
