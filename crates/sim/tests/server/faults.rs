//! Each fault kind, observed by a client.

use std::time::Duration;

use plateau_sim::SimConfig;
use serde_json::{Value, json};

use crate::client::*;

fn with_fault(set: impl FnOnce(&mut plateau_sim::FaultConfig)) -> SimConfig {
    let mut config = fixed(5.0, 2.0);
    set(&mut config.faults);
    config
}

fn chat(stream: bool) -> Value {
    json!({"model": "m", "messages": [{"role": "user", "content": "hi"}],
        "max_tokens": 20, "stream": stream, "ignore_eos": true})
}

#[tokio::test]
async fn http_errors() {
    let http = client();
    let server = start(with_fault(|f| f.http_500_rate = 1.0)).await;
    let reply = post(&http, server.addr(), "/v1/chat/completions", chat(true)).await;
    assert_eq!(reply.status, 500);
    assert_eq!(reply.json()["error"]["code"], 500);
    server.shutdown().await;

    let server = start(with_fault(|f| f.http_429_rate = 1.0)).await;
    let reply = post(
        &http,
        server.addr(),
        "/v1/completions",
        json!({"prompt": "x"}),
    )
    .await;
    assert_eq!(reply.status, 429);
    assert_eq!(reply.headers["retry-after"], "1");
    assert_eq!(reply.json()["error"]["type"], "RateLimitError");
    server.shutdown().await;
}

#[tokio::test]
async fn disconnect_cuts_the_stream_without_done() {
    let http = client();
    let server = start(with_fault(|f| f.disconnect_rate = 1.0)).await;
    for _ in 0..3 {
        let reply = post(&http, server.addr(), "/v1/chat/completions", chat(true)).await;
        assert_eq!(reply.status, 200);
        assert!(reply.error.is_some(), "the body must end in an error");
        // The cut comes after 1 to 19 of 20 tokens, but hyper drops the connection on the
        // body's error and may drop the frame it had not flushed yet with it (seen 1 run in 5
        // on a loaded machine): 0 is possible, all 20 never.
        let n = reply.content_chunks().len();
        assert!(n < 20, "{n} content chunks before the cut");
        assert!(!reply.text().contains("[DONE]"));
    }
    // Non-streaming: the connection drops before the response completes.
    let reply = post(&http, server.addr(), "/v1/chat/completions", chat(false)).await;
    assert!(reply.error.is_some());
    assert!(reply.frames.is_empty());
    server.shutdown().await;
}

#[tokio::test]
async fn error_event_mid_stream() {
    let http = client();
    let server = start(with_fault(|f| f.error_event_rate = 1.0)).await;
    let reply = post(&http, server.addr(), "/v1/chat/completions", chat(true)).await;
    assert_eq!(reply.status, 200);
    assert!(reply.error.is_none());
    let events = reply.events();
    let n = reply.content_chunks().len();
    assert!((1..20).contains(&n), "{events:?}");
    let error: Value = serde_json::from_str(&events[events.len() - 2]).unwrap();
    assert_eq!(error["error"]["code"], 500);
    assert_eq!(events.last().unwrap(), "[DONE]");
    assert!(!reply.text().contains("finish_reason\":\"length"));
    let reply = post(&http, server.addr(), "/v1/chat/completions", chat(false)).await;
    assert_eq!(reply.status, 500);
    server.shutdown().await;
}

#[tokio::test]
async fn stall_sends_headers_then_nothing_until_the_client_leaves() {
    let http = client();
    let mut config = with_fault(|f| f.stall_rate = 1.0);
    config.profile = plateau_sim::Profile::Realistic;
    let server = start(config).await;
    let req = http::Request::post(format!("http://{}/v1/chat/completions", server.addr()))
        .body(http_body_util::Full::new(bytes::Bytes::from(
            chat(true).to_string(),
        )))
        .unwrap();
    let res = http.request(req).await.unwrap();
    assert_eq!(res.status(), 200);
    let mut body = res.into_body();
    use http_body_util::BodyExt as _;
    let waited = tokio::time::timeout(Duration::from_millis(300), body.frame()).await;
    assert!(waited.is_err(), "no frame may arrive");
    drop(body);
    // Non-streaming: not even headers.
    let req = http::Request::post(format!("http://{}/v1/completions", server.addr()))
        .body(http_body_util::Full::new(bytes::Bytes::from(
            r#"{"prompt": "x"}"#,
        )))
        .unwrap();
    let waited = tokio::time::timeout(Duration::from_millis(300), http.request(req)).await;
    assert!(waited.is_err(), "no response may arrive");
    assert_eq!(
        metric(&http, server.addr(), "vllm:num_requests_running").await,
        0.0
    );
    server.shutdown().await;
}

#[tokio::test]
async fn faulty_preset_mixes_outcomes() {
    let mut config = SimConfig::from_profile("faulty").unwrap();
    config.faults.http_500_rate = 0.5;
    config.faults.error_event_rate = 0.2;
    config.faults.stall_rate = 0.0;
    let server = start(config).await;
    let http = client();
    let mut statuses = std::collections::BTreeMap::new();
    for _ in 0..16 {
        let body = json!({"prompt": "x", "max_tokens": 3, "stream": true});
        let reply = post(&http, server.addr(), "/v1/completions", body).await;
        *statuses.entry(reply.status).or_insert(0) += 1;
    }
    assert!(
        statuses.contains_key(&500) && statuses.contains_key(&200),
        "{statuses:?}"
    );
    server.shutdown().await;
}

#[tokio::test]
async fn disconnect_writes_buffered_tokens_before_cutting() {
    // Every token is buffered until the cut (after 1..19 of 20): they must still arrive.
    let mut config = with_fault(|f| f.disconnect_rate = 1.0);
    config.wire.whole_stream_at_end = true;
    let server = start(config).await;
    let http = client();
    for _ in 0..5 {
        let reply = post(&http, server.addr(), "/v1/chat/completions", chat(true)).await;
        assert!(reply.error.is_some(), "the body must end in an error");
        let n = reply.content_chunks().len();
        assert!((1..20).contains(&n), "{n} content chunks before the cut");
        assert_eq!(reply.frames.len(), 1, "one write, then the cut");
        assert!(!reply.text().contains("[DONE]"));
    }
    server.shutdown().await;
}
