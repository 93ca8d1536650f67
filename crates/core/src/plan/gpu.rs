//! `gpu_metrics` validated: the GPU sources ([`Source`]) and the interval the samplers
//! beside each cell run with ([`GpuPlan`]).

use std::time::Duration;

use http::Uri;

use super::validator::Validator;
use plateau_model::config::GpuMetricsConfig;

/// `nvidia-smi`, as `gpu_metrics` names it.
pub const NVIDIA_SMI: &str = "nvidia-smi";
/// `amd-smi`, as `gpu_metrics` names it.
pub const AMD_SMI: &str = "amd-smi";

/// One telemetry source.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    /// A DCGM exporter's `/metrics`.
    Dcgm(Uri),
    /// `nvidia-smi` on this host.
    NvidiaSmi,
    /// `amd-smi` on this host.
    AmdSmi,
}

impl Source {
    /// How `summary.json` names it.
    pub fn label(&self) -> String {
        match self {
            Source::Dcgm(uri) => uri.to_string(),
            Source::NvidiaSmi => NVIDIA_SMI.into(),
            Source::AmdSmi => AMD_SMI.into(),
        }
    }
}

/// The validated `gpu_metrics`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GpuPlan {
    /// The sources.
    pub sources: Vec<Source>,
    /// Time between samples.
    pub interval: Duration,
}

/// A DCGM exporter URL as a URI: http or https, no credentials, `/metrics` when it names
/// no path.
pub fn dcgm_uri(url: &str) -> Result<Uri, String> {
    let bad = |why: &str| {
        format!(
            "got `{}`: {why}; expected a DCGM exporter URL (`http://host:9400/metrics`) or \
             `nvidia-smi` / `amd-smi`",
            super::url::mask(url)
        )
    };
    let uri: Uri = url.trim().parse().map_err(|_| bad("not a URL"))?;
    if !matches!(uri.scheme_str(), Some("http" | "https")) {
        return Err(bad("not http or https"));
    }
    let authority = uri.authority().ok_or_else(|| bad("no host"))?;
    if authority.as_str().contains('@') {
        return Err(bad("credentials in the URL are not supported"));
    }
    if matches!(uri.path(), "" | "/") {
        let query = uri.query().map(|q| format!("?{q}")).unwrap_or_default();
        return format!(
            "{}://{authority}/metrics{query}",
            uri.scheme_str().unwrap_or("http")
        )
        .parse()
        .map_err(|_| bad("not a URL"));
    }
    Ok(uri)
}

/// Fewest ms between GPU samples (nvidia-smi's own loop takes tens of ms per sample).
pub const MIN_GPU_INTERVAL_MS: u64 = 100;
/// Fewest ms between `amd-smi` samples: each is a run of its own, which takes hundreds of ms.
pub const MIN_AMD_SMI_INTERVAL_MS: u64 = 1000;

impl Validator {
    /// The GPU samplers; `None` (with the problems said) when they cannot run as written.
    pub(super) fn gpu_metrics(&mut self, c: &GpuMetricsConfig) -> Option<GpuPlan> {
        if c.sources.is_empty() {
            self.problem(
                "gpu_metrics.sources".into(),
                "expected at least one source: a DCGM exporter URL, `nvidia-smi` or `amd-smi`",
            );
        }
        let mut sources = Vec::new();
        for (i, s) in c.sources.iter().enumerate() {
            match s.trim() {
                NVIDIA_SMI => sources.push(Source::NvidiaSmi),
                AMD_SMI => sources.push(Source::AmdSmi),
                url => match dcgm_uri(url) {
                    Ok(uri) => sources.push(Source::Dcgm(uri)),
                    Err(why) => self.problem(format!("gpu_metrics.sources[{i}]"), why),
                },
            }
        }
        let least = if sources.contains(&Source::AmdSmi) {
            MIN_AMD_SMI_INTERVAL_MS
        } else {
            MIN_GPU_INTERVAL_MS
        };
        if c.interval_ms < least {
            self.problem(
                "gpu_metrics.interval_ms".into(),
                format!(
                    "got {}, expected at least {least} ms between samples",
                    c.interval_ms
                ),
            );
        }
        let local = sources
            .iter()
            .filter(|s| !matches!(s, Source::Dcgm(_)))
            .count();
        if local > 0 && sources.len() > 1 {
            self.problem(
                "gpu_metrics.sources".into(),
                "expected DCGM exporter URLs, or `nvidia-smi` alone, or `amd-smi` alone: mixed, \
                 the same GPUs could be counted twice",
            );
            return None;
        }
        (sources.len() == c.sources.len() && !sources.is_empty() && c.interval_ms >= least).then(
            || GpuPlan {
                sources,
                interval: Duration::from_millis(c.interval_ms),
            },
        )
    }
}

#[cfg(test)]
mod tests {
    use crate::plan::Plan;
    use plateau_model::config::RunConfig;

    fn problems(gpu: &str) -> Vec<String> {
        let text = format!(
            r#"{{"endpoints": [{{"name": "a", "engine": "vllm", "url": "http://127.0.0.1:1/v1"}}],
                "models": [{{"id": "m", "name": "m"}}], "batch_sizes": [1], "gpu_metrics": {gpu}}}"#
        );
        let config: RunConfig = serde_json::from_str(&text).expect("a config");
        match Plan::build(&config, &|_: &str| None) {
            Ok(_) => Vec::new(),
            Err(e) => e
                .problems
                .iter()
                .map(|p| format!("{}: {}", p.field, p.message))
                .collect(),
        }
    }

    #[test]
    fn sources_are_dcgm_urls_or_one_local_tool() {
        assert_eq!(
            problems(r#""amd-smi""#),
            ["gpu_metrics.interval_ms: got 250, expected at least 1000 ms between samples"]
        );
        assert!(problems(r#"{"sources": ["amd-smi"], "interval_ms": 1000}"#).is_empty());
        assert!(problems(r#""nvidia-smi""#).is_empty());
        assert!(problems(r#"["http://n1:9400", "http://n2:9400/metrics"]"#).is_empty());
        let p = problems(r#"["nvidia-smi", "http://n1:9400/metrics"]"#);
        assert!(
            p[0].starts_with("gpu_metrics.sources: expected DCGM exporter URLs"),
            "{p:?}"
        );
        let p = problems(r#"["ftp://n1/metrics"]"#);
        assert!(
            p[0].starts_with("gpu_metrics.sources[0]: got `ftp://n1/metrics`: not http"),
            "{p:?}"
        );
        let p = problems(r#"["http://u:secret@n1:9400/metrics"]"#);
        assert!(
            !p[0].contains("secret") && p[0].contains("credentials"),
            "{p:?}"
        );
        let p = problems(r#"{"sources": ["nvidia-smi"], "interval_ms": 50}"#);
        assert_eq!(
            p,
            ["gpu_metrics.interval_ms: got 50, expected at least 100 ms between samples"]
        );
    }
}
