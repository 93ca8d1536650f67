//! The run's receiver of the servers' own spans (`server_traces`) and the join of its spans
//! to each cell's records. The receiver ([`plateau_otlp::Receiver`]) runs for the whole run
//! on a thread of its own; of each span it keeps only a [`Part`]: a request's timing span
//! (one carrying a TTFT or an E2E), or a span whose duration is an engine's queue time
//! (SGLang's `prefill_waiting`). After each cell, [`Spans::join`] waits for the spans of the
//! cell's requests (up to `wait_seconds`, less once every successful request has one) and
//! puts each request's [`ServerTiming`](plateau_model::sample::server::ServerTiming) on its
//! record by trace id, or by the engine's request id (`gen_ai.request.id`, which vLLM makes
//! from plateau's `X-Request-Id`) when the engine did not carry the `traceparent`; what
//! matches nothing is counted.

mod join;

use std::collections::HashSet;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use plateau_model::config::ServerTracesConfig;
use plateau_model::server_timing::ReceiverCounts;
use plateau_model::server_timing::engines::{self, Queue, REQUEST_ID, SpanTable};
use plateau_otlp::{Counts, Limits, Receiver, Span, TraceId};

pub use join::combine;

/// What the receiver keeps of one span.
#[derive(Clone, Debug, PartialEq)]
pub struct Part {
    /// The trace it belongs to.
    pub trace_id: TraceId,
    /// What it says.
    pub kind: PartKind,
}

/// A request's timing span or an engine's queue span.
#[derive(Clone, Debug, PartialEq)]
pub enum PartKind {
    /// The request's span: its timing attributes.
    Timing(Box<Attributes>),
    /// A queue span (named as an engine's table says): its duration, ns.
    Queue(u64),
}

/// The timing attributes of a request's span, as sent (seconds and token counts), read by
/// the names of [`engines`]' tables.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Attributes {
    /// The table the span itself names (by its name), if any.
    pub detected: Option<&'static SpanTable>,
    /// The engine's request id (`gen_ai.request.id`).
    pub request_id: Option<String>,
    /// Queue, s (vLLM).
    pub queue_s: Option<f64>,
    /// TTFT, s.
    pub ttft_s: Option<f64>,
    /// Prefill, s.
    pub prefill_s: Option<f64>,
    /// Decode, s.
    pub decode_s: Option<f64>,
    /// E2E, s.
    pub e2e_s: Option<f64>,
    /// Prompt tokens.
    pub prompt_tokens: Option<f64>,
    /// Output tokens.
    pub output_tokens: Option<f64>,
    /// Cached prompt tokens.
    pub cached_tokens: Option<f64>,
}

const TABLES: [&SpanTable; 2] = [&engines::VLLM, &engines::SGLANG];

/// The part `span` is, if any: a timing span when any table's TTFT or E2E attribute is on
/// it, a queue span when its name is any table's queue span.
pub fn part(span: Span) -> Option<Part> {
    if TABLES
        .iter()
        .any(|t| matches!(t.queue, Queue::Span(name) if name == span.name))
    {
        return Some(Part {
            trace_id: span.trace_id,
            kind: PartKind::Queue(span.duration_ns()),
        });
    }
    if !span
        .attributes
        .iter()
        .any(|(k, _)| TABLES.iter().any(|t| t.is_timing_attribute(k)))
    {
        return None;
    }
    let mut a = Attributes {
        detected: engines::detect(&span.name, span.attr("rid").is_some()),
        request_id: match span.attr(REQUEST_ID) {
            Some(plateau_otlp::Value::Str(s)) => Some(s.clone()),
            _ => None,
        },
        ..Attributes::default()
    };
    for (key, value) in &span.attributes {
        if let Some(v) = value.as_f64() {
            read_attribute(&mut a, key, v);
        }
    }
    Some(Part {
        trace_id: span.trace_id,
        kind: PartKind::Timing(Box::new(a)),
    })
}

/// Puts `v` in the slot any table names `key` for.
fn read_attribute(a: &mut Attributes, key: &str, v: f64) {
    for t in TABLES {
        let slot = if matches!(t.queue, Queue::Attribute(q) if q == key) {
            &mut a.queue_s
        } else if key == t.ttft {
            &mut a.ttft_s
        } else if key == t.prefill {
            &mut a.prefill_s
        } else if key == t.decode {
            &mut a.decode_s
        } else if key == t.e2e {
            &mut a.e2e_s
        } else if key == t.prompt_tokens {
            &mut a.prompt_tokens
        } else if key == t.output_tokens {
            &mut a.output_tokens
        } else if t.cached_tokens == Some(key) {
            &mut a.cached_tokens
        } else {
            continue;
        };
        *slot = Some(v);
    }
}

/// Errors starting the receiver.
#[derive(Debug, thiserror::Error)]
pub enum SpansError {
    /// `server_traces.listen` is not `host:port`.
    #[error("server_traces.listen `{0}`: expected host:port with an IP address (127.0.0.1:4318)")]
    Listen(String),
    /// The address could not be bound.
    #[error("server_traces.listen {addr}: {source}")]
    Bind {
        /// The address.
        addr: SocketAddr,
        /// Why.
        source: std::io::Error,
    },
}

/// The run's receiver and what the joins have seen.
pub struct Spans {
    receiver: Receiver<Part>,
    wait: Duration,
    /// Parts received but not yet joined (those of requests not yet ended).
    held: Vec<Part>,
    /// The receiver's counts at the end of the last join.
    counted: Counts,
    /// Trace ids of every earlier cell's records: their late spans are not another
    /// client's.
    earlier: HashSet<TraceId>,
}

impl Spans {
    /// Starts the receiver `config` describes.
    pub fn start(config: &ServerTracesConfig) -> Result<Spans, SpansError> {
        let listen: SocketAddr = config
            .listen
            .parse()
            .map_err(|_| SpansError::Listen(config.listen.clone()))?;
        let limits = Limits {
            max_body_bytes: config.max_body_bytes,
            max_spans: config.max_spans,
            ..Limits::default()
        };
        let receiver =
            Receiver::start(listen, limits, Arc::new(part)).map_err(|source| SpansError::Bind {
                addr: listen,
                source,
            })?;
        Ok(Spans {
            receiver,
            wait: Duration::from_secs_f64(config.wait_seconds.clamp(0.0, 3600.0)),
            held: Vec::new(),
            counted: Counts::default(),
            earlier: HashSet::new(),
        })
    }

    /// Where engines send their spans.
    pub fn addr(&self) -> SocketAddr {
        self.receiver.addr()
    }

    /// The URL an exporter posts to.
    pub fn url(&self) -> String {
        format!("http://{}{}", self.addr(), plateau_otlp::TRACES_PATH)
    }

    /// The receiver's counts since the last join, and remembers these as joined.
    fn receiver_counts(&mut self) -> ReceiverCounts {
        let now = self.receiver.counts();
        let before = std::mem::replace(&mut self.counted, now);
        ReceiverCounts {
            requests: now.requests - before.requests,
            too_large: now.too_large - before.too_large,
            malformed: now.malformed - before.malformed,
            unsupported: now.unsupported - before.unsupported,
            wrong_path: now.wrong_path - before.wrong_path,
            grpc_connections: now.grpc_connections - before.grpc_connections,
            dropped_spans: now.dropped - before.dropped,
        }
    }

    /// Stops the receiver.
    pub fn shutdown(self) {
        self.receiver.shutdown();
    }
}
