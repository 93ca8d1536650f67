//! Each `wire` switch of delivery, observed on the wire: connection closes, writes per read
//! and their times (the switches of content are in `fields`). Counts are exact; times have
//! tolerances.

use std::net::SocketAddr;
use std::time::Duration;

use plateau_sim::{Server, SimConfig, WireConfig};
use serde_json::{Value, json};

use crate::client::*;
use crate::raw::*;

/// How long a test waits for the server to close a connection it should keep.
pub const LINGER: Duration = Duration::from_millis(300);
/// Lateness allowed for a write on a loaded 2-core machine, in ms.
pub const SLACK: f64 = 20.0;

/// A fixed-timing server with the `wire` switches.
pub async fn start_wired(ttft_ms: f64, itl_ms: f64, wire: WireConfig) -> Server {
    start(SimConfig {
        wire,
        ..fixed(ttft_ms, itl_ms)
    })
    .await
}

/// A chat request for `max_tokens` tokens that asks for usage.
pub fn chat(max_tokens: u32, stream: bool) -> Value {
    json!({"model": "m", "messages": [{"role": "user", "content": "Hello world"}],
        "max_tokens": max_tokens, "stream": stream, "ignore_eos": true,
        "stream_options": {"include_usage": true}})
}

pub fn delta_text(chunk: &Value, key: &str) -> String {
    chunk["choices"][0]["delta"][key]
        .as_str()
        .unwrap_or_else(|| panic!("no {key} in {chunk}"))
        .to_owned()
}

/// A chat exchange on the raw socket, waiting `linger` for a close after it.
pub async fn chat_exchange(addr: SocketAddr, body: &Value, linger: Duration) -> Exchange {
    exchange(addr, "/v1/chat/completions", body, linger).await
}

/// The body of a non-streamed chat answer of `max_tokens` tokens.
pub async fn whole_chat(addr: SocketAddr, max_tokens: u32) -> Value {
    let ex = chat_exchange(addr, &chat(max_tokens, false), Duration::ZERO).await;
    serde_json::from_slice(&ex.body).unwrap()
}

/// The times and token counts of the reads that carry tokens.
pub fn token_reads(ex: &Exchange) -> (Vec<f64>, Vec<usize>) {
    ex.event_reads()
        .into_iter()
        .filter(|&(_, tokens, _)| tokens > 0)
        .map(|(ms, tokens, _)| (ms, tokens))
        .unzip()
}

#[tokio::test]
async fn close_after_response_closes_without_saying_so() {
    let wire = WireConfig {
        close_after_response: true,
        ..WireConfig::default()
    };
    let server = start_wired(5.0, 1.0, wire).await;
    let addr = server.addr();
    for (path, body) in [
        ("/v1/chat/completions", chat(5, true)),
        ("/v1/chat/completions", chat(5, false)),
        ("/v1/completions", json!({"prompt": "x", "max_tokens": 3})),
        ("/v1/models", json!({})),
    ] {
        let ex = exchange(addr, path, &body, Duration::from_secs(5)).await;
        assert_eq!(ex.status, if path == "/v1/models" { 405 } else { 200 });
        assert!(ex.headers.get("connection").is_none(), "{:?}", ex.headers);
        assert!(
            ex.closed_by_server,
            "{path}: the server kept the connection"
        );
        let (_, last) = ex.reads.last().unwrap();
        assert!(last.is_empty(), "the last read is the FIN");
        if body["stream"] == true {
            assert!(ex.raw().ends_with(b"data: [DONE]\n\n\r\n0\r\n\r\n"));
            assert_eq!(ex.token_chunks().len(), 5);
        }
    }
    server.shutdown().await;

    // The polite default keeps the connection open.
    let server = start(fixed(5.0, 1.0)).await;
    let ex = chat_exchange(server.addr(), &chat(5, true), LINGER).await;
    assert_eq!(ex.status, 200);
    assert!(!ex.closed_by_server);
    assert!(ex.reads.iter().all(|(_, b)| !b.is_empty()));
    server.shutdown().await;
}

#[tokio::test]
async fn events_per_write_groups_three_tokens_per_read() {
    let wire = WireConfig {
        events_per_write: 3,
        ..WireConfig::default()
    };
    let server = start_wired(50.0, 20.0, wire).await;
    let ex = chat_exchange(server.addr(), &chat(10, true), LINGER).await;
    let reads = ex.event_reads();
    // Tokens 3, 6, 9 and 10 are due at 90, 150, 210, 230 ms; the role chunk rides with the
    // first write, the finish chunk, usage and [DONE] with the last.
    let (times, tokens) = token_reads(&ex);
    assert_eq!(tokens, [3, 3, 3, 1], "{reads:?}");
    let events: Vec<usize> = reads.iter().map(|r| r.2).collect();
    assert_eq!(events, [4, 3, 3, 4], "{reads:?}");
    assert_times(&times, &[90.0, 150.0, 210.0, 230.0], SLACK);
    let gaps: Vec<f64> = times.windows(2).map(|w| w[1] - w[0]).collect();
    for (gap, want) in gaps.iter().zip([60.0, 60.0, 20.0]) {
        assert!((gap - want).abs() <= SLACK, "{gaps:?}");
    }
    assert_eq!(
        ex.chunks().last().unwrap()["usage"]["completion_tokens"],
        10
    );
    server.shutdown().await;
}

#[tokio::test]
async fn whole_stream_at_end_is_one_read() {
    let wire = WireConfig {
        whole_stream_at_end: true,
        ..WireConfig::default()
    };
    let server = start_wired(50.0, 20.0, wire).await;
    let ex = chat_exchange(server.addr(), &chat(10, true), LINGER).await;
    let reads = ex.event_reads();
    // role, 10 tokens, finish, usage, [DONE] at once, when token 10 is due (230 ms); the
    // head came before, on its own.
    assert_eq!(reads.len(), 1, "{reads:?}");
    assert_eq!((reads[0].1, reads[0].2), (10, 14));
    assert_times(&[reads[0].0], &[230.0], SLACK);
    let head = &ex.reads[0];
    assert!(head.1.starts_with(b"HTTP/1.1 200 OK"));
    assert!(head.0.duration_since(ex.sent) < Duration::from_millis(40));
    assert_eq!(ex.events().last().unwrap(), "[DONE]");
    server.shutdown().await;
}

#[tokio::test]
async fn burst_after_first_sends_one_token_then_the_rest_at_once() {
    let wire = WireConfig {
        burst_after_first: true,
        ..WireConfig::default()
    };
    let server = start_wired(50.0, 20.0, wire).await;
    let ex = chat_exchange(server.addr(), &chat(10, true), LINGER).await;
    let (times, tokens) = token_reads(&ex);
    assert_eq!(tokens, [1, 9], "{:?}", ex.event_reads());
    assert_times(&times, &[50.0, 230.0], SLACK);
    server.shutdown().await;
}
