//! `server_metrics`: scraping the server's Prometheus `/metrics` during each cell.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Whether and how often to scrape the server's Prometheus `/metrics` during each cell.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ServerMetricsConfig {
    /// Scrape at all (default true; `false` turns scraping off).
    #[serde(default = "default_enabled")]
    pub enabled: bool,
    /// Time between scrapes, ms (default 250; at least 50).
    #[serde(default = "default_interval_ms")]
    pub interval_ms: u64,
}

impl Default for ServerMetricsConfig {
    fn default() -> Self {
        ServerMetricsConfig {
            enabled: default_enabled(),
            interval_ms: default_interval_ms(),
        }
    }
}

fn default_enabled() -> bool {
    true
}

fn default_interval_ms() -> u64 {
    250
}
