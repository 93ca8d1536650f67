//! The common timetable of load-sharded runners: every cell's phases at instants computed
//! from the config and `--start-at` alone, so K runners keep N in flight together without
//! talking to each other. Only fixed phase lengths and a configured Drain limit give every
//! runner the same instants.

use std::time::Duration;

use chrono::{DateTime, Utc};
use plateau_model::phase::DrainLimit;
use plateau_model::shard::{ShardBy, Timetable};

use super::Plan;

impl Plan {
    /// Puts this load-sharded plan on the timetable from `start_at`, cells `gap` apart.
    /// Refused for adaptive phases and a derived Drain limit (each runner would decide its
    /// own lengths) and for a plan that is not load-sharded (cell shards run apart).
    pub fn follow_timetable(
        &mut self,
        start_at: DateTime<Utc>,
        gap: Duration,
    ) -> Result<(), String> {
        if self.shard.is_none_or(|s| s.by != ShardBy::Load) {
            return Ok(());
        }
        if self.phases.adaptive.is_some() {
            return Err(
                "--shard-by load --start-at: adaptive phases end when each runner's own \
                        data says so, so the runners would not stay together; use fixed phases \
                        (fill_seconds, stabilize_seconds, measure_seconds)"
                    .into(),
            );
        }
        let DrainLimit::Configured(drain) = self.phases.drain else {
            return Err(
                "--shard-by load --start-at: the Drain limit is derived by each runner \
                        from its own requests, so the next cell's start would differ; set \
                        drain_seconds"
                    .into(),
            );
        };
        let cell = self.phases.fill + self.phases.stabilize + self.phases.measure + drain;
        self.timetable = Some(Timetable::new(start_at, cell, gap));
        Ok(())
    }
}
