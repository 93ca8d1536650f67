//! What a server said of itself (its `/version`, `/info`, `/props` answers and `*_info`
//! metrics), as run.json stores it per endpoint.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The most bytes of one answer kept (as compact JSON, or as text).
pub const MAX_STORED: usize = 64 * 1024;

/// What the server said of itself, path by path.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ServerInfo {
    /// One entry per path asked, in the order asked.
    pub responses: Vec<Response>,
    /// The labels of the server's Prometheus `*_info` metrics (vLLM's `cache_config_info`
    /// and the like), by metric name: the server's configuration as its metrics state it.
    /// Filled by whoever reads `/metrics` (core's `server_info::add_info_metric`); empty until then.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub info_metrics: BTreeMap<String, BTreeMap<String, String>>,
}

/// One path's answer, or why there is none.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Response {
    /// The path asked, from the server's root (`/version`).
    pub path: String,
    /// HTTP status, when the server answered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
    /// The answer, secrets redacted: JSON as sent, or text when it is not JSON or its
    /// redacted form is over [`MAX_STORED`] bytes (then cut, and `truncated` set).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body: Option<Value>,
    /// `body` is the first [`MAX_STORED`] bytes of a longer answer.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub truncated: bool,
    /// Why there is no answer: `404 Not Found`, a timeout, a refused connection.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}
