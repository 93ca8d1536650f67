//! The servers and models of a run: `endpoints[]` (URL, engine, API, headers, labels,
//! hardware) and `models[]`, with the engine and API names as users write them.

use std::collections::BTreeMap;
use std::path::PathBuf;

use schemars::JsonSchema;
use serde::{Deserialize, Deserializer, Serialize};

use super::named::{self, Named};

/// One server.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EndpointConfig {
    /// Short name, used in result paths.
    pub name: String,
    /// Base URL including `/v1`; `sim://` or absent with engine `sim` starts the simulator
    /// in-process.
    #[serde(default)]
    pub url: Option<String>,
    /// Which server this is; selects request extras, never a metric definition.
    pub engine: Engine,
    /// Chat or completions API.
    #[serde(default)]
    pub api: Api,
    /// Name of the environment variable holding the API key, sent as a bearer token; the key
    /// itself never reaches a log or a result file.
    #[serde(default)]
    pub api_key_env: Option<String>,
    /// Extra HTTP headers sent with every request, as `{name, value}` (values never reach a
    /// log or a result file).
    #[serde(default)]
    pub headers: Vec<HeaderConfig>,
    /// Session affinity: the name of a header sent on every turn of a session, valued the
    /// session's id (`X-Session-ID`, `x-session-affinity`, ...), for routers that keep a
    /// session on one replica.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_header: Option<String>,
    /// Extra JSON fields merged into every request body; fields plateau sets itself (`model`,
    /// `messages`, `stream`, `max_tokens`, ...) are refused, use the top-level keys.
    #[serde(default)]
    pub extra_body: serde_json::Map<String, serde_json::Value>,
    /// Settings of the in-process simulator (engine `sim` only): a preset name
    /// (`realistic`, `fixed`, `faulty`) or an object of its settings (`SimConfig` in
    /// `cargo doc -p plateau-sim`).
    #[serde(default)]
    pub sim: Option<serde_json::Value>,
    /// What plateau cannot see, as the user names it (`{"quantization": "fp8", "tp": "2"}`):
    /// kept in `run.json` and every cell's summary, never sent.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub labels: BTreeMap<String, String>,
    /// The hardware behind the endpoint: gives per-GPU throughput and cost per token.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hardware: Option<HardwareConfig>,
    /// The proxy this endpoint's requests go through, instead of the environment's
    /// (`HTTPS_PROXY`, `HTTP_PROXY`, `ALL_PROXY`, `NO_PROXY`): a URL
    /// (`http://user:password@proxy:3128`, `socks5://...`, `socks5h://...`), `"none"` to go
    /// direct, or `{"url": ..., "tunnel": true}` to send plain http through a CONNECT
    /// tunnel too.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub proxy: Option<ProxyConfig>,
    /// TLS for an https URL: a private CA, a client certificate (mutual TLS), the name to
    /// check.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tls: Option<TlsConfig>,
}

/// An endpoint's proxy: its URL (`"none"`: no proxy), or the URL and whether plain http
/// tunnels through it too.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum ProxyConfig {
    /// `http://[user:password@]host:port`, `socks5://...`, `socks5h://...`, or `none`.
    Url(String),
    /// The URL and the tunnel switch.
    Full {
        /// The proxy's URL.
        url: String,
        /// Send plain http through a CONNECT tunnel too (https always is).
        #[serde(default)]
        tunnel: bool,
    },
}

impl ProxyConfig {
    /// The URL, and whether plain http tunnels.
    pub fn parts(&self) -> (&str, bool) {
        match self {
            ProxyConfig::Url(url) => (url, false),
            ProxyConfig::Full { url, tunnel } => (url, *tunnel),
        }
    }
}

/// An endpoint's TLS settings; every key optional.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TlsConfig {
    /// PEM file of the CA certificate(s) to trust besides the system's and the web's roots
    /// (a private CA).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ca_file: Option<PathBuf>,
    /// PEM file of the client certificate (chain) to present (mutual TLS).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_cert: Option<PathBuf>,
    /// PEM file of the client certificate's private key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_key: Option<PathBuf>,
    /// The name to check the server's certificate against (and send as SNI) instead of
    /// the URL's host.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_name: Option<String>,
    /// Accept any certificate. Anyone on the path can then read and change the traffic:
    /// plateau warns on every run and marks it in run.json.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub insecure_skip_verify: bool,
}

/// The hardware behind an endpoint, as the user states it; every key optional.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HardwareConfig {
    /// Accelerator model, e.g. `H100 80GB`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gpu: Option<String>,
    /// Accelerators serving the endpoint (at least 1): output throughput is divided by it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gpu_count: Option<u32>,
    /// What the whole endpoint costs to run, USD per hour (0 or more).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_per_hour: Option<f64>,
}

/// One HTTP header.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HeaderConfig {
    /// Header name.
    pub name: String,
    /// Header value.
    pub value: String,
}

/// One model.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ModelConfig {
    /// Short id, used in result paths.
    pub id: String,
    /// The name the server knows it by (the request's `model`).
    pub name: String,
}

/// The server software behind an endpoint.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Engine {
    /// vLLM.
    Vllm,
    /// SGLang.
    Sglang,
    /// NVIDIA NIM.
    Nim,
    /// Hugging Face Text Generation Inference.
    Tgi,
    /// llama.cpp server.
    Llamacpp,
    /// Any other OpenAI-compatible server, hosted APIs included.
    Openai,
    /// plateau's simulated engine.
    Sim,
}

impl Engine {
    /// Whether the server honours `ignore_eos` in request bodies.
    pub fn supports_ignore_eos(self) -> bool {
        matches!(
            self,
            Engine::Vllm | Engine::Sglang | Engine::Nim | Engine::Llamacpp | Engine::Sim
        )
    }

    /// Whether the server sends `usage` on every chunk when asked with
    /// `stream_options.continuous_usage_stats` (vLLM's extension).
    pub fn supports_continuous_usage(self) -> bool {
        matches!(self, Engine::Vllm | Engine::Sim)
    }

    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Engine::Vllm => "vllm",
            Engine::Sglang => "sglang",
            Engine::Nim => "nim",
            Engine::Tgi => "tgi",
            Engine::Llamacpp => "llamacpp",
            Engine::Openai => "openai",
            Engine::Sim => "sim",
        }
    }
}

/// Which OpenAI API the requests use.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Api {
    /// `/v1/chat/completions`.
    #[default]
    Chat,
    /// `/v1/completions`.
    Completions,
}

impl Named for Engine {
    const ALL: &'static [Engine] = &[
        Engine::Vllm,
        Engine::Sglang,
        Engine::Nim,
        Engine::Tgi,
        Engine::Llamacpp,
        Engine::Openai,
        Engine::Sim,
    ];
    const NAMES: &'static [&'static str] =
        &["vllm", "sglang", "nim", "tgi", "llamacpp", "openai", "sim"];
}

impl<'de> Deserialize<'de> for Engine {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        named::deserialize(d)
    }
}

impl Named for Api {
    const ALL: &'static [Api] = &[Api::Chat, Api::Completions];
    const NAMES: &'static [&'static str] = &["chat", "completions"];
}

impl<'de> Deserialize<'de> for Api {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        named::deserialize(d)
    }
}
