//! plateau-sim: a simulated OpenAI-compatible inference server, so plateau runs end to end
//! without a GPU and can be calibrated against exactly known timings.
//!
//! [`SimConfig`] (JSON, or a preset from [`SimConfig::from_profile`]) configures a
//! [`Server`], which serves vLLM's wire format over HTTP/1.1 on a tokio runtime:
//!
//! - `routes` answers `/v1/chat/completions`, `/v1/completions`, `/v1/models`, `/health`
//!   and `/metrics`; `completion` decodes a request (`openai`), counts its prompt tokens with
//!   cl100k_base (`prompt`), draws its output length and its fault (`faults`) from a seeded
//!   per-request RNG, and picks a token `source`:
//!   - the **fixed** profile: a per-request clock, token `k` due at
//!     `arrival + ttft + (k - 1) * itl`, unlimited capacity;
//!   - the **realistic** profile: the `engine` task, which runs a continuous-batching
//!     `scheduler` (FIFO admission up to `max_num_seqs`, chunked prefill, a `prefix_cache`)
//!     step by step and sends each sequence its tokens.
//! - `body` turns the source into SSE frames, formatted by `sse` with words from `vocab`
//!   (each one cl100k token), inside hyper's own connection task; a dropped connection drops
//!   the body and with it the request's place in the batch.
//! - `metrics` keeps the counters `/metrics` exposes under vLLM's names; `otlp` (off by
//!   default) exports one OpenTelemetry span per request under vLLM's attribute names,
//!   in the trace of the request's `traceparent`.
//! - [`WireConfig`] (`SimConfig::wire`) makes the server misbehave like real ones, on
//!   switches: connections closed after each response, several events per network write, the
//!   whole stream in one write, a slow first token then a burst, missing or wrong `usage`,
//!   tokens without text, tool-call and reasoning deltas. `wire::Grouping` decides which
//!   chunks `body` writes together, `sse::Shape` what each token looks like, and `server`
//!   closes connections. Its docs tabulate the exact wire timing of each switch and the true
//!   numbers a client should recover.
//!
//! Randomness is seeded by `SimConfig::seed`: request `i` (in arrival order) draws from
//! ChaCha8 stream `i`, the engine's step noise from its own stream.

mod body;
mod completion;
mod config;
mod engine;
mod error;
mod faults;
mod metrics;
mod names;
mod openai;
mod otlp;
mod prefix_cache;
mod prompt;
mod reply;
mod routes;
mod scheduler;
mod server;
mod source;
mod sse;
mod state;
mod tokenize;
mod vocab;
mod wire;

pub use config::{EngineConfig, FaultConfig, FixedConfig, PROFILE_NAMES, Profile, SimConfig};
pub use error::SimError;
pub use otlp::OtlpConfig;
pub use server::Server;
pub use wire::{UsageMode, WireConfig};

/// Unix seconds now (labels `created`; never used to measure time).
fn unix_now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

#[cfg(test)]
mod tidy {
    /// Every source file opens with a `//!` line saying what it owns.
    #[test]
    fn every_file_says_what_it_owns() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut dirs = vec![root.join("src"), root.join("tests"), root.join("examples")];
        let mut checked = 0;
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(&dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    dirs.push(path);
                } else if path.extension().is_some_and(|e| e == "rs") {
                    let text = std::fs::read_to_string(&path).unwrap();
                    assert!(
                        text.starts_with("//! "),
                        "{} lacks a //! line",
                        path.display()
                    );
                    checked += 1;
                }
            }
        }
        assert!(checked > 20, "{checked}");
    }
}
