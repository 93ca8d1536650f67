//! `plateau run --shard i/K --shard-by cells|load`: this runner's place, its index from
//! the flag or from the Indexed Job's JOB_COMPLETION_INDEX.

use chrono::{DateTime, Utc};
use plateau_core::plan::Plan;
use plateau_model::shard::{INDEX_ENV, Shard, ShardClock, ShardError};
use tokio_util::sync::CancellationToken;

use crate::args::RunArgs;

/// This runner's shard, when `--shard` is given.
pub fn of(
    args: &RunArgs,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Option<Shard>, ShardError> {
    let Some(given) = &args.shard else {
        return Ok(None);
    };
    let index = env(INDEX_ENV);
    Shard::parse(given, args.shard_by.into(), index.as_deref()).map(Some)
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
