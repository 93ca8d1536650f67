//! What a server says of its own configuration, asked once at the start of a run and kept
//! in `run.json`: vLLM's `/version`, SGLang's `/get_server_info` and `/get_model_info`,
//! TGI's `/info`, llama.cpp's `/props`, the simulator's `/version` ([`paths`]). Each GET
//! has a short timeout and the endpoint's auth and extra headers; a failure is recorded
//! beside the path, never fatal. Every answer is [`redact()`]ed before it is kept (SGLang's
//! server info holds its `api_key`) and cut to [`MAX_STORED`] bytes.

use std::collections::BTreeMap;
use std::time::Duration;

use serde_json::Value;

use crate::plan::{BaseUrl, Endpoint};
use crate::wire;
use plateau_http::Client;
use plateau_model::config::Engine;

mod redact;

pub use plateau_model::results::server_info::{MAX_STORED, Response, ServerInfo};
pub use redact::{REDACTED, redact};

/// How long one GET may take.
pub const TIMEOUT: Duration = Duration::from_secs(5);

/// Records in `info` the labels of a Prometheus `*_info` metric named `metric`, redacted like
/// every other answer (a label may carry a token).
pub fn add_info_metric(
    info: &mut ServerInfo,
    endpoint: &Endpoint,
    metric: &str,
    labels: BTreeMap<String, String>,
) {
    let mut value = serde_json::to_value(labels).unwrap_or(Value::Null);
    redact(endpoint, &mut value);
    let labels = match value {
        Value::Object(map) => map
            .into_iter()
            .map(|(k, v)| (k, v.as_str().map_or_else(|| v.to_string(), str::to_owned)))
            .collect(),
        _ => BTreeMap::new(),
    };
    info.info_metrics.insert(metric.to_owned(), labels);
}

/// The root paths where `engine` describes itself (`/v1/models`, asked by preflight for
/// every engine, is kept in the endpoint's `models`).
pub fn paths(engine: Engine) -> &'static [&'static str] {
    match engine {
        Engine::Vllm | Engine::Sim => &["/version"],
        Engine::Sglang => &["/get_server_info", "/get_model_info"],
        Engine::Tgi => &["/info"],
        Engine::Llamacpp => &["/props"],
        Engine::Nim | Engine::Openai => &[],
    }
}

/// Asks `endpoint` at `base` each of its engine's [`paths`], one after another.
pub async fn capture(client: &Client, endpoint: &Endpoint, base: &BaseUrl) -> ServerInfo {
    let mut responses = Vec::new();
    for path in paths(endpoint.engine) {
        responses.push(get(client, endpoint, base, path).await);
    }
    let mut info = ServerInfo {
        responses,
        info_metrics: BTreeMap::new(),
    };
    // Engines also state their configuration as Prometheus `*_info` metrics (vLLM's
    // `vllm:cache_config_info`); a server without `/metrics` simply has none.
    if let Ok(uri) = crate::scrape::metrics_uri(base) {
        let headers = wire::of(endpoint).auth_headers(endpoint);
        if let Ok(text) = client.get_text(uri, &headers, TIMEOUT).await {
            for (metric, labels) in crate::scrape::info_labels(&text) {
                add_info_metric(&mut info, endpoint, &metric, labels);
            }
        }
    }
    info
}

/// The endpoint's `/v1/models` answer as JSON, redacted; `None` when it gave none (for a
/// run whose preflight did not ask).
pub async fn models(client: &Client, endpoint: &Endpoint, base: &BaseUrl) -> Option<Value> {
    let uri = base.join("models").ok()?;
    let r = fetch(client, endpoint, uri, "/v1/models").await;
    match (r.status, r.body, r.truncated) {
        (Some(200..=299), Some(body @ (Value::Object(_) | Value::Array(_))), false) => Some(body),
        _ => None,
    }
}

/// GETs `path` at the server's root.
async fn get(client: &Client, endpoint: &Endpoint, base: &BaseUrl, path: &str) -> Response {
    match base.join_root(path) {
        Ok(uri) => fetch(client, endpoint, uri, path).await,
        Err(e) => failed(path, format!("no URL for it: {e}")),
    }
}

async fn fetch(client: &Client, endpoint: &Endpoint, uri: http::Uri, path: &str) -> Response {
    let wire = wire::of(endpoint);
    let headers = wire.auth_headers(endpoint);
    let (status, bytes) = match client.get(uri, &headers, TIMEOUT).await {
        Ok(answer) => answer,
        Err(e) => return failed(path, endpoint.scrub(&e.to_string())),
    };
    if !status.is_success() {
        return Response {
            status: Some(status.as_u16()),
            ..failed(path, status.to_string())
        };
    }
    let (body, truncated) = keep(endpoint, &bytes);
    Response {
        path: path.to_owned(),
        status: Some(status.as_u16()),
        body: Some(body),
        truncated,
        error: None,
    }
}

fn failed(path: &str, error: String) -> Response {
    Response {
        path: path.to_owned(),
        status: None,
        body: None,
        truncated: false,
        error: Some(error),
    }
}

/// An answer as kept: JSON redacted whole, then cut to text when too long; text scrubbed
/// of the endpoint's secrets, then cut. Whether it was cut.
fn keep(endpoint: &Endpoint, bytes: &[u8]) -> (Value, bool) {
    let text = match serde_json::from_slice::<Value>(bytes) {
        Ok(mut json) => {
            redact(endpoint, &mut json);
            let compact = json.to_string();
            if compact.len() <= MAX_STORED {
                return (json, false);
            }
            compact
        }
        Err(_) => endpoint.scrub(&String::from_utf8_lossy(bytes)),
    };
    let (cut, truncated) = cut(&text, MAX_STORED);
    (Value::String(cut.to_owned()), truncated)
}

/// At most `max` bytes of `text`, ending on a character boundary; whether it was cut.
fn cut(text: &str, max: usize) -> (&str, bool) {
    if text.len() <= max {
        return (text, false);
    }
    let end = (0..=max)
        .rev()
        .find(|&i| text.is_char_boundary(i))
        .unwrap_or(0);
    (&text[..end], true)
}

#[cfg(test)]
mod tests;
