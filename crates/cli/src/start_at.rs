//! The values of `--start-at` (an instant, or `job+SECONDS` after the Kubernetes Job was
//! created) and `--cell-gap`, read from the command line.

use std::time::Duration;

use chrono::{DateTime, Utc};

/// `--cell-gap`: a finite number of seconds, 0 or more.
pub fn gap_seconds(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if v.is_finite() && (0.0..=86_400.0).contains(&v) => Ok(v),
        _ => Err(format!("{s:?}: expected seconds from 0 to 86400")),
    }
}

/// `--start-at`: an instant, or the Indexed Job's creation time plus a margin.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum StartAt {
    /// This instant (RFC 3339).
    At(DateTime<Utc>),
    /// `job+SECONDS`: so long after the Job was created ([`crate::shard::kube::job_created`]).
    JobCreated(Duration),
}

/// Reads `--start-at`.
pub fn start_at(s: &str) -> Result<StartAt, String> {
    if let Some(margin) = s.strip_prefix("job+") {
        return gap_seconds(margin).map(|m| StartAt::JobCreated(Duration::from_secs_f64(m)));
    }
    s.parse().map(StartAt::At).map_err(|e| {
        format!("{s:?}: expected an RFC 3339 instant (2026-11-27T10:30:00Z) or job+SECONDS ({e})")
    })
}
