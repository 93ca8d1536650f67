//! Request bodies per engine and API, and chunk decoding of real servers' shapes.

use super::*;
use crate::plan::Target;
use crate::workload::Message;
use plateau_model::config::Api;
use std::time::Duration;

fn endpoint(engine: Engine, api: Api, ignore_eos: bool) -> Endpoint {
    Endpoint {
        name: "e".into(),
        engine,
        target: Target::InProcessSim,
        api,
        api_key: None,
        headers: vec![],
        session_header: None,
        extra_body: Map::new(),
        ignore_eos,
        sim: None,
        secrets: vec![],
        labels: Default::default(),
        net: Default::default(),
        hardware: None,
    }
}

fn opts(stream: bool) -> RequestOptions {
    RequestOptions {
        max_tokens: 64,
        stream,
        timeout: Duration::from_secs(1),
        store_text: false,
    }
}

fn prompt(messages: Vec<Message>) -> Prompt {
    Prompt {
        messages,
        ..Prompt::default()
    }
}

fn body(e: &Endpoint, p: &Prompt, stream: bool) -> Value {
    serde_json::from_slice(&request_body(e, "m", p, &opts(stream))).unwrap()
}

#[test]
fn vllm_chat_stream_body() {
    let p = prompt(vec![Message::new(Role::User, "hi")]);
    let b = body(&endpoint(Engine::Vllm, Api::Chat, true), &p, true);
    assert_eq!(
        b,
        json!({"model": "m", "messages": [{"role": "user", "content": "hi"}], "max_tokens": 64,
               "stream": true, "stream_options": {"include_usage": true, "continuous_usage_stats": true},
               "ignore_eos": true, "min_tokens": 64})
    );
}

#[test]
fn a_prompts_own_max_tokens_replaces_the_plans() {
    let mut p = prompt(vec![Message::new(Role::User, "hi")]);
    p.max_tokens = Some(300);
    let b = body(&endpoint(Engine::Vllm, Api::Chat, true), &p, true);
    assert_eq!(
        (&b["max_tokens"], &b["min_tokens"]),
        (&json!(300), &json!(300))
    );
    p.max_tokens = None;
    let b = body(&endpoint(Engine::Vllm, Api::Chat, true), &p, true);
    assert_eq!(
        (&b["max_tokens"], &b["min_tokens"]),
        (&json!(64), &json!(64))
    );
}

#[test]
fn openai_completions_without_stream_has_no_extras() {
    let p = prompt(vec![Message::new(Role::User, "hi")]);
    let b = body(
        &endpoint(Engine::Openai, Api::Completions, false),
        &p,
        false,
    );
    assert_eq!(
        b,
        json!({"model": "m", "prompt": "hi", "max_tokens": 64, "stream": false})
    );
}

#[test]
fn extra_body_is_merged_last() {
    let mut e = endpoint(Engine::Sglang, Api::Chat, true);
    e.extra_body.insert("temperature".into(), json!(0));
    e.extra_body.insert("max_tokens".into(), json!(7));
    let b = body(&e, &prompt(vec![Message::new(Role::User, "x")]), true);
    assert_eq!(b["temperature"], json!(0));
    assert_eq!(b["max_tokens"], json!(7));
    assert_eq!(b["stream_options"], json!({"include_usage": true}));
}

#[test]
fn completion_prompt_rendering() {
    let lone = prompt(vec![Message::new(Role::User, "q")]);
    assert_eq!(completion_prompt(&lone), "q");
    let rag = prompt(vec![
        Message::new(Role::System, "S"),
        Message::new(Role::User, "q"),
    ]);
    assert_eq!(completion_prompt(&rag), "S\n\nq");
    let dialog = prompt(vec![
        Message::new(Role::User, "a"),
        Message::new(Role::Assistant, "b"),
        Message::new(Role::User, "c"),
    ]);
    assert_eq!(
        completion_prompt(&dialog),
        "User: a\nAssistant: b\nUser: c\nAssistant:"
    );
}

fn dec(data: &str) -> (Decoded, String) {
    let (d, t) = dec_text(data);
    (d, t.all)
}

fn dec_text(data: &str) -> (Decoded, Text) {
    let mut t = Text::default();
    let d = decode(data.as_bytes(), &mut t).unwrap();
    (d, t)
}

#[test]
fn decodes_chat_delta_with_continuous_usage() {
    let (d, s) = dec(
        r#"{"id":"x","choices":[{"index":0,"delta":{"content":" the"},"finish_reason":null}],"usage":{"prompt_tokens":9,"completion_tokens":3,"total_tokens":12}}"#,
    );
    assert_eq!(s, " the");
    assert_eq!(d.content_len, 4);
    assert_eq!(
        d.usage,
        Some(Usage {
            prompt_tokens: Some(9),
            completion_tokens: Some(3),
            completion_tokens_details: None,
            prompt_tokens_details: None,
        })
    );
    assert!(!d.finished);
}

#[test]
fn decodes_role_chunk_as_empty_and_finish_chunk() {
    let (d, _) = dec(r#"{"choices":[{"delta":{"role":"assistant","content":""}}]}"#);
    assert_eq!(d.content_len, 0);
    assert!(!d.carries_output());
    let (d, _) = dec(r#"{"choices":[{"delta":{"content":null},"finish_reason":"length"}]}"#);
    assert!(d.finished);
    assert_eq!(d.content_len, 0);
    // The finishing event ends the output even without text (its token decoded to none).
    assert!(d.carries_output());
}

#[test]
fn decodes_reasoning_and_completions_text() {
    let (d, t) = dec_text(r#"{"choices":[{"delta":{"reasoning_content":"hmm"}}]}"#);
    assert_eq!(
        (t.all.as_str(), t.reasoning.as_str(), t.answer.as_str()),
        ("hmm", "hmm", "")
    );
    assert_eq!((d.reasoning_len, d.answer_len), (3, 0));
    let (_, t) = dec_text(r#"{"choices":[{"delta":{"reasoning":"so","content":"yes"}}]}"#);
    assert_eq!(
        (t.all.as_str(), t.reasoning.as_str(), t.answer.as_str()),
        ("soyes", "so", "yes")
    );
    let (_, t) = dec_text(
        r#"{"usage":{"completion_tokens":9,"completion_tokens_details":{"reasoning_tokens":4}}}"#,
    );
    assert_eq!(t, Text::default());
    let (d, _) = dec(
        r#"{"usage":{"completion_tokens":9,"completion_tokens_details":{"reasoning_tokens":4}}}"#,
    );
    assert_eq!(d.usage.and_then(|u| u.reasoning_tokens()), Some(4));
    let (d, s) =
        dec(r#"{"object":"text_completion","choices":[{"text":"ab","finish_reason":null}]}"#);
    assert_eq!((d.content_len, s.as_str()), (2, "ab"));
}

#[test]
fn decodes_usage_only_chunk() {
    let (d, s) = dec(r#"{"choices":[],"usage":{"prompt_tokens":5,"completion_tokens":64}}"#);
    assert_eq!(s, "");
    assert_eq!(d.usage.unwrap().completion_tokens, Some(64));
}

#[test]
fn decodes_whole_chat_body() {
    let (d, s) = dec(
        r#"{"choices":[{"message":{"role":"assistant","content":"hello"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":2}}"#,
    );
    assert_eq!(s, "hello");
    assert!(d.finished);
}

#[test]
fn decodes_error_shapes() {
    let (d, _) = dec(r#"{"error":{"message":"overloaded","type":"x","code":503}}"#);
    assert_eq!(d.error.as_deref(), Some("overloaded"));
    let (d, _) =
        dec(r#"{"object":"error","message":"bad model","type":"NotFoundError","code":404}"#);
    assert_eq!(d.error.as_deref(), Some("bad model"));
    let (d, _) = dec(r#"{"error":"plain"}"#);
    assert_eq!(d.error.as_deref(), Some("plain"));
}

#[test]
fn error_message_falls_back_to_text() {
    assert_eq!(error_message(br#"{"error":{"message":"nope"}}"#), "nope");
    assert_eq!(error_message(b"  Bad Gateway \n"), "Bad Gateway");
    assert!(error_message(&[b'x'; 2000]).ends_with("..."));
}

#[test]
fn decodes_tool_call_deltas_as_output() {
    let (d, t) = dec_text(
        r#"{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"c1","type":"function","function":{"name":"get","arguments":""}}]}}]}"#,
    );
    assert!(d.tool_call && d.carries_output());
    assert_eq!((t.all.as_str(), t.answer.as_str()), ("get", ""));
    let (d, t) = dec_text(
        r#"{"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"a\":1}"}}]}}]}"#,
    );
    assert_eq!((d.content_len, t.all.as_str()), (7, r#"{"a":1}"#));
}

#[test]
fn tool_call_deltas_are_joined_by_index() {
    // vLLM's stream shape: id and name first, arguments in pieces, a second call after.
    let mut text = Text::default();
    for chunk in [
        r#"{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"c1","type":"function","function":{"name":"read_file","arguments":""}}]}}]}"#,
        r#"{"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"path\":"}}]}}]}"#,
        r#"{"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\"a.rs\"}"}}]}}]}"#,
        r#"{"choices":[{"delta":{"tool_calls":[{"index":1,"id":"c2","type":"function","function":{"name":"run_command","arguments":"{}"}}]}}]}"#,
    ] {
        decode(chunk.as_bytes(), &mut text).unwrap();
    }
    let got: Vec<(&str, &str, &str)> = text
        .tool_calls
        .iter()
        .map(|c| (c.id.as_str(), c.name.as_str(), c.arguments.as_str()))
        .collect();
    assert_eq!(
        got,
        [
            ("c1", "read_file", r#"{"path":"a.rs"}"#),
            ("c2", "run_command", "{}")
        ]
    );
    // A whole (non-streaming) body carries each call in one piece, without an index.
    let mut whole = Text::default();
    let body = r#"{"choices":[{"message":{"content":null,"tool_calls":[{"id":"x","type":"function","function":{"name":"search_code","arguments":"{}"}}]}}]}"#;
    decode(body.as_bytes(), &mut whole).unwrap();
    assert_eq!(whole.tool_calls.len(), 1);
    assert_eq!(
        (
            whole.tool_calls[0].id.as_str(),
            whole.tool_calls[0].name.as_str()
        ),
        ("x", "search_code")
    );
}

#[test]
fn done_marker_ends_the_stream() {
    let ev = |data: &str| sse::Event {
        event: None,
        data: data.into(),
    };
    assert!(OpenAi.is_end(&ev("[DONE]")));
    assert!(OpenAi.is_end(&ev(" [DONE] ")));
    assert!(!OpenAi.is_end(&ev("{\"x\":1}")));
}

#[test]
fn decode_rejects_non_json() {
    let mut s = Text::default();
    assert!(decode(b"not json", &mut s).is_err());
}

/// llama.cpp's whole chat answer, as its server (xllamacpp 2026.10.11549) wrote it, and the
/// last chunk of its stream: `timings` read from both, prompt tokens evaluated plus reused.
#[test]
fn decodes_llama_cpp_timings() {
    let whole = r#"{"choices":[{"finish_reason":"length","index":0,"message":{"role":"assistant","content":"arkould and"}}],"created":1795722953,"model":"tiny-llama","system_fingerprint":"b0-unknown","object":"chat.completion","usage":{"completion_tokens":3,"prompt_tokens":32,"total_tokens":35,"prompt_tokens_details":{"cached_tokens":31}},"id":"chatcmpl-nmKXswFmpHzsVpns6xX4pThQg9qoapSD","timings":{"cache_n":31,"prompt_n":1,"prompt_ms":8.154,"prompt_per_token_ms":8.154,"prompt_per_second":122.63919548687761,"predicted_n":3,"predicted_ms":0.468,"predicted_per_token_ms":0.234,"predicted_per_second":4273.504273504273}}"#;
    let (d, text) = dec(whole);
    assert_eq!(text, "arkould and");
    let cached = d.usage.and_then(|u| u.cached_tokens());
    assert_eq!(
        cached,
        Some(31),
        "usage.prompt_tokens_details.cached_tokens"
    );
    let t = d.timings.expect("timings").server_timing();
    assert_eq!(t.prefill_us, Some(8_154));
    assert_eq!(t.decode_us, Some(468));
    assert_eq!(
        (t.prompt_tokens, t.cached_tokens, t.output_tokens),
        (Some(32), Some(31), Some(3))
    );

    let last = r#"{"choices":[],"created":1795722953,"id":"chatcmpl-GTJeijABckCllYMtsffKWTWaG8ACqpTM","model":"tiny-llama","system_fingerprint":"b0-unknown","object":"chat.completion.chunk","usage":{"completion_tokens":3,"prompt_tokens":32,"total_tokens":35,"prompt_tokens_details":{"cached_tokens":0}},"timings":{"cache_n":0,"prompt_n":32,"prompt_ms":2.122,"prompt_per_token_ms":0.0663125,"prompt_per_second":15080.113100848257,"predicted_n":3,"predicted_ms":1.281,"predicted_per_token_ms":0.6405,"predicted_per_second":1561.28024980484}}"#;
    let t = dec(last).0.timings.expect("timings").server_timing();
    assert_eq!((t.prefill_us, t.decode_us), (Some(2_122), Some(1_281)));
    assert_eq!((t.prompt_tokens, t.cached_tokens), (Some(32), Some(0)));

    // Nonsense is absent, never 0; a chunk without timings has none.
    let odd = r#"{"choices":[],"timings":{"prompt_ms":-1,"predicted_ms":2.5,"prompt_n":4}}"#;
    let t = dec(odd).0.timings.expect("timings").server_timing();
    assert_eq!((t.prefill_us, t.decode_us), (None, Some(2_500)));
    assert_eq!((t.cached_tokens, t.prompt_tokens), (None, Some(4)));
    assert_eq!(dec(r#"{"choices":[]}"#).0.timings, None);
}

#[test]
fn timings_of_another_shape_drop_only_themselves() {
    let (d, text) = dec(r#"{"choices":[{"index":0,"delta":{"content":"hi"}}],"timings":"fast"}"#);
    assert_eq!((d.timings, text.as_str()), (None, "hi"));
}

#[test]
fn tool_calls_results_and_tools_go_on_the_chat_wire() {
    let mut call = Message::new(Role::Assistant, "");
    call.tool_calls = vec![crate::workload::ToolCall {
        id: "call_1".into(),
        name: "read_file".into(),
        arguments: r#"{"path":"a.rs"}"#.into(),
    }];
    let mut result = Message::new(Role::Tool, "fn main() {}");
    result.tool_call_id = Some("call_1".into());
    let mut p = prompt(vec![Message::new(Role::User, "fix it"), call, result]);
    let tools = json!([{"type": "function", "function": {"name": "read_file", "parameters": {}}}]);
    p.tools = Some(std::sync::Arc::new(tools.clone()));
    let b = body(&endpoint(Engine::Vllm, Api::Chat, false), &p, false);
    assert_eq!(
        b["messages"],
        json!([
            {"role": "user", "content": "fix it"},
            {"role": "assistant", "content": "", "tool_calls": [{"id": "call_1", "type": "function",
                "function": {"name": "read_file", "arguments": "{\"path\":\"a.rs\"}"}}]},
            {"role": "tool", "content": "fn main() {}", "tool_call_id": "call_1"},
        ])
    );
    assert_eq!(b["tools"], tools);
    let completions = completion_prompt(&p);
    assert_eq!(
        completions,
        "User: fix it\nAssistant: \nTool: fn main() {}\nAssistant:"
    );
}
