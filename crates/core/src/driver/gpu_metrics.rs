//! The GPU samplers beside a cell (`gpu_metrics`): started on the cell's clock before the
//! first request, stopped when the cell ends, their samples written to the cell directory
//! ([`GPU_METRICS_FILE`]) and summarized per phase with the energy per output token over
//! Measure (`summary.gpu`).

use std::path::Path;

use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::gpu::{self, GpuPlan, Sampled};
use plateau_http::Client;
use plateau_http::clock::Clock;
use plateau_model::gpu::summary::Context;
use plateau_model::gpu::{self as model, GPU_METRICS_FILE, GpuMetrics};
use plateau_model::metrics::Throughput;
use plateau_model::results::ResultsError;
use plateau_model::results::summary::PhaseBounds;

/// The samplers running beside a cell.
pub(super) struct Running {
    stop: CancellationToken,
    task: JoinHandle<Sampled>,
    plan: GpuPlan,
}

/// Starts sampling as `plan` says on `clock`, DCGM exporters read on connections of their
/// own reached as the run's `client` reaches its origins.
pub(super) fn start(run_client: &Client, plan: &GpuPlan, clock: Clock) -> Running {
    let stop = CancellationToken::new();
    let client = run_client.sibling(plan.sources.len());
    let task = tokio::spawn(gpu::run(plan.clone(), client, clock, stop.clone()));
    Running {
        stop,
        task,
        plan: plan.clone(),
    }
}

impl Running {
    /// Stops the samplers, writes their samples into `dir` and summarizes them over
    /// `bounds` and Measure's `throughput`. `None` when no sample was taken (each reason
    /// said once as a warning).
    pub(super) async fn finish(
        self,
        dir: &Path,
        bounds: &PhaseBounds,
        throughput: &Throughput,
    ) -> Result<Option<GpuMetrics>, ResultsError> {
        self.stop.cancel();
        let mut sampled = self.task.await.unwrap_or_else(|e| {
            tracing::warn!("the GPU sampler of this cell stopped abnormally ({e})");
            Sampled::default()
        });
        for why in &sampled.refused {
            tracing::warn!("gpu_metrics: {why}");
        }
        if sampled.samples.is_empty() {
            return Ok(None);
        }
        sampled.samples.sort_by_key(|s| s.t_us);
        model::write(&dir.join(GPU_METRICS_FILE), &sampled.samples)?;
        let sources = self.plan.sources.iter().map(gpu::Source::label).collect();
        let ctx = Context {
            bounds,
            throughput,
            failed: sampled.failed,
            interval_ms: u64::try_from(self.plan.interval.as_millis()).unwrap_or(u64::MAX),
        };
        Ok(Some(GpuMetrics::measure(&sampled.samples, sources, ctx)))
    }
}
