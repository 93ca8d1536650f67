//! Session results against a hand-computed cell of two slots.

use super::*;
use crate::metrics::fixtures;
use crate::sample::Outcome;

const S: u64 = 1_000_000;

/// A turn of `session` sent at `from` s, ending at `to` s, then thinking `think` s.
fn turn(session: &str, turn: u32, from: u64, to: u64, think: Option<u64>) -> Sample {
    let mut s = fixtures::ok(fixtures::sample(
        from * S,
        &[(from * S + 100_000, 1), (to * S, 1)],
        to * S,
    ));
    s.session_id = Some(session.into());
    s.turn = Some(turn);
    s.think_us = think.map(|t| t * S);
    s
}

/// Window [0, 10 s], N = 2.
/// Slot 0: session 0-0 turn 0 [0, 2) thinks 2 s, turn 1 [4, 6) ends the session;
///         session 0-1 turn 0 [6, 8) thinks 2 s (to 10 s).
/// Slot 1: session 1-0 turn 0 [0, 10), still running.
fn cell() -> Vec<Sample> {
    let mut first = turn("0-0", 0, 0, 2, Some(2));
    first.n_in_prior = Some(0);
    first.n_in_target = Some(10);
    first.n_in_cached = Some(0);
    let mut second = turn("0-0", 1, 4, 6, None);
    second.session_end = true;
    second.n_in = Some(100);
    second.n_in_target = Some(100);
    second.n_in_prior = Some(80);
    second.n_in_cached = Some(60);
    vec![
        first,
        second,
        turn("0-1", 0, 6, 8, Some(2)),
        turn("1-0", 0, 0, 10, None),
    ]
}

#[test]
fn sessions_active_in_flight_and_thinking_are_time_weighted() {
    let samples = cell();
    let ok: Vec<&Sample> = samples.iter().collect();
    let m = measure(&samples, &ok, &fixtures::window(0, 10 * S, 2)).expect("sessions");
    assert_eq!(m.sessions_target, Some(2));
    // In flight: slot 0 for 6 s, slot 1 for 10 s, over 10 s.
    assert!((m.requests_in_flight_mean - 1.6).abs() < 1e-12);
    // Thinking: [2, 4) and [8, 10).
    assert!((m.thinking_mean - 0.4).abs() < 1e-12);
    // Active: both slots all the time = in flight + thinking.
    assert!((m.sessions_active_mean - 2.0).abs() < 1e-12);
    assert_eq!((m.sessions_completed, m.sessions_failed), (1, 0));
    assert_eq!(m.sessions_per_minute, Some(6.0));
    let turns = m.turns_per_session.expect("turns");
    assert_eq!((turns.n, turns.mean), (1, 2.0));
    assert_eq!(m.session_duration_s.expect("duration").mean, 6.0);
    let think = m.think_ms.expect("think");
    assert_eq!((think.n, think.mean), (2, 2000.0));
    // A closed loop's sessions are not started by arrivals.
    assert_eq!(m.session_starts_offered_per_minute, None);
    assert_eq!(m.session_starts_per_minute, None);
}

#[test]
fn open_loop_session_starts_offered_against_sent() {
    // Window [10 s, 70 s]: one minute. Each session's first turn is its arrival's.
    let arrival = |session: &str, intended: u64, sent: u64| {
        let mut s = turn(session, 0, sent, sent + 1, Some(1));
        s.t_intended_us = Some(intended * S);
        s
    };
    let samples = vec![
        // Due and sent before Measure; its later turn inside is no start.
        arrival("a", 5, 5),
        turn("a", 1, 20, 21, None),
        // Due and sent inside.
        arrival("b", 20, 20),
        // Its sub-agent starts inside, from its parent, not from an arrival.
        turn("b/0", 0, 30, 31, None),
        // Due inside, queued past the end (a cap): offered, not sent inside.
        arrival("c", 69, 71),
    ];
    let window = Window {
        m0_us: 10 * S,
        m1_us: 70 * S,
        concurrency: None,
    };
    let m = measure(&samples, &[], &window).expect("sessions");
    assert_eq!(m.sessions_target, None);
    assert_eq!(m.session_starts_offered_per_minute, Some(2.0));
    assert_eq!(m.session_starts_per_minute, Some(1.0));
}

#[test]
fn turn_buckets_compare_the_cached_share_with_the_ideal() {
    let samples = cell();
    let ok: Vec<&Sample> = samples.iter().collect();
    let m = measure(&samples, &ok, &fixtures::window(0, 10 * S, 2)).expect("sessions");
    let names: Vec<&str> = m.by_turn.iter().map(|b| b.turns.as_str()).collect();
    assert_eq!(names, ["1", "2-4"]);
    let (first, later) = (&m.by_turn[0], &m.by_turn[1]);
    assert_eq!(first.requests, 3);
    assert_eq!(
        (first.cached_share, first.ideal_share),
        (Some(0.0), Some(0.0))
    );
    assert_eq!(first.ttft_ms.as_ref().expect("ttft").p50, 100.0);
    assert_eq!(later.requests, 1);
    assert_eq!(later.cached_share, Some(0.6));
    assert_eq!(later.ideal_share, Some(0.8));
    assert!((later.gap.expect("gap") - 0.2).abs() < 1e-12);
    // TPOT of turn 2: (6 s - 4.1 s) / 1.
    assert_eq!(later.tpot_ms.as_ref().expect("tpot").p50, 1900.0);
    assert!(m.unmeasured.is_empty(), "{:?}", m.unmeasured);
}

#[test]
fn absent_without_sessions_and_reasons_for_what_cannot_be_measured() {
    let plain = vec![fixtures::ok(fixtures::sample(0, &[(5, 1)], 10))];
    let ok: Vec<&Sample> = plain.iter().collect();
    assert_eq!(measure(&plain, &ok, &fixtures::window(0, S, 1)), None);

    // One session, its last turn failed; no cache counts.
    let mut failed = turn("0-0", 0, 0, 2, None);
    failed.outcome = Outcome::Stream;
    failed.session_end = true;
    let samples = vec![failed];
    let m = measure(&samples, &[], &fixtures::window(0, 10 * S, 1)).expect("sessions");
    assert_eq!((m.sessions_completed, m.sessions_failed), (0, 1));
    assert_eq!(m.turns_per_session, None);
    assert!(m.by_turn.is_empty());
    assert!(m.unmeasured.contains_key("cached_share"));
    assert!(m.unmeasured.contains_key("session_duration_s"));
}

#[test]
fn context_buckets_group_turns_by_prompt_tokens_at_their_edges() {
    // Turn TTFT 100 ms each except where set; prompt tokens at and around the edges.
    let with = |n_in: Option<u32>, first_ms: u64, to: u64| {
        let mut s = turn("x", 0, 0, to, None);
        s.n_in = n_in;
        s.chunks[0].t_us = first_ms * 1000;
        s
    };
    let samples = vec![
        with(Some(1023), 100, 2),
        with(Some(10), 300, 2),
        with(Some(1024), 200, 3),
        with(Some(4095), 400, 3),
        with(Some(16 * 1024), 50, 1),
        with(None, 900, 2),
    ];
    let ok: Vec<&Sample> = samples.iter().collect();
    let m = measure(&samples, &ok, &fixtures::window(0, 10 * S, 1)).expect("sessions");
    let names: Vec<&str> = m.by_context.iter().map(|b| b.tokens.as_str()).collect();
    assert_eq!(names, ["<1k", "1k-4k", "16k-64k"]);
    let counts: Vec<u64> = m.by_context.iter().map(|b| b.requests).collect();
    assert_eq!(counts, [2, 2, 1]);
    let ttft = |i: usize| m.by_context[i].ttft_ms.clone().expect("ttft");
    // <1k: 100 and 300 ms: p50 200, p99 100 + 0.99 x 200 (linear interpolation).
    assert_eq!(ttft(0).p50, 200.0);
    assert!((ttft(0).p99 - 298.0).abs() < 1e-9);
    // 1k-4k: 200 and 400 ms.
    assert_eq!(ttft(1).p50, 300.0);
    // TPOT: (t_last - t_first) / (n_out - 1): (3 s - 0.2 s) and (3 s - 0.4 s).
    let tpot = m.by_context[1].tpot_ms.clone().expect("tpot");
    assert_eq!((tpot.n, tpot.p50), (2, 2700.0));
    assert_eq!(ttft(2).p50, 50.0);
    assert_eq!(
        context_buckets(),
        ["<1k", "1k-4k", "4k-16k", "16k-64k", "64k+"]
    );
}
