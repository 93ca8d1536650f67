//! How long a slot waits after a failure that asks for time (SPEC.md section 4): HTTP 429
//! or 503, any answer carrying `Retry-After`, or a connection that could not be opened.
//! Every other outcome sends the next request at once, as the closed loop demands.
//!
//! `Retry-After` is honoured (at most [`RETRY_AFTER_MAX`]), plus up to 10% so slots told
//! the same second do not return together. Without it the wait doubles from [`FIRST`] to
//! [`MAX`] with equal jitter (half fixed, half random), and starts over after any outcome
//! that does not ask for time.

use std::time::{Duration, SystemTime};

use crate::splitmix::SplitMix;
use plateau_model::sample::Outcome;

/// The first wait without `Retry-After`.
pub const FIRST: Duration = Duration::from_millis(100);
/// The longest wait without `Retry-After`.
pub const MAX: Duration = Duration::from_secs(10);
/// The longest `Retry-After` honoured.
pub const RETRY_AFTER_MAX: Duration = Duration::from_secs(60);

/// Whether a request that ended with `outcome` asks the client to wait.
pub fn asks_for_time(outcome: Outcome, retry_after: Option<Duration>) -> bool {
    retry_after.is_some()
        || matches!(
            outcome,
            Outcome::HttpStatus { status: 429 | 503 } | Outcome::Connect
        )
}

/// A `Retry-After` value: delay-seconds or an HTTP-date (RFC 9110 section 10.2.3); a date
/// in the past is no wait. `None` when it is neither.
pub fn parse_retry_after(value: &str, now: SystemTime) -> Option<Duration> {
    let value = value.trim();
    if let Ok(secs) = value.parse::<u64>() {
        return Some(Duration::from_secs(secs));
    }
    let at = httpdate::parse_http_date(value).ok()?;
    Some(at.duration_since(now).unwrap_or(Duration::ZERO))
}

/// One slot's backoff state.
#[derive(Clone, Debug)]
pub struct Backoff {
    /// Failures in a row that asked for time.
    consecutive: u32,
    /// Draws the jitter.
    rng: SplitMix,
}

impl Backoff {
    /// A slot's backoff, its jitter seeded by `seed` (distinct per slot).
    pub fn new(seed: u64) -> Backoff {
        Backoff {
            consecutive: 0,
            rng: SplitMix::new(seed),
        }
    }

    /// The wait after a request that ended with `outcome` (and the server's `Retry-After`);
    /// `None`: send the next request at once.
    pub fn after(&mut self, outcome: Outcome, retry_after: Option<Duration>) -> Option<Duration> {
        if !asks_for_time(outcome, retry_after) {
            self.consecutive = 0;
            return None;
        }
        self.consecutive = self.consecutive.saturating_add(1);
        let u = self.rng.unit();
        match retry_after.filter(|d| !d.is_zero()) {
            Some(asked) => {
                let asked = asked.min(RETRY_AFTER_MAX);
                Some(asked + asked.mul_f64(0.1 * u))
            }
            None => {
                let doublings = (self.consecutive - 1).min(16);
                let base = FIRST.saturating_mul(1 << doublings).min(MAX);
                Some(base / 2 + (base / 2).mul_f64(u))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HTTP_429: Outcome = Outcome::HttpStatus { status: 429 };
    const HTTP_503: Outcome = Outcome::HttpStatus { status: 503 };
    const HTTP_500: Outcome = Outcome::HttpStatus { status: 500 };

    #[test]
    fn only_failures_that_ask_for_time_wait() {
        let mut b = Backoff::new(1);
        for outcome in [
            Outcome::Ok,
            HTTP_500,
            Outcome::Timeout,
            Outcome::Stream,
            Outcome::Cancelled,
        ] {
            assert_eq!(b.after(outcome, None), None, "{outcome:?}");
        }
        for outcome in [HTTP_429, HTTP_503, Outcome::Connect] {
            assert!(b.after(outcome, None).is_some(), "{outcome:?}");
        }
        // A 500 that says when to come back is honoured too.
        let wait = b.after(HTTP_500, Some(Duration::from_secs(2))).unwrap();
        assert!((2.0..=2.2).contains(&wait.as_secs_f64()), "{wait:?}");
    }

    #[test]
    fn retry_after_is_honoured_with_at_most_ten_percent_more_and_capped() {
        let mut b = Backoff::new(7);
        for _ in 0..100 {
            let w = b.after(HTTP_429, Some(Duration::from_secs(1))).unwrap();
            assert!((1.0..1.1).contains(&w.as_secs_f64()), "{w:?}");
        }
        let w = b.after(HTTP_429, Some(Duration::from_secs(3600))).unwrap();
        assert!((60.0..66.0).contains(&w.as_secs_f64()), "{w:?}");
    }

    #[test]
    fn without_retry_after_the_wait_doubles_to_the_cap_and_resets_after_success() {
        let mut b = Backoff::new(3);
        // (base / 2, base]: 100 ms, 200 ms, 400 ms, ... 10 s.
        let bases_ms = [
            100, 200, 400, 800, 1_600, 3_200, 6_400, 10_000, 10_000, 10_000,
        ];
        for base in bases_ms {
            let w = b.after(HTTP_503, None).unwrap().as_secs_f64() * 1e3;
            let base = f64::from(base);
            assert!(w >= base / 2.0 && w <= base, "{w} ms for base {base} ms");
        }
        assert_eq!(b.after(Outcome::Ok, None), None);
        let w = b.after(Outcome::Connect, None).unwrap();
        assert!(w <= FIRST, "starts over: {w:?}");
    }

    #[test]
    fn jitter_spreads_slots() {
        let waits: Vec<Duration> = (0..8)
            .map(|slot| Backoff::new(slot).after(HTTP_503, None).unwrap())
            .collect();
        let mut distinct = waits.clone();
        distinct.sort();
        distinct.dedup();
        assert_eq!(distinct.len(), waits.len(), "{waits:?}");
    }

    #[test]
    fn retry_after_parses_seconds_and_dates() {
        let now = httpdate::parse_http_date("Sun, 06 Nov 1994 08:49:37 GMT").unwrap();
        assert_eq!(
            parse_retry_after("120", now),
            Some(Duration::from_secs(120))
        );
        assert_eq!(
            parse_retry_after(" Sun, 06 Nov 1994 08:49:47 GMT ", now),
            Some(Duration::from_secs(10))
        );
        assert_eq!(
            parse_retry_after("Sun, 06 Nov 1994 08:49:00 GMT", now),
            Some(Duration::ZERO)
        );
        assert_eq!(parse_retry_after("soon", now), None);
        assert_eq!(parse_retry_after("-1", now), None);
    }
}
