//! The server's own timing of each request, beside the client's: per record a
//! [`ServerTiming`](crate::sample::server::ServerTiming) (queue, TTFT, prefill, decode, E2E
//! and the server's token counts), from the span the engine exported for the request
//! (joined by the trace id plateau sent in its `traceparent`) or from llama.cpp's `timings`
//! in its final response; per cell their distributions, the match rate and **the gap**,
//! the client's TTFT minus the server's TTFT (spans) or prefill (llama.cpp)
//! ([`ServerTimingSummary`], `summary.json`'s `server_timing`). [`engines`] is the one
//! table of the attribute names each engine's spans carry, with the source version each
//! was read from. Records without a server timing and spans without a record are counted,
//! never guessed. The client's numbers are untouched.

mod counts;
pub mod engines;
mod summary;

pub use counts::{ReceiverCounts, SpanCounts, SpanJoin, UnmatchedReasons};
pub use summary::{GapBasis, ServerTimingSummary, client_ttft_ms, gap_us, server_basis_ms};
