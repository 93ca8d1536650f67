//! Multi-turn breakdown ([`TurnMetrics`]): TTFT and prompt length per conversation turn, so a
//! reader sees how latency grows with the history each turn resends.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::distribution::Distribution;
use super::us_to_ms;
use crate::sample::Sample;

/// One turn index over the measured successful requests that carried it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TurnMetrics {
    /// Turn index within a conversation, from 0.
    pub turn: u32,
    /// TTFT of the requests at this turn.
    pub ttft_ms: Option<Distribution>,
    /// Prompt tokens (`n_in`) of the requests at this turn.
    pub input_tokens: Option<Distribution>,
}

/// Groups `ok` (measured successful requests) by turn; empty when no request has a turn.
pub(crate) fn by_turn(ok: &[&Sample]) -> Vec<TurnMetrics> {
    let mut groups: BTreeMap<u32, Vec<&Sample>> = BTreeMap::new();
    for s in ok {
        if let Some(turn) = s.turn {
            groups.entry(turn).or_default().push(s);
        }
    }
    groups
        .into_iter()
        .map(|(turn, group)| TurnMetrics {
            turn,
            ttft_ms: super::over(&group, |s| s.ttft_us().map(|us| us_to_ms(us as f64))),
            input_tokens: super::over(&group, |s| s.n_in.map(f64::from)),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::fixtures;

    #[test]
    fn groups_by_turn_and_skips_requests_without_one() {
        // Turn 0: TTFT 10 and 20 ms; turn 2: 50 ms; one request with no turn.
        let mk = |turn, ttft_us: u64, n_in| {
            let mut s = fixtures::ok(fixtures::sample(
                0,
                &[(ttft_us, 1), (ttft_us + 5_000, 1)],
                ttft_us + 5_000,
            ));
            s.turn = turn;
            s.n_in = Some(n_in);
            s
        };
        let samples = [
            mk(Some(0), 10_000, 100),
            mk(Some(0), 20_000, 120),
            mk(Some(2), 50_000, 400),
            mk(None, 1_000, 5),
        ];
        let refs: Vec<&Sample> = samples.iter().collect();
        let turns = by_turn(&refs);
        assert_eq!(turns.iter().map(|t| t.turn).collect::<Vec<_>>(), [0, 2]);
        let t0 = turns[0].ttft_ms.as_ref().unwrap();
        assert_eq!((t0.n, t0.p50), (2, 15.0));
        assert_eq!(turns[0].input_tokens.as_ref().unwrap().mean, 110.0);
        assert_eq!(turns[1].ttft_ms.as_ref().unwrap().p50, 50.0);
    }
}
