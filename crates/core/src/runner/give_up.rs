//! When a cell stops trying: its endpoint keeps failing. A *streak* starts with the first
//! failure after the last success (or the cell's start) and ends at the next success. A
//! cell gives up once a streak of at least [`MIN_FAILURES`] failures has lasted `after` —
//! or once its latest failures, at least [`MIN_FAILURES`] of them, have all been
//! connections that could not be opened for [`REFUSED_AFTER`] (at most `after`): the
//! server is gone (a server that dies mid-stream breaks a stream first). Slow requests
//! that have not ended yet never count either way; only endings do.
//!
//! One watch serves all of an endpoint's cells in a run, so a streak that began in one
//! short cell goes on in the next.

use std::sync::Mutex;
use std::time::Duration;

use tokio::time::Instant;

use plateau_http::clock::micros;
use plateau_model::sample::Outcome;

/// Fewest failures in a streak before the cell gives up.
pub const MIN_FAILURES: u64 = 3;
/// How long a streak of refused connections lasts before the cell gives up.
pub const REFUSED_AFTER: Duration = Duration::from_secs(5);

/// Watches an endpoint's request endings for a streak of failures.
#[derive(Debug)]
pub struct GiveUp {
    epoch: Instant,
    after_us: u64,
    refused_after_us: u64,
    streak: Mutex<Streak>,
}

#[derive(Debug, Default)]
struct Streak {
    /// When the first failure of the streak ended; `None`: no streak.
    since_us: Option<u64>,
    failures: u64,
    /// When the run of refused connections at the streak's end began, and its length.
    refused_since_us: Option<u64>,
    refused: u64,
    /// The last failure's kind and message.
    last: Option<(Outcome, Option<String>)>,
}

impl GiveUp {
    /// Gives up after `after` of failures only.
    pub fn new(after: Duration) -> GiveUp {
        GiveUp {
            epoch: Instant::now(),
            after_us: micros(after),
            refused_after_us: micros(REFUSED_AFTER.min(after)),
            streak: Mutex::new(Streak::default()),
        }
    }

    /// Notes a request that just ended with `outcome`; the reason to give up, if it is time.
    pub(crate) fn ended(&self, outcome: Outcome, error: Option<&str>) -> Option<String> {
        self.ended_at(self.now_us(), outcome, error)
    }

    /// The reason to give up now, if it is time (for a slot that waited).
    pub(crate) fn check(&self) -> Option<String> {
        self.check_at(self.now_us())
    }

    fn now_us(&self) -> u64 {
        micros(self.epoch.elapsed())
    }

    fn ended_at(&self, t_end_us: u64, outcome: Outcome, error: Option<&str>) -> Option<String> {
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
        s.since_us.get_or_insert(t_end_us);
        s.failures += 1;
        if outcome == Outcome::Connect {
            s.refused_since_us.get_or_insert(t_end_us);
            s.refused += 1;
        } else {
            s.refused_since_us = None;
            s.refused = 0;
        }
        s.last = Some((outcome, error.map(str::to_owned)));
        self.verdict(&s, t_end_us)
    }

    fn check_at(&self, now_us: u64) -> Option<String> {
        self.verdict(&self.lock(), now_us)
    }

    fn verdict(&self, s: &Streak, now_us: u64) -> Option<String> {
        let lasted = |since: Option<u64>| since.map(|t| now_us.saturating_sub(t));
        let (what, lasted, failures) = match (lasted(s.refused_since_us), lasted(s.since_us)) {
            (Some(refused), _) if s.refused >= MIN_FAILURES && refused >= self.refused_after_us => {
                ("no connection could be opened", refused, s.refused)
            }
            (_, Some(all)) if s.failures >= MIN_FAILURES && all >= self.after_us => {
                ("every request failed", all, s.failures)
            }
            _ => return None,
        };
        let (outcome, message) = s.last.as_ref()?;
        Some(format!(
            "{what} for {:.1} s ({failures} failures; last: {}{})",
            lasted as f64 / 1e6,
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
        assert_eq!(g.ended_at(S, HTTP_500, Some("boom")), None);
        assert_eq!(g.ended_at(2 * S, HTTP_500, Some("boom")), None);
        assert_eq!(
            g.ended_at(10 * S, HTTP_500, Some("boom")),
            None,
            "9 s < 10 s"
        );
        assert_eq!(g.check_at(10 * S), None);
        let reason = g.check_at(11 * S).unwrap();
        assert_eq!(
            reason,
            "every request failed for 10.0 s (3 failures; last: http_500: boom)"
        );
    }

    #[test]
    fn a_success_ends_the_streak() {
        let g = GiveUp::new(Duration::from_secs(10));
        g.ended_at(S, HTTP_500, None);
        g.ended_at(2 * S, HTTP_500, None);
        g.ended_at(3 * S, Outcome::Ok, None);
        g.ended_at(4 * S, HTTP_500, None);
        g.ended_at(5 * S, HTTP_500, None);
        g.ended_at(6 * S, HTTP_500, None);
        assert_eq!(g.check_at(13 * S), None, "the streak began at 4 s");
        assert!(g.check_at(14 * S).is_some());
    }

    #[test]
    fn too_few_failures_never_give_up() {
        let g = GiveUp::new(Duration::from_secs(1));
        g.ended_at(S, Outcome::Timeout, None);
        g.ended_at(2 * S, Outcome::Timeout, None);
        assert_eq!(g.check_at(100 * S), None);
    }

    #[test]
    fn refused_connections_give_up_sooner_and_padding_does_not_count() {
        let g = GiveUp::new(Duration::from_secs(30));
        for t in 0..3 {
            g.ended_at(t * S, Outcome::Connect, Some("connection refused"));
        }
        g.ended_at(3 * S, Outcome::Cancelled, None);
        g.ended_at(3 * S, Outcome::DrainTimeout, None);
        assert_eq!(g.check_at(4 * S), None);
        assert_eq!(
            g.check_at(5 * S).unwrap(),
            "no connection could be opened for 5.0 s (3 failures; last: connect: connection refused)"
        );
        // Another kind of failure ends the run of refusals: the long limit applies.
        g.ended_at(5 * S, Outcome::HttpStatus { status: 503 }, None);
        assert_eq!(g.check_at(6 * S), None);
        assert!(g.check_at(30 * S).is_some());
    }

    #[test]
    fn a_server_that_dies_mid_stream_is_given_up_on_once_it_refuses() {
        let g = GiveUp::new(Duration::from_secs(30));
        g.ended_at(S, Outcome::Stream, Some("body broke"));
        for t in 2..5 {
            g.ended_at(t * S, Outcome::Connect, Some("connection refused"));
        }
        assert_eq!(g.check_at(6 * S), None, "refused for 4 s");
        assert_eq!(
            g.check_at(7 * S).unwrap(),
            "no connection could be opened for 5.0 s (3 failures; last: connect: connection refused)"
        );
    }
}
