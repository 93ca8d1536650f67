//! Shape of every chunk kind, checked by decoding it, and a cost check of the hot path.

use super::*;
use rand::SeedableRng;
use serde_json::Value;

fn writer(api: Api, usage: (bool, bool)) -> Writer {
    shaped(api, usage, &WireConfig::default())
}

fn shaped(api: Api, usage: (bool, bool), wire: &WireConfig) -> Writer {
    Writer::new(
        api,
        "org/m\"1",
        12,
        usage,
        Shape::new(api, wire),
        1_700_000_000,
        ChaCha8Rng::seed_from_u64(5),
    )
}

/// Splits SSE bytes into the `data:` payloads, checking the framing.
fn events(bytes: &[u8]) -> Vec<String> {
    let text = std::str::from_utf8(bytes).unwrap();
    assert!(text.ends_with("\n\n"), "{text}");
    text.split_terminator("\n\n")
        .map(|e| e.strip_prefix("data: ").unwrap().to_owned())
        .collect()
}

fn json(s: &str) -> Value {
    serde_json::from_str(s).unwrap()
}

#[test]
fn chat_stream_shape() {
    let mut w = writer(Api::Chat, (true, false));
    let mut out = Vec::new();
    w.role_chunk(&mut out);
    out.extend(w.content_chunk(1));
    out.extend(w.content_chunk(3));
    w.finish(&mut out, false);
    let ev = events(&out);
    assert_eq!(ev.len(), 6);
    let role = json(&ev[0]);
    assert!(role["id"].as_str().unwrap().starts_with("chatcmpl-"));
    assert_eq!(role["object"], "chat.completion.chunk");
    assert_eq!(role["created"], 1_700_000_000);
    assert_eq!(role["model"], "org/m\"1");
    assert_eq!(
        role["choices"][0]["delta"],
        json(r#"{"role":"assistant","content":""}"#)
    );
    assert!(role.get("usage").is_none());
    let one = json(&ev[1]);
    assert_eq!(one["id"], role["id"]);
    assert_eq!(one["choices"][0]["finish_reason"], Value::Null);
    let content = one["choices"][0]["delta"]["content"].as_str().unwrap();
    assert!(
        content.starts_with(' ') && content.split(' ').count() == 2,
        "{content:?}"
    );
    let three = json(&ev[2])["choices"][0]["delta"]["content"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(three.split(' ').count(), 4, "{three:?}");
    let fin = json(&ev[3]);
    assert_eq!(fin["choices"][0]["delta"], json("{}"));
    assert_eq!(fin["choices"][0]["finish_reason"], "length");
    let usage = json(&ev[4]);
    assert_eq!(usage["choices"], json("[]"));
    assert_eq!(
        usage["usage"],
        json(r#"{"prompt_tokens":12,"total_tokens":16,"completion_tokens":4}"#)
    );
    assert_eq!(ev[5], "[DONE]");
}

#[test]
fn completions_stream_with_continuous_usage() {
    let mut w = writer(Api::Completions, (false, true));
    let mut out = Vec::new();
    w.role_chunk(&mut out);
    assert!(out.is_empty(), "completions have no role chunk");
    out.extend(w.content_chunk(1));
    out.extend(w.content_chunk(2));
    w.finish(&mut out, true);
    let ev = events(&out);
    assert_eq!(ev.len(), 4);
    let first = json(&ev[0]);
    assert!(first["id"].as_str().unwrap().starts_with("cmpl-"));
    assert_eq!(first["object"], "text_completion");
    assert!(
        first["choices"][0]["text"]
            .as_str()
            .unwrap()
            .starts_with(' ')
    );
    assert_eq!(first["usage"]["completion_tokens"], 1);
    assert_eq!(json(&ev[1])["usage"]["completion_tokens"], 3);
    assert_eq!(json(&ev[1])["usage"]["total_tokens"], 15);
    let fin = json(&ev[2]);
    assert_eq!(fin["choices"][0]["text"], "");
    assert_eq!(fin["choices"][0]["finish_reason"], "stop");
    assert_eq!(fin["usage"]["completion_tokens"], 3);
    assert_eq!(ev[3], "[DONE]");
}

#[test]
fn error_event_then_done() {
    let mut out = Vec::new();
    Writer::error_event(&mut out);
    let ev = events(&out);
    assert_eq!(json(&ev[0])["error"]["code"], 500);
    assert_eq!(ev[1], "[DONE]");
}

#[test]
fn full_bodies() {
    let chat =
        json(std::str::from_utf8(&writer(Api::Chat, (false, false)).full_body(5, false)).unwrap());
    assert_eq!(chat["object"], "chat.completion");
    assert!(chat["id"].as_str().unwrap().starts_with("chatcmpl-"));
    assert_eq!(chat["choices"][0]["message"]["role"], "assistant");
    let text = chat["choices"][0]["message"]["content"].as_str().unwrap();
    assert_eq!(
        tiktoken_rs::cl100k_base_singleton()
            .encode_ordinary(text)
            .len(),
        5
    );
    assert_eq!(chat["choices"][0]["finish_reason"], "length");
    assert_eq!(
        chat["usage"],
        json(r#"{"prompt_tokens":12,"total_tokens":17,"completion_tokens":5}"#)
    );
    let cmpl = json(
        std::str::from_utf8(&writer(Api::Completions, (false, false)).full_body(2, true)).unwrap(),
    );
    assert_eq!(cmpl["object"], "text_completion");
    assert_eq!(cmpl["model"], "org/m\"1");
    assert_eq!(cmpl["choices"][0]["finish_reason"], "stop");
}

/// Words in a generated text (each starts with a space).
fn words(text: &Value) -> usize {
    text.as_str().unwrap().matches(' ').count()
}

#[test]
fn reasoning_ending_inside_a_chunk_splits_it_in_two_events() {
    let wire = WireConfig {
        reasoning_tokens: 2,
        ..WireConfig::default()
    };
    let mut w = shaped(Api::Chat, (false, true), &wire);
    let mut out = w.content_chunk(1);
    out.extend(w.content_chunk(3)); // token 2 is reasoning, 3 and 4 are content
    let ev: Vec<Value> = events(&out).iter().map(|e| json(e)).collect();
    assert_eq!(ev.len(), 3);
    let delta = |i: usize, key: &str| words(&ev[i]["choices"][0]["delta"][key]);
    assert_eq!(
        (
            delta(0, "reasoning_content"),
            delta(1, "reasoning_content"),
            delta(2, "content")
        ),
        (1, 1, 2)
    );
    let usage: Vec<(u64, u64)> = ev
        .iter()
        .map(|e| {
            let u = &e["usage"];
            let r = &u["completion_tokens_details"]["reasoning_tokens"];
            (
                u["completion_tokens"].as_u64().unwrap(),
                r.as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(usage, [(1, 1), (2, 2), (4, 2)]);
}

#[test]
fn empty_tokens_inside_chunks_and_scaled_usage() {
    let wire = WireConfig {
        empty_text_every: 2,
        usage: UsageMode::Scaled,
        usage_scale: 1.5,
        ..WireConfig::default()
    };
    let mut w = shaped(Api::Completions, (true, false), &wire);
    let mut out = w.content_chunk(1);
    out.extend(w.content_chunk(4)); // tokens 2 and 4 have no text
    w.finish(&mut out, false);
    let ev: Vec<Value> = events(&out)[..3].iter().map(|e| json(e)).collect();
    assert_eq!(words(&ev[0]["choices"][0]["text"]), 1);
    assert_eq!(words(&ev[1]["choices"][0]["text"]), 2);
    // 5 tokens x 1.5 = 7.5, reported as 8.
    assert_eq!(
        json(&events(&out)[3])["usage"],
        json(r#"{"prompt_tokens":12,"total_tokens":20,"completion_tokens":8}"#)
    );
}

#[test]
fn chat_only_switches_leave_completions_alone() {
    let wire = WireConfig {
        reasoning_tokens: 2,
        tool_calls: true,
        ..WireConfig::default()
    };
    let mut w = shaped(Api::Completions, (true, false), &wire);
    let mut out = w.content_chunk(3);
    w.finish(&mut out, false);
    let ev: Vec<Value> = events(&out)[..3].iter().map(|e| json(e)).collect();
    assert_eq!(words(&ev[0]["choices"][0]["text"]), 3);
    assert_eq!(ev[1]["choices"][0]["finish_reason"], "length");
    assert_eq!(
        ev[2]["usage"],
        json(r#"{"prompt_tokens":12,"total_tokens":15,"completion_tokens":3}"#)
    );
}

#[test]
fn usage_none_overrides_the_request() {
    let wire = WireConfig {
        usage: UsageMode::None,
        ..WireConfig::default()
    };
    let mut w = shaped(Api::Chat, (true, true), &wire);
    let mut out = Vec::new();
    w.role_chunk(&mut out);
    out.extend(w.content_chunk(2));
    w.finish(&mut out, true);
    let text = String::from_utf8(out).unwrap();
    assert!(!text.contains("usage"), "{text}");
    let body = shaped(Api::Chat, (false, false), &wire).full_body(3, true);
    assert!(
        json(std::str::from_utf8(&body).unwrap())
            .get("usage")
            .is_none()
    );
}

/// The per-chunk hot path: one buffer per chunk, no parsing, no locks. Prints its cost; the
/// bound is two orders of magnitude above what it takes, so it only catches pathologies.
#[test]
fn content_chunk_is_cheap() {
    let mut w = writer(Api::Chat, (false, true));
    let n = 50_000;
    let start = std::time::Instant::now();
    let mut bytes = 0;
    for _ in 0..n {
        bytes += Bytes::from(w.content_chunk(1)).len();
    }
    let per_chunk = start.elapsed() / n;
    println!(
        "content_chunk: {per_chunk:?} per chunk, {} bytes each",
        bytes / n as usize
    );
    assert!(
        per_chunk < std::time::Duration::from_micros(50),
        "{per_chunk:?}"
    );
}
