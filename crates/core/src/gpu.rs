//! The GPU samplers beside a cell (`gpu_metrics`): each DCGM exporter scraped like the
//! server's `/metrics` (its own connection, a timeout, failures counted), `nvidia-smi`
//! run for the cell as `nvidia-smi --query-gpu=... --format=csv -lms N`, its lines read as
//! they come, and `amd-smi metric ... --json` run once per tick. Every sample is stamped on
//! the cell's clock; the readings of all sources at one tick make one [`GpuSample`].
//! Parsing is the result model's ([`plateau_model::gpu`]).

mod amd;
mod smi;

use std::time::Duration;

use http::{HeaderMap, Uri};
use tokio::time::MissedTickBehavior;
use tokio_util::sync::CancellationToken;

use plateau_http::Client;
use plateau_http::clock::Clock;
use plateau_model::gpu::{GpuReading, GpuSample, dcgm};
use plateau_model::scrape::prom;

/// `nvidia-smi`, as `gpu_metrics` names it.
pub const NVIDIA_SMI: &str = "nvidia-smi";
/// `amd-smi`, as `gpu_metrics` names it.
pub const AMD_SMI: &str = "amd-smi";

/// Longest a DCGM scrape may take.
pub const TIMEOUT: Duration = Duration::from_secs(2);

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
            crate::plan::mask(url)
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

/// What a cell's samplers collected.
#[derive(Debug, Default)]
pub struct Sampled {
    /// Every sample, in time order.
    pub samples: Vec<GpuSample>,
    /// Samples a source failed (no answer in time, not a DCGM page, a failed `amd-smi`).
    pub failed: u64,
    /// Why a source could not be used at all (said once).
    pub refused: Vec<String>,
}

/// Samples every source of `plan` on `clock` until `stop` fires; DCGM exporters are read
/// with `client` (a sibling of the run's, so through the same proxy and TLS).
pub async fn run(plan: GpuPlan, client: Client, clock: Clock, stop: CancellationToken) -> Sampled {
    match plan.sources.first() {
        Some(Source::NvidiaSmi) => smi::run(NVIDIA_SMI.as_ref(), plan.interval, clock, stop).await,
        Some(Source::AmdSmi) => amd::run(AMD_SMI.as_ref(), plan.interval, clock, &stop).await,
        _ => scrape_dcgm(&plan.sources, plan.interval, client, clock, &stop).await,
    }
}

/// A ticker every `interval` that skips the ticks it missed.
fn ticker(interval: Duration) -> tokio::time::Interval {
    let mut ticker = tokio::time::interval(interval);
    ticker.set_missed_tick_behavior(MissedTickBehavior::Skip);
    ticker
}

/// Scrapes the DCGM exporters each tick until `stop`; one sample per tick with every
/// exporter's GPUs (a GPU two exporters both show is kept once).
async fn scrape_dcgm(
    uris: &[Source],
    interval: Duration,
    client: Client,
    clock: Clock,
    stop: &CancellationToken,
) -> Sampled {
    let mut out = Sampled::default();
    let uris: Vec<&Uri> = uris
        .iter()
        .filter_map(|s| match s {
            Source::Dcgm(u) => Some(u),
            Source::NvidiaSmi | Source::AmdSmi => None,
        })
        .collect();
    let mut ticker = ticker(interval);
    let headers = HeaderMap::new();
    loop {
        tokio::select! {
            () = stop.cancelled() => break,
            _ = ticker.tick() => {}
        }
        let t_us = clock.now_us();
        let mut gpus: Vec<GpuReading> = Vec::new();
        for uri in &uris {
            let got = tokio::select! {
                () = stop.cancelled() => return out,
                got = client.get_text((*uri).clone(), &headers, TIMEOUT) => got,
            };
            match got
                .ok()
                .and_then(|text| dcgm::readings(&prom::parse(&text).ok()?))
            {
                Some(r) => {
                    for g in r {
                        if !gpus.iter().any(|x| x.gpu == g.gpu) {
                            gpus.push(g);
                        }
                    }
                }
                None => out.failed += 1,
            }
        }
        if !gpus.is_empty() {
            out.samples.push(GpuSample { t_us, gpus });
        }
    }
    out
}

#[cfg(test)]
mod tests;
