//! The output lengths the measured requests asked for (`max_tokens`, each request's own when
//! lengths follow a distribution), and how many successful replies came back shorter.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Distribution, Window};
use crate::sample::Sample;

/// Requested output lengths over the measured requests (started in `[m0, m1)`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RequestedTokens {
    /// `max_tokens` asked for, over the measured requests of every outcome that recorded it.
    pub max_tokens: Distribution,
    /// Measured successful requests with both a requested length and an output count.
    pub replies: u64,
    /// Of those, the ones whose reply was shorter than the request asked for (the engine
    /// stopped at EOS, or ignored `ignore_eos`).
    pub short_replies: u64,
}

impl RequestedTokens {
    /// Over the requests of `samples` that `window` measures; `None` when none recorded a
    /// requested length (records written before plateau kept it).
    pub fn measure(samples: &[Sample], window: &Window) -> Option<RequestedTokens> {
        let measured: Vec<&Sample> = samples.iter().filter(|s| window.measures(s)).collect();
        let asked: Vec<f64> = measured
            .iter()
            .filter_map(|s| s.max_tokens.map(f64::from))
            .collect();
        let max_tokens = Distribution::from_values(&asked)?;
        let pairs: Vec<(u32, u32)> = measured
            .iter()
            .filter(|s| s.outcome.is_ok())
            .filter_map(|s| Some((s.max_tokens?, s.n_out?)))
            .collect();
        Some(RequestedTokens {
            max_tokens,
            replies: pairs.len() as u64,
            short_replies: pairs.iter().filter(|(asked, got)| got < asked).count() as u64,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::{ok, sample, window};
    use super::*;

    #[test]
    fn counts_what_measured_requests_asked_for_and_short_replies() {
        let asking = |t_sent_us: u64, tokens: u32, max_tokens: Option<u32>| Sample {
            max_tokens,
            ..ok(sample(
                t_sent_us,
                &[(t_sent_us + 10, tokens)],
                t_sent_us + 20,
            ))
        };
        let samples = vec![
            asking(500, 8, Some(8)),     // before m0: not measured
            asking(1_000, 10, Some(10)), // full reply
            asking(1_100, 4, Some(20)),  // short
            asking(1_200, 30, Some(30)), // full
            Sample {
                max_tokens: Some(40),
                ..sample(1_300, &[], 1_400) // failed: counts as asked, not as a reply
            },
            asking(1_400, 5, None),     // no requested length recorded
            asking(3_000, 1, Some(99)), // after m1
        ];
        let r = RequestedTokens::measure(&samples, &window(1_000, 2_000, 4)).unwrap();
        assert_eq!(r.max_tokens.n, 4);
        assert_eq!(r.max_tokens.mean, 25.0); // (10 + 20 + 30 + 40) / 4
        assert_eq!(r.max_tokens.min, 10.0);
        assert_eq!(r.max_tokens.max, 40.0);
        assert_eq!((r.replies, r.short_replies), (3, 1));
        let none = vec![asking(1_000, 3, None)];
        assert_eq!(RequestedTokens::measure(&none, &window(0, 2_000, 1)), None);
    }
}
