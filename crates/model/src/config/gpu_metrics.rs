//! `gpu_metrics`: where to read the GPUs' power, energy and utilization during each cell.
//! Written as one source (`"nvidia-smi"`, `"amd-smi"`), a list of them
//! (`["http://node-1:9400/metrics", "http://node-2:9400/metrics"]`), or an object with the
//! sampling interval (`{"sources": [...], "interval_ms": 500}`).

use std::fmt;

use schemars::JsonSchema;
use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Serialize};

/// The GPU telemetry sources and how often to sample them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GpuMetricsConfig {
    /// Each source: a DCGM exporter's `/metrics` URL (scraped like the server's own
    /// `/metrics`, on the cell's clock), or `nvidia-smi` / `amd-smi` (run as a sampler
    /// where plateau runs on the GPU host).
    pub sources: Vec<String>,
    /// Time between samples, ms (default 250; at least 100; `amd-smi` at least 1000).
    #[serde(default = "default_interval_ms")]
    pub interval_ms: u64,
}

fn default_interval_ms() -> u64 {
    250
}

/// `gpu_metrics`: one source, a list of them, or an object with the interval.
#[derive(JsonSchema)]
#[serde(untagged)]
#[allow(dead_code, reason = "only its schema is used")]
pub(crate) enum Written {
    /// One source: a DCGM exporter URL, `nvidia-smi` or `amd-smi`.
    One(String),
    /// Several DCGM exporter URLs (one per node).
    Many(Vec<String>),
    /// The sources and the interval.
    Full {
        /// DCGM exporter URLs, or `["nvidia-smi"]`, or `["amd-smi"]`.
        sources: Vec<String>,
        /// Time between samples, ms (default 250; at least 100; `amd-smi` at least 1000).
        #[serde(default = "default_interval_ms")]
        interval_ms: u64,
    },
}

/// The object form, as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Full {
    sources: Vec<String>,
    #[serde(default = "default_interval_ms")]
    interval_ms: u64,
}

impl<'de> Deserialize<'de> for GpuMetricsConfig {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(Forms)
    }
}

/// Reads any of the three forms.
struct Forms;

impl<'de> Visitor<'de> for Forms {
    type Value = GpuMetricsConfig;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(
            "a source (a DCGM exporter URL, `nvidia-smi` or `amd-smi`), a list of them, \
             or {\"sources\": [...], \"interval_ms\": N}",
        )
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(GpuMetricsConfig {
            sources: vec![v.to_owned()],
            interval_ms: default_interval_ms(),
        })
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut sources = Vec::new();
        while let Some(s) = seq.next_element::<String>()? {
            sources.push(s);
        }
        Ok(GpuMetricsConfig {
            sources,
            interval_ms: default_interval_ms(),
        })
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        let full = Full::deserialize(de::value::MapAccessDeserializer::new(map))?;
        Ok(GpuMetricsConfig {
            sources: full.sources,
            interval_ms: full.interval_ms,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_source_a_list_or_an_object() {
        let one: GpuMetricsConfig = serde_json::from_str(r#""nvidia-smi""#).unwrap();
        assert_eq!(one.sources, ["nvidia-smi"]);
        assert_eq!(one.interval_ms, 250);
        let list: GpuMetricsConfig =
            serde_json::from_str(r#"["http://a:9400/metrics", "http://b:9400/metrics"]"#).unwrap();
        assert_eq!(list.sources.len(), 2);
        let full: GpuMetricsConfig =
            serde_json::from_str(r#"{"sources": ["nvidia-smi"], "interval_ms": 500}"#).unwrap();
        assert_eq!(full.interval_ms, 500);
        let err = serde_json::from_str::<GpuMetricsConfig>(r#"{"source": "x"}"#)
            .unwrap_err()
            .to_string();
        assert!(err.contains("unknown field `source`"), "{err}");
        let err = serde_json::from_str::<GpuMetricsConfig>("3")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("a DCGM exporter URL, `nvidia-smi` or `amd-smi`"),
            "{err}"
        );
    }
}
