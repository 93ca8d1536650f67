//! Each `wire` switch of content, observed on the wire: usage left out or scaled, empty token
//! texts, tool calls and reasoning tokens, in streamed and whole answers.

use std::time::Duration;

use plateau_sim::{UsageMode, WireConfig};
use serde_json::{Value, json};

use crate::client::*;
use crate::raw::*;
use crate::switches::*;

#[tokio::test]
async fn usage_none_sends_no_usage_anywhere() {
    let wire = WireConfig {
        usage: UsageMode::None,
        ..WireConfig::default()
    };
    let server = start_wired(2.0, 1.0, wire).await;
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
    let server = start_wired(2.0, 1.0, wire).await;
    let addr = server.addr();
    let mut body = chat(7, true);
    body["stream_options"]["continuous_usage_stats"] = json!(true);
    let ex = chat_exchange(addr, &body, Duration::ZERO).await;
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
    let whole = whole_chat(addr, 7).await;
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
    let server = start_wired(2.0, 1.0, wire).await;
    let addr = server.addr();
    // 8 tokens: the 4th and the 8th (the last) have no text.
    let ex = chat_exchange(addr, &chat(8, true), Duration::ZERO).await;
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
    let whole = whole_chat(addr, 10).await;
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
    let server = start_wired(2.0, 1.0, wire).await;
    let addr = server.addr();
    let ex = chat_exchange(addr, &chat(6, true), Duration::ZERO).await;
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

    let whole = whole_chat(addr, 6).await;
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
    let server = start_wired(50.0, 20.0, wire).await;
    let addr = server.addr();
    let ex = chat_exchange(addr, &chat(8, true), Duration::ZERO).await;
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

    let whole = whole_chat(addr, 8).await;
    let message = &whole["choices"][0]["message"];
    assert_eq!(tokens(message["reasoning_content"].as_str().unwrap()), 3);
    assert_eq!(tokens(message["content"].as_str().unwrap()), 5);
    assert_eq!(
        whole["usage"]["completion_tokens_details"]["reasoning_tokens"],
        3
    );
    server.shutdown().await;
}
