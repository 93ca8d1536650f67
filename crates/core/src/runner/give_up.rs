//! When a cell stops trying: its endpoint keeps failing. A *streak* starts with the first
//! failure after the last success (or the cell's start) and ends at the next success. A
//! cell gives up once a streak of at least [`MIN_FAILURES`] failures has lasted
//! `after` — or [`REFUSED_AFTER`] (at most `after`) when every failure in it was a
//! connection that could not be opened: the server is gone. Slow requests that have not
//! ended yet never count either way; only endings do.

use std::sync::Mutex;
use std::time::Duration;

use crate::clock::micros;
use crate::sample::Outcome;

/// Fewest failures in a streak before the cell gives up.
pub const MIN_FAILURES: u64 = 3;
/// How long a streak of refused connections lasts before the cell gives up.
pub const REFUSED_AFTER: Duration = Duration::from_secs(5);

/// Watches endings for a streak of failures.
#[derive(Debug)]
pub(crate) struct GiveUp {
    after_us: u64,
    refused_after_us: u64,
    streak: Mutex<Streak>,
}

#[derive(Debug, Default)]
struct Streak {
    /// When the first failure of the streak ended; `None`: no streak.
    since_us: Option<u64>,
    failures: u64,
    /// Every failure of the streak was a connection that could not be opened.
    refused_only: bool,
    /// The last failure's kind and message.
    last: Option<(Outcome, Option<String>)>,
}

impl GiveUp {
    /// Gives up after `after` of failures only.
    pub fn new(after: Duration) -> GiveUp {
        GiveUp {
            after_us: micros(after),
            refused_after_us: micros(REFUSED_AFTER.min(after)),
            streak: Mutex::new(Streak::default()),
        }
    }

    /// Notes a request that ended at `t_end_us` with `outcome`; the reason to give up, if
    /// it is time.
    pub fn ended(&self, t_end_us: u64, outcome: Outcome, error: Option<&str>) -> Option<String> {
        let counts =
            outcome.is_error() && !matches!(outcome, Outcome::Interrupted | Outcome::DrainTimeout);
        let mut s = self.lock();
        if outcome.is_ok() {
            *s = Streak::default();
            return None;
        }
        if !counts {
            return None;
        }
        if s.since_us.is_none() {
            *s = Streak {
                since_us: Some(t_end_us),
                refused_only: true,
                ..Streak::default()
            };
        }
        s.failures += 1;
        s.refused_only &= outcome == Outcome::Connect;
        s.last = Some((outcome, error.map(str::to_owned)));
        self.verdict(&s, t_end_us)
    }

    /// The reason to give up at `now_us`, if it is time (for a slot that waited).
    pub fn check(&self, now_us: u64) -> Option<String> {
        self.verdict(&self.lock(), now_us)
    }

    fn verdict(&self, s: &Streak, now_us: u64) -> Option<String> {
        let since = s.since_us?;
        let limit = if s.refused_only {
            self.refused_after_us
        } else {
            self.after_us
        };
        let lasted = now_us.saturating_sub(since);
        if s.failures < MIN_FAILURES || lasted < limit {
            return None;
        }
        let (outcome, message) = s.last.as_ref()?;
        let what = if s.refused_only {
            "no connection could be opened"
        } else {
            "every request failed"
        };
        Some(format!(
            "{what} for {:.1} s ({} failures; last: {}{})",
            lasted as f64 / 1e6,
            s.failures,
            outcome.key(),
            message
                .as_deref()
                .map(|m| format!(": {m}"))
                .unwrap_or_default()
        ))
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Streak> {
        // A panic while holding the lock cannot leave the streak half-written in a way
        // that matters: recover the value.
        self.streak.lock().unwrap_or_else(|e| e.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: u64 = 1_000_000;
    const HTTP_500: Outcome = Outcome::HttpStatus { status: 500 };

    #[test]
    fn a_streak_of_failures_gives_up_after_its_time() {
        let g = GiveUp::new(Duration::from_secs(10));
        assert_eq!(g.ended(S, HTTP_500, Some("boom")), None);
        assert_eq!(g.ended(2 * S, HTTP_500, Some("boom")), None);
        assert_eq!(g.ended(10 * S, HTTP_500, Some("boom")), None, "9 s < 10 s");
        assert_eq!(g.check(10 * S), None);
        let reason = g.check(11 * S).unwrap();
        assert_eq!(
            reason,
            "every request failed for 10.0 s (3 failures; last: http_500: boom)"
        );
    }

    #[test]
    fn a_success_ends_the_streak() {
        let g = GiveUp::new(Duration::from_secs(10));
        g.ended(S, HTTP_500, None);
        g.ended(2 * S, HTTP_500, None);
        g.ended(3 * S, Outcome::Ok, None);
        g.ended(4 * S, HTTP_500, None);
        g.ended(5 * S, HTTP_500, None);
        g.ended(6 * S, HTTP_500, None);
        assert_eq!(g.check(13 * S), None, "the streak began at 4 s");
        assert!(g.check(14 * S).is_some());
    }

    #[test]
    fn too_few_failures_never_give_up() {
        let g = GiveUp::new(Duration::from_secs(1));
        g.ended(S, Outcome::Timeout, None);
        g.ended(2 * S, Outcome::Timeout, None);
        assert_eq!(g.check(100 * S), None);
    }

    #[test]
    fn refused_connections_give_up_sooner_and_padding_does_not_count() {
        let g = GiveUp::new(Duration::from_secs(30));
        for t in 0..3 {
            g.ended(t * S, Outcome::Connect, Some("connection refused"));
        }
        g.ended(3 * S, Outcome::Cancelled, None);
        g.ended(3 * S, Outcome::DrainTimeout, None);
        assert_eq!(g.check(4 * S), None);
        assert_eq!(
            g.check(5 * S).unwrap(),
            "no connection could be opened for 5.0 s (3 failures; last: connect: connection refused)"
        );
        // One other failure in the streak: the long limit applies.
        g.ended(5 * S, Outcome::HttpStatus { status: 503 }, None);
        assert_eq!(g.check(6 * S), None);
        assert!(g.check(30 * S).is_some());
    }
}
