//! Wire format: streaming and whole responses, usage, models, metrics, errors.

use plateau_sim::SimConfig;
use serde_json::{Value, json};

use crate::client::*;

fn chat(max_tokens: u32, stream: bool) -> Value {
    json!({"model": "m", "messages": [{"role": "user", "content": "Hello world"}],
        "max_tokens": max_tokens, "stream": stream, "ignore_eos": true,
        "stream_options": {"include_usage": true}})
}

#[tokio::test]
async fn streaming_chat_matches_vllm_shape() {
    let server = start(fixed(5.0, 1.0)).await;
    let http = client();
    let reply = post(&http, server.addr(), "/v1/chat/completions", chat(7, true)).await;
    assert_eq!(reply.status, 200);
    assert!(reply.error.is_none());
    assert_eq!(
        reply.headers["content-type"],
        "text/event-stream; charset=utf-8"
    );
    let text = reply.text();
    assert!(text.ends_with("data: [DONE]\n\n"), "{text}");
    let events = reply.events();
    // role, 7 content chunks, finish, usage, [DONE]
    assert_eq!(events.len(), 11, "{text}");
    let chunks: Vec<Value> = events[..10]
        .iter()
        .map(|e| serde_json::from_str(e).unwrap())
        .collect();
    assert_eq!(chunks[0]["choices"][0]["delta"]["role"], "assistant");
    assert_eq!(chunks[0]["object"], "chat.completion.chunk");
    assert_eq!(chunks[0]["model"], "m");
    let content: String = chunks[1..8]
        .iter()
        .map(|c| c["choices"][0]["delta"]["content"].as_str().unwrap())
        .collect();
    assert_eq!(tokens(&content), 7, "{content}");
    assert_eq!(chunks[8]["choices"][0]["delta"], json!({}));
    assert_eq!(chunks[8]["choices"][0]["finish_reason"], "length");
    assert_eq!(chunks[9]["choices"], json!([]));
    // "Hello world" = 2 tokens; + 3 per message + 1 for the role + 3 to prime the reply.
    assert_eq!(
        chunks[9]["usage"],
        json!({"prompt_tokens": 9, "total_tokens": 16, "completion_tokens": 7})
    );
    assert_eq!(events[10], "[DONE]");
    server.shutdown().await;
}

#[tokio::test]
async fn streaming_completions_with_continuous_usage_and_chunking() {
    let mut config = fixed(5.0, 1.0);
    config.tokens_per_chunk = 4;
    let server = start(config).await;
    let http = client();
    let body = json!({"model": "m", "prompt": "Hello world", "max_tokens": 10, "stream": true,
        "ignore_eos": true, "stream_options": {"continuous_usage_stats": true}});
    let reply = post(&http, server.addr(), "/v1/completions", body).await;
    let chunks = reply.content_chunks();
    // The first token alone, then 4 at a time: 1 + 4 + 4 + 1.
    let counts: Vec<usize> = chunks
        .iter()
        .map(|c| tokens(c["choices"][0]["text"].as_str().unwrap()))
        .collect();
    assert_eq!(counts, [1, 4, 4, 1]);
    let cumulative: Vec<u64> = chunks
        .iter()
        .map(|c| c["usage"]["completion_tokens"].as_u64().unwrap())
        .collect();
    assert_eq!(cumulative, [1, 5, 9, 10]);
    assert_eq!(chunks[0]["object"], "text_completion");
    assert_eq!(chunks[0]["usage"]["prompt_tokens"], 2);
    let events = reply.events();
    let finish: Value = serde_json::from_str(&events[events.len() - 2]).unwrap();
    assert_eq!(finish["choices"][0]["finish_reason"], "length");
    assert_eq!(events.last().unwrap(), "[DONE]");
    server.shutdown().await;
}

#[tokio::test]
async fn whole_responses_carry_usage() {
    let server = start(SimConfig::default()).await;
    let http = client();
    let chat = post(&http, server.addr(), "/v1/chat/completions", chat(5, false))
        .await
        .json();
    assert_eq!(chat["object"], "chat.completion");
    assert_eq!(chat["choices"][0]["message"]["role"], "assistant");
    let content = chat["choices"][0]["message"]["content"].as_str().unwrap();
    assert_eq!(tokens(content), 5);
    assert_eq!(chat["usage"]["completion_tokens"], 5);
    assert_eq!(chat["usage"]["prompt_tokens"], 9);
    let body = json!({"prompt": "Hello world", "max_tokens": 3, "ignore_eos": true});
    let cmpl = post(&http, server.addr(), "/v1/completions", body).await;
    assert_eq!(
        cmpl.headers["content-length"],
        cmpl.text().len().to_string().as_str()
    );
    let cmpl = cmpl.json();
    assert_eq!(cmpl["object"], "text_completion");
    assert_eq!(cmpl["model"], "plateau-sim");
    assert_eq!(tokens(cmpl["choices"][0]["text"].as_str().unwrap()), 3);
    assert_eq!(cmpl["usage"]["total_tokens"], 5);
    server.shutdown().await;
}

#[tokio::test]
async fn keepalive_comments_until_the_first_token() {
    let mut config = fixed(100.0, 1.0);
    config.keepalive_ms = 20;
    let server = start(config).await;
    let reply = post(
        &client(),
        server.addr(),
        "/v1/chat/completions",
        chat(3, true),
    )
    .await;
    let events = reply.events();
    let first_data = events.iter().position(|e| e.starts_with('{')).unwrap();
    assert!(first_data >= 3, "{events:?}");
    assert!(
        events[..first_data].iter().all(|e| e == ": keep-alive"),
        "{events:?}"
    );
    assert!(
        !events[first_data..].iter().any(|e| e == ": keep-alive"),
        "{events:?}"
    );
    server.shutdown().await;
}

#[tokio::test]
async fn models_health_and_routing() {
    let server = start(fixed(1.0, 1.0)).await;
    let http = client();
    let models = get(&http, server.addr(), "/v1/models").await.json();
    assert_eq!(models["object"], "list");
    assert_eq!(models["data"][0]["id"], "plateau-sim");
    assert_eq!(models["data"][0]["object"], "model");
    let version = get(&http, server.addr(), "/version").await;
    assert_eq!(version.status, 200);
    assert_eq!(
        version.json(),
        json!({"version": env!("CARGO_PKG_VERSION")})
    );
    let health = get(&http, server.addr(), "/health").await;
    assert_eq!((health.status, health.text().as_str()), (200, ""));
    let missing = get(&http, server.addr(), "/v2/nothing").await;
    assert_eq!(missing.status, 404);
    assert_eq!(missing.json()["error"]["code"], 404);
    assert_eq!(
        get(&http, server.addr(), "/v1/completions").await.status,
        405
    );
    server.shutdown().await;

    let mut config = fixed(1.0, 1.0);
    config.served_models = vec!["a/one".into(), "b/two".into()];
    let server = start(config).await;
    let models = get(&http, server.addr(), "/v1/models").await.json();
    let ids: Vec<&str> = models["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["a/one", "b/two"]);
    let body = json!({"model": "c", "messages": []});
    let reply = post(&http, server.addr(), "/v1/chat/completions", body).await;
    assert_eq!(reply.status, 404);
    let err = reply.json();
    assert_eq!(err["error"]["type"], "NotFoundError");
    assert!(err["error"]["message"].as_str().unwrap().contains("`c`"));
    let body = json!({"model": "b/two", "messages": [], "max_tokens": 1});
    assert_eq!(
        post(&http, server.addr(), "/v1/chat/completions", body)
            .await
            .status,
        200
    );
    server.shutdown().await;
}

#[tokio::test]
async fn bad_requests_get_400_naming_the_field() {
    let server = start(fixed(1.0, 1.0)).await;
    let http = client();
    let cases = [
        ("/v1/chat/completions", "{\"model\": ", "invalid JSON body"),
        ("/v1/chat/completions", r#"{"model": "m"}"#, "`messages`"),
        ("/v1/completions", r#"{"model": "m"}"#, "`prompt`"),
        (
            "/v1/completions",
            r#"{"prompt": "x", "max_tokens": -1}"#,
            "`max_tokens`",
        ),
    ];
    for (path, body, field) in cases {
        let reply = send(&http, server.addr(), "POST", path, body).await;
        assert_eq!(reply.status, 400, "{body}");
        let err = reply.json();
        assert_eq!(err["error"]["type"], "BadRequestError");
        assert_eq!(err["error"]["code"], 400);
        let message = err["error"]["message"].as_str().unwrap();
        assert!(message.contains(field), "{body}: {message}");
    }
    server.shutdown().await;
}

#[tokio::test]
async fn metrics_use_vllm_names_and_count() {
    let server = start(SimConfig {
        served_models: vec!["m".into()],
        ..SimConfig::default()
    })
    .await;
    let http = client();
    // A long shared prompt: the second request hits the prefix cache.
    let long = "the quick brown fox jumps over the lazy dog ".repeat(40);
    for _ in 0..2 {
        let body = json!({"model": "m", "prompt": long, "max_tokens": 4, "ignore_eos": true});
        assert_eq!(
            post(&http, server.addr(), "/v1/completions", body)
                .await
                .status,
            200
        );
    }
    let reply = get(&http, server.addr(), "/metrics").await;
    assert!(
        reply.headers["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/plain")
    );
    let text = reply.text();
    for name in [
        "vllm:num_requests_running",
        "vllm:num_requests_waiting",
        "vllm:kv_cache_usage_perc",
        "vllm:prefix_cache_queries_total",
        "vllm:prefix_cache_hits_total",
        "vllm:prompt_tokens_total",
        "vllm:generation_tokens_total",
        "vllm:request_success_total",
    ] {
        assert!(text.contains(&format!("# HELP {name} ")), "{name}");
        assert!(text.contains(&format!("# TYPE {name} ")), "{name}");
        assert!(text.contains(&format!("{name}{{")), "{name}");
    }
    assert!(text.contains("model_name=\"m\""));
    let prompt = tokens(&long) as f64;
    assert_eq!(
        metric(&http, server.addr(), "vllm:prompt_tokens_total").await,
        2.0 * prompt
    );
    assert_eq!(
        metric(&http, server.addr(), "vllm:generation_tokens_total").await,
        8.0
    );
    assert_eq!(
        metric(&http, server.addr(), "vllm:prefix_cache_queries_total").await,
        2.0 * prompt
    );
    let hits = metric(&http, server.addr(), "vllm:prefix_cache_hits_total").await;
    // The second prompt's whole blocks, less the last token if they cover all of it.
    assert_eq!(hits, ((prompt / 16.0).floor() * 16.0).min(prompt - 1.0));
    assert!(
        text.contains(
            "vllm:request_success_total{finished_reason=\"length\",model_name=\"m\"} 2.0"
        )
    );
    assert_eq!(
        metric(&http, server.addr(), "vllm:num_requests_running").await,
        0.0
    );
    server.shutdown().await;
}
