//! `server_traces`: receiving the servers' own spans (OTLP/HTTP) to join each request to the
//! server's timing of it.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Where plateau listens for the servers' spans, and its bounds. Point the engine's
/// `--otlp-traces-endpoint` at `http://<listen>/v1/traces` (HTTP/protobuf); the in-process
/// simulator is pointed there by itself.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ServerTracesConfig {
    /// `host:port` to listen on (default `127.0.0.1:4318`, the OTLP/HTTP port); port 0
    /// picks a free one, printed when the run starts.
    #[serde(default = "default_listen")]
    pub listen: String,
    /// Longest wait after a cell's last request for the spans of its requests, s (default
    /// 10: vLLM's and SGLang's exporters batch spans for up to 5 s). The wait ends as soon
    /// as every successful request has its span.
    #[serde(default = "default_wait")]
    pub wait_seconds: f64,
    /// Most spans held between two cells' joins (default 500000); more are dropped and
    /// counted.
    #[serde(default = "default_max_spans")]
    pub max_spans: usize,
    /// Largest export request accepted, bytes (default 16 MiB); larger ones are refused
    /// with 413 and counted.
    #[serde(default = "default_max_body")]
    pub max_body_bytes: usize,
}

impl Default for ServerTracesConfig {
    fn default() -> Self {
        ServerTracesConfig {
            listen: default_listen(),
            wait_seconds: default_wait(),
            max_spans: default_max_spans(),
            max_body_bytes: default_max_body(),
        }
    }
}

fn default_listen() -> String {
    "127.0.0.1:4318".into()
}

fn default_wait() -> f64 {
    10.0
}

fn default_max_spans() -> usize {
    500_000
}

fn default_max_body() -> usize {
    16 << 20
}
