//! Server info against a small HTTP server on 127.0.0.1 that answers like SGLang (its
//! `api_key` included), fails one path and serves text on another.

use std::sync::{Arc, Mutex};

use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

use super::*;
use crate::plan::{Plan, Target};
use plateau_model::config::RunConfig;

const KEY: &str = "sk-live-abcdef123456";

/// An endpoint of `engine` at `url` whose API key comes from `PLATEAU_TEST_KEY`, with an
/// extra header.
fn endpoint(engine: &str, url: &str) -> Endpoint {
    let config: RunConfig = serde_json::from_value(json!({
        "endpoints": [{
            "name": "e", "url": url, "engine": engine, "api_key_env": "PLATEAU_TEST_KEY",
            "headers": [{"name": "X-Team", "value": "bench"}]
        }],
        "models": [{"id": "m", "name": "m"}],
        "batch_sizes": [1]
    }))
    .unwrap();
    let env = |name: &str| (name == "PLATEAU_TEST_KEY").then(|| KEY.to_owned());
    Plan::build(&config, &env).unwrap().endpoints.remove(0)
}

/// Serves each connection's requests from `answer(path) -> (status line, content type,
/// body)` until the test ends, keeping every request head it read.
async fn serve(
    answer: fn(&str) -> (&'static str, &'static str, String),
) -> (String, Arc<Mutex<Vec<String>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let heads = Arc::new(Mutex::new(Vec::new()));
    let seen = heads.clone();
    tokio::spawn(async move {
        // Bounded: the tests ask at most a handful of paths.
        for _ in 0..16 {
            let Ok((mut sock, _)) = listener.accept().await else {
                return;
            };
            let seen = seen.clone();
            tokio::spawn(async move {
                let mut buf = Vec::new();
                let mut chunk = [0u8; 4096];
                while !buf.windows(4).any(|w| w == b"\r\n\r\n") {
                    match sock.read(&mut chunk).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => buf.extend_from_slice(&chunk[..n]),
                    }
                }
                let head = String::from_utf8_lossy(&buf).into_owned();
                let path = head.split_whitespace().nth(1).unwrap_or("").to_owned();
                seen.lock().unwrap().push(head);
                let (status, kind, body) = answer(&path);
                let reply = format!(
                    "HTTP/1.1 {status}\r\ncontent-type: {kind}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                    body.len()
                );
                let _ = sock.write_all(reply.as_bytes()).await;
            });
        }
    });
    (format!("http://{addr}/v1"), heads)
}

fn sglang(path: &str) -> (&'static str, &'static str, String) {
    match path {
        "/get_server_info" => (
            "200 OK",
            "application/json",
            json!({
                "model_path": "meta-llama/Llama-3.1-8B-Instruct",
                "api_key": KEY,
                "tp_size": 2,
                "max_total_num_tokens": 500_000,
                "nested": {"hf_token": "hf_abcdefgh", "Authorization": "Bearer xyz-987654"},
                "echo": [KEY, format!("key={KEY}")],
                "version": "0.4.6"
            })
            .to_string(),
        ),
        "/get_model_info" => ("404 Not Found", "text/plain", "no such route".into()),
        _ => ("500 Internal Server Error", "text/plain", String::new()),
    }
}

fn base(url: &str) -> BaseUrl {
    BaseUrl::parse(url).unwrap()
}

#[tokio::test]
async fn sglang_info_is_kept_redacted_and_a_404_is_recorded() {
    let (url, heads) = serve(sglang).await;
    let e = endpoint("sglang", &url);
    let client = Client::new(4).unwrap();
    let info = capture(&client, &e, &base(&url)).await;

    let paths: Vec<_> = info.responses.iter().map(|r| r.path.as_str()).collect();
    assert_eq!(paths, ["/get_server_info", "/get_model_info"]);
    let ok = &info.responses[0];
    assert_eq!(ok.status, Some(200));
    assert_eq!(ok.error, None);
    assert_eq!(
        ok.body,
        Some(json!({
            "model_path": "meta-llama/Llama-3.1-8B-Instruct",
            "api_key": REDACTED,
            "tp_size": 2,
            "max_total_num_tokens": 500_000,
            "nested": {"hf_token": REDACTED, "Authorization": REDACTED},
            "echo": [REDACTED, "key=***"],
            "version": "0.4.6"
        }))
    );
    let missing = &info.responses[1];
    assert_eq!(missing.status, Some(404));
    assert_eq!(missing.error.as_deref(), Some("404 Not Found"));
    assert_eq!(missing.body, None);
    let text = serde_json::to_string(&info).unwrap();
    assert!(!text.contains(KEY), "{text}");
    assert!(!text.contains("abcdef123456"), "{text}");

    // Every GET went to the server's root with the endpoint's key and extra header: the
    // two descriptions, then /metrics for `*_info` metrics (here a 404: none kept).
    let heads = heads.lock().unwrap().clone();
    assert_eq!(heads.len(), 3);
    assert!(
        heads[2].starts_with("GET /metrics HTTP/1.1"),
        "{}",
        heads[2]
    );
    assert!(info.info_metrics.is_empty());
    for head in &heads {
        let lower = head.to_ascii_lowercase();
        assert!(lower.contains(&format!(
            "authorization: bearer {}",
            KEY.to_ascii_lowercase()
        )));
        assert!(lower.contains("x-team: bench"), "{head}");
    }
    assert!(heads[0].starts_with("GET /get_server_info HTTP/1.1"));
}

fn llamacpp(path: &str) -> (&'static str, &'static str, String) {
    match path {
        // Not JSON, and longer than what is kept.
        "/props" => (
            "200 OK",
            "text/plain",
            format!("é{}", "x".repeat(MAX_STORED + 10)),
        ),
        "/v1/models" => (
            "200 OK",
            "application/json",
            json!({"object": "list", "data": [{"id": "tiny", "owned_by": KEY}]}).to_string(),
        ),
        _ => ("404 Not Found", "text/plain", String::new()),
    }
}

#[tokio::test]
async fn text_is_kept_cut_at_the_bound_and_models_are_redacted() {
    let (url, _) = serve(llamacpp).await;
    let e = endpoint("llamacpp", &url);
    let client = Client::new(4).unwrap();
    let info = capture(&client, &e, &base(&url)).await;
    let props = &info.responses[0];
    assert_eq!(props.path, "/props");
    assert!(props.truncated);
    let body = props.body.as_ref().and_then(Value::as_str).unwrap();
    // `é` is two bytes: the cut lands on MAX_STORED exactly.
    assert_eq!(body.len(), MAX_STORED);
    assert!(body.starts_with("éxxx"));

    let models = super::models(&client, &e, &base(&url)).await.unwrap();
    assert_eq!(
        models,
        json!({"object": "list", "data": [{"id": "tiny", "owned_by": REDACTED}]})
    );
}

#[tokio::test]
async fn an_unreachable_server_is_an_error_entry_not_a_failure() {
    // Bind then drop: nothing listens on this port.
    let addr = TcpListener::bind("127.0.0.1:0")
        .await
        .unwrap()
        .local_addr()
        .unwrap();
    let url = format!("http://{addr}/v1");
    let e = endpoint("vllm", &url);
    assert!(matches!(e.target, Target::Url(_)));
    let info = capture(&Client::new(2).unwrap(), &e, &base(&url)).await;
    assert_eq!(info.responses.len(), 1);
    let r = &info.responses[0];
    assert_eq!(r.path, "/version");
    assert_eq!(r.status, None);
    assert!(r.error.as_deref().is_some_and(|m| !m.is_empty()), "{r:?}");
}

#[test]
fn credential_keys_and_count_keys() {
    for key in [
        "api_key",
        "apiKey",
        "X-Api-Key",
        "openai_api_key",
        "hf_token",
        "access_token",
        "apiToken",
        "token",
        "client_secret",
        "password",
        "db_passwd",
        "Authorization",
        "proxy_authorization",
    ] {
        assert!(redact::is_secret_key(key), "{key}");
    }
    for key in [
        "max_total_tokens",
        "max_prefill_tokens",
        "tokenizer_path",
        "skip_tokenizer_init",
        "max_batch_total_tokens",
        "n_ctx",
        "model_path",
    ] {
        assert!(!redact::is_secret_key(key), "{key}");
    }
}

#[test]
fn info_metric_labels_are_redacted_too() {
    let e = endpoint("vllm", "http://127.0.0.1:9/v1");
    let mut info = ServerInfo::default();
    let labels = [
        ("block_size", "16"),
        ("hf_token", "hf_abcdefgh"),
        ("served", KEY),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v.to_owned()))
    .collect();
    add_info_metric(&mut info, &e, "vllm:cache_config_info", labels);
    let kept = &info.info_metrics["vllm:cache_config_info"];
    assert_eq!(kept["block_size"], "16");
    assert_eq!(kept["hf_token"], REDACTED);
    assert_eq!(kept["served"], REDACTED);
}

#[test]
fn each_engine_is_asked_its_own_paths() {
    assert_eq!(paths(Engine::Vllm), ["/version"]);
    assert_eq!(
        paths(Engine::Sglang),
        ["/get_server_info", "/get_model_info"]
    );
    assert_eq!(paths(Engine::Tgi), ["/info"]);
    assert_eq!(paths(Engine::Llamacpp), ["/props"]);
    assert_eq!(paths(Engine::Sim), ["/version"]);
    assert!(paths(Engine::Openai).is_empty());
}
