//! Session results ([`SessionMetrics`]): for a cell whose requests are turns of sessions,
//! sessions active against requests in flight (a slot thinking between turns holds a
//! session, not a request), sessions completed and their turns, duration and rate, the
//! think time waited, in an open loop the session starts offered against those sent, and
//! per turn bucket (1, 2-4, 5-9, 10+) TTFT, TPOT and the prefix
//! cache: the share of prompt tokens the server says it reused against the ideal share
//! (the earlier turns' tokens over the prompt's), and the gap between them; TTFT and TPOT
//! by context length ([`context`]).

mod context;

use std::collections::{BTreeMap, HashMap};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::concurrency::InFlight;
use super::distribution::Distribution;
use super::{Window, over, us_to_ms};
use crate::sample::Sample;
pub use context::{ContextBucket, context_buckets};

/// The sessions of one cell.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SessionMetrics {
    /// Sessions the cell holds (closed loop: N slots, one session each); absent for an
    /// open loop.
    pub sessions_target: Option<u32>,
    /// Time-weighted mean of sessions active over Measure: requests in flight plus slots
    /// waiting (think time, backoff) between turns.
    pub sessions_active_mean: f64,
    /// Time-weighted mean of requests in flight over Measure (what the server saw).
    pub requests_in_flight_mean: f64,
    /// Time-weighted mean of slots in think time over Measure.
    pub thinking_mean: f64,
    /// Sessions whose last turn succeeded and ended inside Measure.
    pub sessions_completed: u64,
    /// Sessions that ended inside Measure on a failed turn.
    pub sessions_failed: u64,
    /// Completed sessions per minute of Measure.
    pub sessions_per_minute: Option<f64>,
    /// Open loop: sessions whose first turn's intended send (its arrival) fell inside
    /// Measure, per minute: the session starts the schedule offered (absent where no first
    /// turn has an intended send: a closed loop).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_starts_offered_per_minute: Option<f64>,
    /// Open loop: sessions started by an arrival whose first turn was sent inside Measure,
    /// per minute: below the offered when a `max_concurrency` cap holds starts back.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_starts_per_minute: Option<f64>,
    /// Turns of each completed session.
    pub turns_per_session: Option<Distribution>,
    /// Each completed session's first send to its last turn's end, s.
    pub session_duration_s: Option<Distribution>,
    /// Think time waited after each measured turn that was followed by another, ms.
    pub think_ms: Option<Distribution>,
    /// Per turn bucket, over the measured successful turns.
    pub by_turn: Vec<TurnBucket>,
    /// Per bucket of the turn's prompt tokens (`<1k`, `1k-4k`, `4k-16k`, `16k-64k`,
    /// `64k+`; k = 1,024), over the measured successful turns whose prompt length is known;
    /// empty buckets left out.
    #[serde(default)]
    pub by_context: Vec<ContextBucket>,
    /// Session metrics that could not be measured, each with the reason.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub unmeasured: BTreeMap<String, String>,
}

/// One bucket of turn indices (1, 2-4, 5-9, 10+; counted from 1).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TurnBucket {
    /// The turns it holds, counted from 1: `1`, `2-4`, `5-9` or `10+`.
    pub turns: String,
    /// Measured successful requests in it.
    pub requests: u64,
    /// Their TTFT.
    pub ttft_ms: Option<Distribution>,
    /// Their TPOT.
    pub tpot_ms: Option<Distribution>,
    /// Prompt tokens the server reused from its cache over the prompt tokens of the
    /// requests where it said (`usage.prompt_tokens_details.cached_tokens`, llama.cpp
    /// `timings.cache_n`); absent when it never said.
    pub cached_share: Option<f64>,
    /// The earlier turns' tokens over the prompt's (client tokenizer): what an ideal
    /// prefix cache holding the session's history could reuse.
    pub ideal_share: Option<f64>,
    /// `ideal_share - cached_share`: history the server recomputed.
    pub gap: Option<f64>,
}

const BUCKETS: [(&str, u32, u32); 4] = [
    ("1", 0, 0),
    ("2-4", 1, 3),
    ("5-9", 4, 8),
    ("10+", 9, u32::MAX),
];

/// The turn buckets' names in order (`1`, `2-4`, `5-9`, `10+`): what [`TurnBucket::turns`]
/// holds.
pub fn turn_buckets() -> [&'static str; 4] {
    BUCKETS.map(|b| b.0)
}

/// The session results of `samples` (all of the cell's requests), `ok` its measured
/// successful ones; `None` when no request is a session turn.
pub(crate) fn measure(
    samples: &[Sample],
    ok: &[&Sample],
    window: &Window,
) -> Option<SessionMetrics> {
    let turns: Vec<&Sample> = samples.iter().filter(|s| s.session_id.is_some()).collect();
    if turns.is_empty() {
        return None;
    }
    let (m0, m1) = (window.m0_us, window.m1_us);
    let in_flight = InFlight::from_spans(turns.iter().map(|s| (s.t_sent_us, s.t_end_us)));
    let waits = |s: &Sample| s.think_us.or(s.backoff_us).unwrap_or(0);
    let active = InFlight::from_spans(
        turns
            .iter()
            .map(|s| (s.t_sent_us, s.t_end_us.saturating_add(waits(s)))),
    );
    let thinking = InFlight::from_spans(turns.iter().filter_map(|s| {
        s.think_us
            .map(|t| (s.t_end_us, s.t_end_us.saturating_add(t)))
    }));
    let ends = Ends::count(&turns, window);
    let minutes = (m1.saturating_sub(m0)) as f64 / 60e6;
    let (offered, started) = starts(&turns, window);
    let per_minute = |n: Option<u64>| n.filter(|_| minutes > 0.0).map(|n| n as f64 / minutes);
    let measured_turns: Vec<&Sample> = turns
        .iter()
        .copied()
        .filter(|s| window.measures(s))
        .collect();
    let by_turn = buckets(ok);
    let mut unmeasured = BTreeMap::new();
    if by_turn.iter().all(|b| b.cached_share.is_none()) {
        unmeasured.insert(
            "cached_share".to_owned(),
            "the server reported no cached prompt tokens \
             (usage.prompt_tokens_details.cached_tokens, llama.cpp timings.cache_n)"
                .to_owned(),
        );
    }
    if ends.completed.is_empty() {
        unmeasured.insert(
            "session_duration_s".to_owned(),
            "no session completed inside Measure (sessions longer than the window)".to_owned(),
        );
    }
    Some(SessionMetrics {
        sessions_target: window.concurrency,
        sessions_active_mean: active.mean(m0, m1).unwrap_or(0.0),
        requests_in_flight_mean: in_flight.mean(m0, m1).unwrap_or(0.0),
        thinking_mean: thinking.mean(m0, m1).unwrap_or(0.0),
        sessions_completed: ends.completed.len() as u64,
        sessions_failed: ends.failed,
        sessions_per_minute: (minutes > 0.0).then(|| ends.completed.len() as f64 / minutes),
        session_starts_offered_per_minute: per_minute(offered),
        session_starts_per_minute: per_minute(started),
        turns_per_session: Distribution::from_values(
            &ends
                .completed
                .iter()
                .map(|c| f64::from(c.turns))
                .collect::<Vec<_>>(),
        ),
        session_duration_s: Distribution::from_values(
            &ends
                .completed
                .iter()
                .map(|c| c.duration_us as f64 / 1e6)
                .collect::<Vec<_>>(),
        ),
        think_ms: over(&measured_turns, |s| s.think_us.map(|t| us_to_ms(t as f64))),
        by_turn,
        by_context: context::by_context(ok),
        unmeasured,
    })
}

/// Of the sessions whose first turn has an intended send (started by an open-loop
/// arrival): how many were due inside Measure, and how many were sent inside it; `None`
/// for both when no session has such a first turn.
fn starts(turns: &[&Sample], window: &Window) -> (Option<u64>, Option<u64>) {
    let mut first: HashMap<&str, &Sample> = HashMap::new();
    for s in turns {
        if let Some(id) = s.session_id.as_deref() {
            let e = first.entry(id).or_insert(s);
            if (s.t_start_us(), s.seq) < (e.t_start_us(), e.seq) {
                *e = s;
            }
        }
    }
    let arrivals: Vec<&Sample> = first
        .into_values()
        .filter(|s| s.t_intended_us.is_some())
        .collect();
    if arrivals.is_empty() {
        return (None, None);
    }
    let inside = |t: u64| (window.m0_us..window.m1_us).contains(&t);
    let count = |t: fn(&Sample) -> u64| arrivals.iter().filter(|s| inside(t(s))).count() as u64;
    (
        Some(count(Sample::t_start_us)),
        Some(count(|s| s.t_sent_us)),
    )
}

/// One completed session.
struct Completed {
    turns: u32,
    duration_us: u64,
}

/// The sessions that ended inside Measure.
struct Ends {
    completed: Vec<Completed>,
    failed: u64,
}

impl Ends {
    fn count(turns: &[&Sample], window: &Window) -> Ends {
        // Every turn of a session, to find its first send and count its turns.
        let mut first: HashMap<&str, (u64, u32)> = HashMap::new();
        for s in turns {
            if let Some(id) = s.session_id.as_deref() {
                let e = first.entry(id).or_insert((s.t_sent_us, 0));
                e.0 = e.0.min(s.t_sent_us);
                e.1 += 1;
            }
        }
        let mut ends = Ends {
            completed: Vec::new(),
            failed: 0,
        };
        let inside = |t: u64| (window.m0_us..window.m1_us).contains(&t);
        for s in turns.iter().filter(|s| s.session_end && inside(s.t_end_us)) {
            if !s.outcome.is_ok() {
                ends.failed += 1;
                continue;
            }
            let Some(&(start, turns)) = s.session_id.as_deref().and_then(|id| first.get(id)) else {
                continue;
            };
            ends.completed.push(Completed {
                turns,
                duration_us: s.t_end_us.saturating_sub(start),
            });
        }
        ends
    }
}

/// The turn buckets of `ok`, those with a turn index; empty buckets left out.
fn buckets(ok: &[&Sample]) -> Vec<TurnBucket> {
    context::in_ranges(ok, &BUCKETS, |s| s.turn, bucket)
}

fn bucket(name: &str, group: &[&Sample]) -> TurnBucket {
    let share = |pairs: &mut dyn Iterator<Item = (u32, u32)>| {
        let (part, whole) = pairs.fold((0u64, 0u64), |(p, w), (a, b)| {
            (p + u64::from(a), w + u64::from(b))
        });
        (whole > 0).then(|| part as f64 / whole as f64)
    };
    let cached_share = share(&mut group.iter().filter_map(|s| Some((s.n_in_cached?, s.n_in?))));
    let ideal_share = share(
        &mut group
            .iter()
            .filter_map(|s| Some((s.n_in_prior?, s.n_in_target?))),
    );
    TurnBucket {
        turns: name.to_owned(),
        requests: group.len() as u64,
        ttft_ms: over(group, |s| s.ttft_us().map(|us| us_to_ms(us as f64))),
        tpot_ms: over(group, |s| s.tpot_us().map(us_to_ms)),
        cached_share,
        ideal_share,
        gap: ideal_share.zip(cached_share).map(|(i, c)| i - c),
    }
}

#[cfg(test)]
mod tests;
