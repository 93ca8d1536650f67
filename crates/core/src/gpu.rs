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

pub use crate::plan::gpu::{AMD_SMI, GpuPlan, NVIDIA_SMI, Source, dcgm_uri};
use tokio::time::MissedTickBehavior;
use tokio_util::sync::CancellationToken;

use plateau_http::Client;
use plateau_http::clock::Clock;
use plateau_model::gpu::{GpuReading, GpuSample, dcgm};
use plateau_model::scrape::prom;

/// Longest a DCGM scrape may take.
pub const TIMEOUT: Duration = Duration::from_secs(2);

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
