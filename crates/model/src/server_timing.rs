//! The server's own timing of each request, beside the client's: per record a
//! [`ServerTiming`](crate::sample::server::ServerTiming) (prefill, decode and the server's
//! token counts) from llama.cpp's `timings` in its final response; per cell their distributions, how many measured
//! requests carried one, and **the gap**, the client's TTFT minus the server's prefill
//! ([`ServerTimingSummary`], `summary.json`'s `server_timing`). Records without a server
//! timing are counted, never guessed. The client's numbers are untouched.

mod summary;

pub use summary::ServerTimingSummary;
