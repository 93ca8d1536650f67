//! Each `wire` switch, observed on the wire: connection closes, writes per read and their
//! times, usage, and the fields tokens arrive in. Counts are exact; times have tolerances.

use std::time::Duration;

use plateau_sim::{SimConfig, UsageMode, WireConfig};
use serde_json::{Value, json};

use crate::client::*;
use crate::raw::*;

/// How long a test waits for the server to close a connection it should keep.
const LINGER: Duration = Duration::from_millis(300);
/// Lateness allowed for a write on a loaded 2-core machine, in ms.
const SLACK: f64 = 20.0;

fn with_wire(ttft_ms: f64, itl_ms: f64, wire: WireConfig) -> SimConfig {
    SimConfig {
        wire,
        ..fixed(ttft_ms, itl_ms)
    }
}

fn chat(max_tokens: u32, stream: bool) -> Value {
    json!({"model": "m", "messages": [{"role": "user", "content": "Hello world"}],
        "max_tokens": max_tokens, "stream": stream, "ignore_eos": true,
        "stream_options": {"include_usage": true}})
}

fn delta_text(chunk: &Value, key: &str) -> String {
    chunk["choices"][0]["delta"][key]
        .as_str()
        .unwrap_or_else(|| panic!("no {key} in {chunk}"))
        .to_owned()
}

/// The times and token counts of the reads that carry tokens.
fn token_reads(ex: &Exchange) -> (Vec<f64>, Vec<usize>) {
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
    let server = start(with_wire(5.0, 1.0, wire)).await;
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
    let ex = exchange(
        server.addr(),
        "/v1/chat/completions",
        &chat(5, true),
        LINGER,
    )
    .await;
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
    let server = start(with_wire(50.0, 20.0, wire)).await;
    let ex = exchange(
        server.addr(),
        "/v1/chat/completions",
        &chat(10, true),
        LINGER,
    )
    .await;
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
    let server = start(with_wire(50.0, 20.0, wire)).await;
    let ex = exchange(
        server.addr(),
        "/v1/chat/completions",
        &chat(10, true),
        LINGER,
    )
    .await;
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
    let server = start(with_wire(50.0, 20.0, wire)).await;
    let ex = exchange(
        server.addr(),
        "/v1/chat/completions",
        &chat(10, true),
        LINGER,
    )
    .await;
    let (times, tokens) = token_reads(&ex);
    assert_eq!(tokens, [1, 9], "{:?}", ex.event_reads());
    assert_times(&times, &[50.0, 230.0], SLACK);
    server.shutdown().await;
}

#[tokio::test]
async fn usage_none_sends_no_usage_anywhere() {
    let wire = WireConfig {
        usage: UsageMode::None,
        ..WireConfig::default()
    };
    let server = start(with_wire(2.0, 1.0, wire)).await;
    let addr = server.addr();
    let mut continuous = chat(6, true);
    continuous["stream_options"]["continuous_usage_stats"] = json!(true);
    let completions = json!({"prompt": "x", "max_tokens": 6, "ignore_eos": true, "stream": true,
        "stream_options": {"include_usage": true, "continuous_usage_stats": true}});
    for (path, body) in [
        ("/v1/chat/completions", continuous),
        ("/v1/chat/completions", chat(6, false)),
        ("/v1/completions", completions),
    ] {
        let ex = exchange(addr, path, &body, Duration::ZERO).await;
        assert_eq!(ex.status, 200);
        let text = String::from_utf8(ex.body.to_vec()).unwrap();
        assert!(!text.contains("usage"), "{text}");
        if body["stream"] == true {
            assert_eq!(ex.token_chunks().len(), 6);
            assert_eq!(ex.events().last().unwrap(), "[DONE]");
        } else {
            let content =
                serde_json::from_str::<Value>(&text).unwrap()["choices"][0]["message"]["content"]
                    .as_str()
                    .map(tokens);
            assert_eq!(content, Some(6));
        }
    }
    server.shutdown().await;
}

#[tokio::test]
async fn usage_scaled_reports_twice_the_tokens() {
    let wire = WireConfig {
        usage: UsageMode::Scaled,
        usage_scale: 2.0,
        ..WireConfig::default()
    };
    let server = start(with_wire(2.0, 1.0, wire)).await;
    let addr = server.addr();
    let mut body = chat(7, true);
    body["stream_options"]["continuous_usage_stats"] = json!(true);
    let ex = exchange(addr, "/v1/chat/completions", &body, Duration::ZERO).await;
    let per_chunk: Vec<u64> = ex
        .token_chunks()
        .iter()
        .map(|c| c["usage"]["completion_tokens"].as_u64().unwrap())
        .collect();
    assert_eq!(per_chunk, [2, 4, 6, 8, 10, 12, 14]);
    let text: String = ex
        .token_chunks()
        .iter()
        .map(|c| delta_text(c, "content"))
        .collect();
    assert_eq!(tokens(&text), 7, "the text stays true");
    // "Hello world" in a chat template is 9 prompt tokens.
    assert_eq!(
        ex.chunks().last().unwrap()["usage"],
        json!({"prompt_tokens": 9, "total_tokens": 23, "completion_tokens": 14})
    );
    let whole = exchange(
        addr,
        "/v1/chat/completions",
        &chat(7, false),
        Duration::ZERO,
    )
    .await;
    let whole: Value = serde_json::from_slice(&whole.body).unwrap();
    assert_eq!(whole["usage"]["completion_tokens"], 14);
    assert_eq!(whole["usage"]["total_tokens"], 23);
    server.shutdown().await;
}

#[tokio::test]
async fn empty_text_every_fourth_token() {
    let wire = WireConfig {
        empty_text_every: 4,
        ..WireConfig::default()
    };
    let server = start(with_wire(2.0, 1.0, wire)).await;
    let addr = server.addr();
    // 8 tokens: the 4th and the 8th (the last) have no text.
    let ex = exchange(addr, "/v1/chat/completions", &chat(8, true), Duration::ZERO).await;
    let texts: Vec<String> = ex
        .token_chunks()
        .iter()
        .map(|c| delta_text(c, "content"))
        .collect();
    let words: Vec<usize> = texts.iter().map(|t| tokens(t)).collect();
    assert_eq!(words, [1, 1, 1, 0, 1, 1, 1, 0], "{texts:?}");
    assert_eq!(ex.chunks().last().unwrap()["usage"]["completion_tokens"], 8);
    let completions = json!({"prompt": "x", "max_tokens": 10, "ignore_eos": true,
        "stream": true});
    let ex = exchange(addr, "/v1/completions", &completions, Duration::ZERO).await;
    let texts: Vec<&str> = ex
        .token_chunks()
        .iter()
        .map(|c| c["choices"][0]["text"].as_str().unwrap())
        .map(|t| if t.is_empty() { "" } else { "w" })
        .collect();
    assert_eq!(texts, ["w", "w", "w", "", "w", "w", "w", "", "w", "w"]);
    let whole = exchange(
        addr,
        "/v1/chat/completions",
        &chat(10, false),
        Duration::ZERO,
    )
    .await;
    let whole: Value = serde_json::from_slice(&whole.body).unwrap();
    let content = whole["choices"][0]["message"]["content"].as_str().unwrap();
    assert_eq!(
        (tokens(content), &whole["usage"]["completion_tokens"]),
        (8, &json!(10))
    );
    server.shutdown().await;
}

#[tokio::test]
async fn tool_calls_stream_arguments() {
    let wire = WireConfig {
        tool_calls: true,
        ..WireConfig::default()
    };
    let server = start(with_wire(2.0, 1.0, wire)).await;
    let addr = server.addr();
    let ex = exchange(addr, "/v1/chat/completions", &chat(6, true), Duration::ZERO).await;
    let deltas: Vec<Value> = ex
        .token_chunks()
        .iter()
        .map(|c| c["choices"][0]["delta"].clone())
        .collect();
    assert_eq!(deltas.len(), 6);
    let call = &deltas[0]["tool_calls"][0];
    let id = call["id"].as_str().unwrap();
    assert!(id.starts_with("call_") && id.len() == 29, "{id}");
    assert_eq!(
        deltas[0],
        json!({"tool_calls": [{"index": 0, "id": id, "type": "function",
            "function": {"name": "sim_tool", "arguments": call["function"]["arguments"]}}]})
    );
    let mut arguments = String::new();
    for delta in &deltas {
        assert!(delta.get("content").is_none(), "{delta}");
        arguments.push_str(
            delta["tool_calls"][0]["function"]["arguments"]
                .as_str()
                .unwrap(),
        );
    }
    for delta in &deltas[1..] {
        let part = &delta["tool_calls"][0]["function"]["arguments"];
        assert_eq!(
            *delta,
            json!({"tool_calls": [{"index": 0, "function": {"arguments": part}}]})
        );
    }
    assert_eq!(tokens(&arguments), 6);
    let chunks = ex.chunks();
    let finish = &chunks[chunks.len() - 2];
    assert_eq!(finish["choices"][0]["finish_reason"], "tool_calls");
    assert_eq!(chunks.last().unwrap()["usage"]["completion_tokens"], 6);

    let whole = exchange(
        addr,
        "/v1/chat/completions",
        &chat(6, false),
        Duration::ZERO,
    )
    .await;
    let whole: Value = serde_json::from_slice(&whole.body).unwrap();
    let message = &whole["choices"][0]["message"];
    assert_eq!(message["content"], Value::Null);
    assert_eq!(message["tool_calls"][0]["type"], "function");
    assert_eq!(message["tool_calls"][0]["function"]["name"], "sim_tool");
    let arguments = message["tool_calls"][0]["function"]["arguments"]
        .as_str()
        .unwrap();
    assert_eq!(tokens(arguments), 6);
    assert_eq!(whole["choices"][0]["finish_reason"], "tool_calls");
    // Completions have no tool calls: unchanged.
    let body = json!({"prompt": "x", "max_tokens": 3, "ignore_eos": true});
    let cmpl = exchange(addr, "/v1/completions", &body, Duration::ZERO).await;
    let cmpl: Value = serde_json::from_slice(&cmpl.body).unwrap();
    assert_eq!(cmpl["choices"][0]["finish_reason"], "length");
    assert_eq!(tokens(cmpl["choices"][0]["text"].as_str().unwrap()), 3);
    server.shutdown().await;
}

#[tokio::test]
async fn reasoning_tokens_come_first() {
    let wire = WireConfig {
        reasoning_tokens: 3,
        ..WireConfig::default()
    };
    let server = start(with_wire(50.0, 20.0, wire)).await;
    let addr = server.addr();
    let ex = exchange(addr, "/v1/chat/completions", &chat(8, true), Duration::ZERO).await;
    let kinds: Vec<(&str, usize)> = ex
        .token_chunks()
        .iter()
        .map(|c| {
            let delta = c["choices"][0]["delta"].as_object().unwrap();
            assert_eq!(delta.len(), 1, "{delta:?}");
            let (key, text) = delta.iter().next().unwrap();
            let key = if key == "content" {
                "content"
            } else {
                "reasoning"
            };
            (key, tokens(text.as_str().unwrap()))
        })
        .collect();
    let reasoning = [("reasoning", 1); 3];
    let content = [("content", 1); 5];
    assert_eq!(kinds, [&reasoning[..], &content[..]].concat());
    assert_eq!(
        ex.chunks().last().unwrap()["usage"],
        json!({"prompt_tokens": 9, "total_tokens": 17, "completion_tokens": 8,
            "completion_tokens_details": {"reasoning_tokens": 3}})
    );
    // The first token (reasoning) at 50 ms, the first answer token at 50 + 3 x 20 = 110 ms.
    let (times, _) = token_reads(&ex);
    assert_times(&[times[0], times[3]], &[50.0, 110.0], SLACK);

    let whole = exchange(
        addr,
        "/v1/chat/completions",
        &chat(8, false),
        Duration::ZERO,
    )
    .await;
    let whole: Value = serde_json::from_slice(&whole.body).unwrap();
    let message = &whole["choices"][0]["message"];
    assert_eq!(tokens(message["reasoning_content"].as_str().unwrap()), 3);
    assert_eq!(tokens(message["content"].as_str().unwrap()), 5);
    assert_eq!(
        whole["usage"]["completion_tokens_details"]["reasoning_tokens"],
        3
    );
    server.shutdown().await;
}
