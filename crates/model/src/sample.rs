//! One request as measured: raw instants (microseconds since the cell's start), content
//! chunk arrivals with their token counts, token counts with their source, and the outcome.
//! A failed request is a sample too; metrics read samples, never the network.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::phase::Phase;

pub mod server;

/// How a request ended. Failures are data, counted by kind.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Outcome {
    /// The response completed normally with content.
    Ok,
    /// The server answered with a non-2xx status.
    HttpStatus {
        /// The HTTP status code.
        status: u16,
    },
    /// The connection could not be made (refused, DNS, TLS).
    Connect,
    /// No complete response within `request_timeout_seconds`.
    Timeout,
    /// The stream broke mid-way (connection reset, body error, no `[DONE]`).
    Stream,
    /// A body or event could not be decoded as the expected JSON.
    Decode,
    /// The server sent an error event or error object.
    ServerError,
    /// The response completed but carried no content.
    Empty,
    /// Cancelled by plateau, not failed by the server: padding still running when Drain
    /// ended, or any request in flight when the run was stopped (Ctrl-C, SIGTERM, SIGHUP).
    /// Not an error, and not in error rates.
    Cancelled,
    /// A measured request still running when `drain_seconds` ran out.
    DrainTimeout,
    /// Cut short by Ctrl-C, as plateau recorded it before such requests became
    /// [`Outcome::Cancelled`]; still read from older records, and, like it, not an error.
    Interrupted,
}

impl Outcome {
    /// Whether the request completed normally.
    pub fn is_ok(self) -> bool {
        self == Outcome::Ok
    }

    /// Whether the server never took the request up: it was turned away (429, 503) or no
    /// connection could be opened. Rejected requests are not in flight for the achieved
    /// concurrency.
    pub fn is_rejected(self) -> bool {
        matches!(
            self,
            Outcome::HttpStatus { status: 429 | 503 } | Outcome::Connect
        )
    }

    /// Whether this outcome counts as an error (a request plateau cancelled does not).
    pub fn is_error(self) -> bool {
        !matches!(self, Outcome::Ok) && !self.is_cancelled()
    }

    /// Whether plateau cancelled the request (Drain's end, or a stop), so it says nothing
    /// about the server.
    pub fn is_cancelled(self) -> bool {
        matches!(self, Outcome::Cancelled | Outcome::Interrupted)
    }

    /// Stable key for counting errors by kind in JSON and tables: `http_500`, `timeout`, ...
    pub fn key(self) -> String {
        match self {
            Outcome::HttpStatus { status } => format!("http_{status}"),
            other => other.simple_key().to_owned(),
        }
    }

    fn simple_key(self) -> &'static str {
        match self {
            Outcome::Ok => "ok",
            Outcome::HttpStatus { .. } => "http",
            Outcome::Connect => "connect",
            Outcome::Timeout => "timeout",
            Outcome::Stream => "stream",
            Outcome::Decode => "decode",
            Outcome::ServerError => "server_error",
            Outcome::Empty => "empty",
            Outcome::Cancelled => "cancelled",
            Outcome::DrainTimeout => "drain_timeout",
            Outcome::Interrupted => "interrupted",
        }
    }
}

/// Where a token count came from.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum TokenSource {
    /// The server's `usage` object.
    Usage,
    /// The client's tokenizer over the text.
    Tokenizer,
}

/// A content chunk: when its body frame arrived (us since cell start) and how many tokens
/// it carried. Serialized compactly as `[t_us, tokens]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(from = "(u64, u32)", into = "(u64, u32)")]
pub struct Chunk {
    /// Arrival of the body frame that completed this chunk, us since cell start.
    pub t_us: u64,
    /// Output tokens in this chunk.
    pub tokens: u32,
}

impl From<(u64, u32)> for Chunk {
    fn from((t_us, tokens): (u64, u32)) -> Self {
        Chunk { t_us, tokens }
    }
}

impl From<Chunk> for (u64, u32) {
    fn from(c: Chunk) -> Self {
        (c.t_us, c.tokens)
    }
}

/// One request of a cell, as written to `requests.jsonl.gz`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Sample {
    /// Order in which the request was sent within the cell, from 0.
    pub seq: u64,
    /// The slot that sent it, from 0.
    pub slot: u32,
    /// Phase at `t_sent_us`.
    pub phase: Phase,
    /// Just before the request was written, us since cell start.
    pub t_sent_us: u64,
    /// Open loop: when the arrival schedule meant the request to be sent, us since cell
    /// start. An open-loop request's TTFT and E2E run from here (what its user felt),
    /// however late it went out; absent in a closed loop, where the send is the start.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub t_intended_us: Option<u64>,
    /// Open loop with `max_concurrency`: how long the arrival waited client-side for a
    /// place before it could be sent, us (part of `t_sent_us - t_intended_us`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queue_us: Option<u64>,
    /// When the request ended (last byte, error or cancellation), us since cell start.
    pub t_end_us: u64,
    /// Time to open a new connection (TCP and TLS) before `t_sent_us`, us; absent when an
    /// open connection was reused. Never part of TTFT.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub connect_us: Option<u64>,
    /// Times the request was resent because the reused connection it went out on had been
    /// closed by the server before a byte of response came back.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub resends: u32,
    /// Observed chunks in arrival order: the token-bearing events of one socket read are
    /// one chunk carrying all their tokens (events without tokens are not listed).
    pub chunks: Vec<Chunk>,
    /// Token-bearing stream events received (at least one per chunk).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub events: u32,
    /// Chunks whose read carried more than one token-bearing event.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub multi_event_reads: u32,
    /// Events that carried text: a lower bound on the output tokens.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub text_events: u32,
    /// First arrival of answer text or a tool call, us since cell start; recorded only when
    /// reasoning text came before it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub t_first_answer_us: Option<u64>,
    /// Output tokens, when known.
    pub n_out: Option<u32>,
    /// Where `n_out` came from.
    pub n_out_source: Option<TokenSource>,
    /// The client tokenizer's count of the response text, to check the server's `n_out`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub n_out_client: Option<u32>,
    /// Reasoning tokens among the output tokens (the server's breakdown, else the client
    /// tokenizer's count of the reasoning text); absent without reasoning.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub n_reasoning: Option<u32>,
    /// Where per-chunk token counts came from (per-chunk usage, else tokenizer).
    pub chunk_tokens_source: Option<TokenSource>,
    /// Prompt tokens, when known.
    pub n_in: Option<u32>,
    /// Where `n_in` came from.
    pub n_in_source: Option<TokenSource>,
    /// Prompt tokens the server says it reused from its prefix cache
    /// (`usage.prompt_tokens_details.cached_tokens`, else llama.cpp's `timings.cache_n`);
    /// absent when it did not say.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub n_in_cached: Option<u32>,
    /// The workload's target prompt length in tokens of the client tokenizer.
    pub n_in_target: Option<u32>,
    /// The `max_tokens` this request asked for (its own draw when output lengths follow a
    /// distribution); absent in records written before it was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u32>,
    /// How the request ended.
    pub outcome: Outcome,
    /// Error detail (secrets scrubbed), for failed requests.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// How long the slot waited after this request before sending its next one, us: the
    /// server asked for time (429/503, `Retry-After`) or the connection failed. The wait
    /// is slot-time, but not in flight.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backoff_us: Option<u64>,
    /// Turn index within a conversation (multi-turn scenarios), from 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn: Option<u32>,
    /// The session this request is a turn of (session workloads): unique within the cell,
    /// and the value of the endpoint's `session_header`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    /// Prompt tokens of the session's earlier turns (history before this turn's new user
    /// text), client tokenizer: what an ideal prefix cache could reuse.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub n_in_prior: Option<u32>,
    /// The think time the slot waited after this turn before the session's next one, us;
    /// absent when it did not wait (last turn, open loop, no think time).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub think_us: Option<u64>,
    /// This was its session's last turn: the slot started a new session after it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub session_end: bool,
    /// Prompt text, when `store_text` is on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt: Option<String>,
    /// Response text, when `store_text` is on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response: Option<String>,
    /// The W3C trace id the request carried in its `traceparent` header (32 lower-case
    /// hex digits): the key its server's span is joined on. Absent in records written
    /// before plateau sent one, and when a `traceparent` the user configured is not a valid
    /// one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace_id: Option<String>,
    /// The server's own timing of this request (its span, or llama.cpp's `timings`);
    /// absent when the server gave none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server: Option<server::ServerTiming>,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

impl Sample {
    /// When the request's user started waiting, us since cell start: the intended send of
    /// an open-loop arrival, else the send. TTFT and E2E are measured from here, and a
    /// request is measured when this instant is in the window.
    pub fn t_start_us(&self) -> u64 {
        self.t_intended_us.unwrap_or(self.t_sent_us)
    }

    /// First content chunk arrival (`t_first`), us since cell start.
    pub fn t_first_us(&self) -> Option<u64> {
        self.chunks.first().map(|c| c.t_us)
    }

    /// Last content chunk arrival (`t_last`), us since cell start.
    pub fn t_last_us(&self) -> Option<u64> {
        self.chunks.last().map(|c| c.t_us)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outcome_keys_are_stable() {
        assert_eq!(Outcome::HttpStatus { status: 503 }.key(), "http_503");
        assert_eq!(Outcome::DrainTimeout.key(), "drain_timeout");
        assert!(!Outcome::Cancelled.is_error());
        assert!(!Outcome::Interrupted.is_error(), "read from older records");
        assert!(Outcome::Interrupted.is_cancelled() && Outcome::Cancelled.is_cancelled());
    }

    #[test]
    fn sample_round_trips_with_compact_chunks() {
        let s = Sample {
            seq: 3,
            slot: 1,
            n_out_client: Some(3),
            n_in: None,
            n_in_source: None,
            n_in_target: Some(50),
            max_tokens: Some(3),
            outcome: Outcome::HttpStatus { status: 500 },
            error: Some("boom".into()),
            trace_id: Some("0af7651916cd43dd8448eb211c80319c".into()),
            ..crate::metrics::fixtures::sample(10, &[(40, 1), (80, 2)], 90)
        };
        let line = serde_json::to_string(&s).unwrap();
        assert!(line.contains(r#""chunks":[[40,1],[80,2]]"#), "{line}");
        assert!(
            line.contains(r#""outcome":{"kind":"http_status","status":500}"#),
            "{line}"
        );
        assert!(!line.contains("turn"), "{line}");
        let back: Sample = serde_json::from_str(&line).unwrap();
        assert_eq!(back, s);
        assert_eq!(back.t_first_us(), Some(40));
        assert_eq!(back.t_last_us(), Some(80));
    }
}
