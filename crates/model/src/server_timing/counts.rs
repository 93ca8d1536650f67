//! What a cell's span join and the span receiver saw beside the records: the counts
//! `summary.server_timing` keeps when a receiver ran (`server_traces`), and the join's
//! report the summary is measured with ([`SpanJoin`]).

use std::collections::HashSet;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// What the span join saw of one cell's spans.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SpanCounts {
    /// Request spans that matched a record of the cell.
    pub kept: u64,
    /// Request spans that matched no record of the cell (another client's requests, a
    /// trace id plateau did not send).
    pub unmatched: u64,
    /// Request spans of an earlier cell's requests, arrived after its join.
    pub late: u64,
    /// Request spans whose trace another request span already had (the first is used).
    pub duplicate: u64,
    /// Records whose trace id another record carried too (a user `traceparent` that does
    /// not change): left unmatched rather than guessed.
    pub ambiguous_records: u64,
}

/// What the receiver answered while the cell ran (its counts since the previous join).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ReceiverCounts {
    /// HTTP requests answered.
    pub requests: u64,
    /// Refused: body past `server_traces.max_body_bytes` (413).
    pub too_large: u64,
    /// Refused: not an export request, or too slow to arrive (400, 408).
    pub malformed: u64,
    /// Refused: another method, media type or content encoding (405, 415).
    pub unsupported: u64,
    /// Refused: another path than `/v1/traces` (404): an exporter given the base URL.
    pub wrong_path: u64,
    /// Connections that opened with HTTP/2 (an exporter left on gRPC), closed.
    pub grpc_connections: u64,
    /// Spans dropped because `server_traces.max_spans` were held.
    pub dropped_spans: u64,
}

/// Why measured successful requests have no server timing.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct UnmatchedReasons {
    /// The record has no trace id (a user header plateau could not read).
    pub no_trace_id: u64,
    /// No request span of its trace arrived in time (or its trace was ambiguous).
    pub no_span: u64,
}

/// A cell's join, as the summary is measured with it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SpanJoin {
    /// The table the spans were read with (`vllm`, `sglang`); `None` when nothing told.
    pub table: Option<&'static str>,
    /// What the join saw.
    pub spans: SpanCounts,
    /// What the receiver answered.
    pub receiver: ReceiverCounts,
    /// `seq` of the records matched by their span's `gen_ai.request.id` rather than its
    /// trace id.
    pub by_request_id: HashSet<u64>,
}
