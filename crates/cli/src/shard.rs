//! `plateau run --shard i/K --shard-by cells|load`: this runner's place, its index from
//! the flag or from the Indexed Job's JOB_COMPLETION_INDEX, and the common start (and,
//! under load sharding, the common timetable) it keeps.

use std::time::Duration;

use chrono::{DateTime, Utc};
use plateau_core::plan::Plan;
use plateau_model::shard::{INDEX_ENV, Shard, ShardClock};
use tokio_util::sync::CancellationToken;

use crate::args::RunArgs;
use crate::start_at::StartAt;

/// This runner's place and, with `--start-at`, the common start and the gap between cells.
pub struct Sharding {
    shard: Shard,
    /// The common start, resolved.
    pub start_at: Option<DateTime<Utc>>,
    gap: Duration,
}

impl Sharding {
    /// Makes `plan` this runner's share; under load sharding with `--start-at`, on the
    /// common timetable.
    pub fn apply(&self, plan: &mut Plan) -> Result<(), String> {
        plan.shard(self.shard)?;
        match self.start_at {
            Some(at) => plan.follow_timetable(at, self.gap),
            None => Ok(()),
        }
    }
}

/// This runner's sharding, when `--shard` is given; `--start-at job+SECONDS` is read from
/// the Kubernetes API here.
pub async fn of(
    args: &RunArgs,
    env: &dyn Fn(&str) -> Option<String>,
) -> anyhow::Result<Option<Sharding>> {
    let Some(given) = &args.shard else {
        return Ok(None);
    };
    let index = env(INDEX_ENV);
    let start_at = match args.start_at {
        None => None,
        Some(StartAt::At(at)) => Some(at),
        Some(StartAt::JobCreated(margin)) => {
            let created = kube::job_created(env).await?;
            let at = created + chrono::Duration::from_std(margin)?;
            tracing::info!("the Job was created at {created}: starting at {at}");
            Some(at)
        }
    };
    Ok(Some(Sharding {
        shard: Shard::parse(given, args.shard_by.into(), index.as_deref())?,
        start_at,
        gap: Duration::from_secs_f64(args.cell_gap),
    }))
}

/// For a sharded plan: reads the clock's sync state, waits for `start_at` (or a stopping
/// signal: then `false`), and records both in the plan for `run.json`.
pub async fn start(
    plan: &mut Plan,
    start_at: Option<DateTime<Utc>>,
    interrupt: &CancellationToken,
) -> bool {
    if plan.shard.is_none() {
        return true;
    }
    let sync = plateau_core::clock_sync::read();
    if !sync.synchronized {
        tracing::warn!(
            "this runner's clock is not synchronized (adjtimex{}): merged timelines may be off",
            sync.reason
                .as_deref()
                .map(|r| format!(": {r}"))
                .unwrap_or_default()
        );
    }
    let mut start_offset_us = None;
    if let Some(at) = start_at {
        if let Ok(wait) = (at - Utc::now()).to_std() {
            tracing::info!("waiting {:.1} s for --start-at {at}", wait.as_secs_f64());
            tokio::select! {
                biased;
                () = interrupt.cancelled() => return false,
                () = tokio::time::sleep(wait) => {}
            }
        }
        start_offset_us = Some(
            (Utc::now() - at)
                .num_microseconds()
                .unwrap_or(i64::MAX)
                .max(0) as u64,
        );
    }
    plan.shard_clock = Some(ShardClock {
        sync,
        start_at,
        start_offset_us,
    });
    true
}

pub mod kube;
