//! A small HTTP client for the tests: requests with timestamps per body frame, SSE splitting.

use std::net::SocketAddr;
use std::time::Duration;

use bytes::Bytes;
use http::{HeaderMap, Request};
use http_body_util::{BodyExt as _, Full};
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use plateau_sim::{Server, SimConfig};
use serde_json::Value;
use tokio::time::Instant;

pub type Http = Client<HttpConnector, Full<Bytes>>;

pub fn client() -> Http {
    Client::builder(TokioExecutor::new()).build_http()
}

pub async fn start(config: SimConfig) -> Server {
    Server::start("127.0.0.1:0".parse().unwrap(), config)
        .await
        .unwrap()
}

pub fn fixed(ttft_ms: f64, itl_ms: f64) -> SimConfig {
    let mut config = SimConfig::from_profile("fixed").unwrap();
    config.fixed.ttft_ms = ttft_ms;
    config.fixed.itl_ms = itl_ms;
    config
}

/// One response (status 0 when no response head arrived): status, headers, body frames with their arrival instants, the body error.
pub struct Reply {
    pub status: u16,
    pub headers: HeaderMap,
    pub sent: Instant,
    pub frames: Vec<(Instant, Bytes)>,
    pub error: Option<String>,
}

impl Reply {
    pub fn text(&self) -> String {
        let bytes: Vec<u8> = self.frames.iter().flat_map(|(_, b)| b.to_vec()).collect();
        String::from_utf8(bytes).unwrap()
    }

    pub fn json(&self) -> Value {
        serde_json::from_str(&self.text()).unwrap()
    }

    /// SSE events (`data:` payloads and `:` comments), in order.
    pub fn events(&self) -> Vec<String> {
        self.text()
            .split_terminator("\n\n")
            .map(|e| e.strip_prefix("data: ").unwrap_or(e).to_owned())
            .collect()
    }

    /// The `data:` payloads that are JSON chunks with content (chat delta or completion text).
    pub fn content_chunks(&self) -> Vec<Value> {
        self.events()
            .iter()
            .filter_map(|e| serde_json::from_str::<Value>(e).ok())
            .filter(|v| {
                let c = &v["choices"][0];
                let text = c["delta"]["content"].as_str().or(c["text"].as_str());
                text.is_some_and(|t| !t.is_empty())
            })
            .collect()
    }

    /// Arrival instants of the frames that carry content.
    pub fn content_times(&self) -> Vec<Instant> {
        self.frames
            .iter()
            .filter(|(_, b)| {
                let s = String::from_utf8_lossy(b);
                s.contains(r#""delta":{"content":" "#) || s.contains(r#""text":" "#)
            })
            .map(|(t, _)| *t)
            .collect()
    }
}

pub async fn send(client: &Http, addr: SocketAddr, method: &str, path: &str, body: &str) -> Reply {
    let req = Request::builder()
        .method(method)
        .uri(format!("http://{addr}{path}"))
        .header("content-type", "application/json")
        .body(Full::new(Bytes::from(body.to_owned())))
        .unwrap();
    let sent = Instant::now();
    let res = match client.request(req).await {
        Ok(res) => res,
        Err(e) => {
            return Reply {
                status: 0,
                headers: HeaderMap::new(),
                sent,
                frames: Vec::new(),
                error: Some(e.to_string()),
            };
        }
    };
    let (parts, mut body) = res.into_parts();
    let mut frames = Vec::new();
    let mut error = None;
    loop {
        match body.frame().await {
            None => break,
            Some(Ok(frame)) => {
                let now = Instant::now();
                if let Ok(data) = frame.into_data() {
                    frames.push((now, data));
                }
            }
            Some(Err(e)) => {
                error = Some(e.to_string());
                break;
            }
        }
    }
    Reply {
        status: parts.status.as_u16(),
        headers: parts.headers,
        sent,
        frames,
        error,
    }
}

pub async fn post(client: &Http, addr: SocketAddr, path: &str, body: Value) -> Reply {
    send(client, addr, "POST", path, &body.to_string()).await
}

pub async fn get(client: &Http, addr: SocketAddr, path: &str) -> Reply {
    send(client, addr, "GET", path, "").await
}

/// The value of an unlabelled-or-`model_name`-only sample in `/metrics`.
pub async fn metric(client: &Http, addr: SocketAddr, name: &str) -> f64 {
    let text = get(client, addr, "/metrics").await.text();
    let line = text
        .lines()
        .find(|l| l.starts_with(&format!("{name}{{")))
        .unwrap_or_else(|| panic!("{name} missing from:\n{text}"));
    line.rsplit(' ').next().unwrap().parse().unwrap()
}

/// Polls a metric until it equals `want` (or panics after 5 s).
pub async fn wait_metric(client: &Http, addr: SocketAddr, name: &str, want: f64) {
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let got = metric(client, addr, name).await;
        if got == want {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "{name} stuck at {got}, want {want}"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

pub fn tokens(text: &str) -> usize {
    tiktoken_rs::cl100k_base_singleton()
        .encode_ordinary(text)
        .len()
}

pub fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

pub fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}
