//! Capacity in session arrivals on open-loop sweeps whose answers are known: the knee
//! inside the sweep with its plan, an overloaded rate within the SLO (never the answer), a
//! cap that held starts back, the highest rate passing ("at least"), none passing, and
//! cells that are not open-loop sessions left out.

use super::*;
use crate::capacity::tests::fixtures::{config, refs, sessions, summary};
use crate::load::LoadInfo;

/// A real complete cell summary as an open loop offering `rate` session starts per second,
/// turn TTFT p99 `ttft` ms, TPOT p99 40 ms, steady, not overloaded, every start sent, and
/// `100 x rate` sessions active.
fn cell(rate: f64, ttft: f64) -> (String, CellSummary) {
    let mut s = summary(ttft, 40.0);
    s.cell.load = LoadInfo {
        request_rate: Some(rate),
        rate_unit: Some(RateUnit::Sessions),
        ..LoadInfo::default()
    };
    s.metrics.steady.steady = true;
    s.metrics.steady.overloaded = false;
    s.metrics.throughput.window_s = 600.0;
    s.metrics.sessions = Some(Box::new(SessionMetrics {
        session_starts_offered_per_minute: Some(60.0 * rate),
        session_starts_per_minute: Some(60.0 * rate),
        ..sessions(100.0 * rate, 30.0 * rate, 70.0 * rate, 60.0 * rate)
    }));
    (format!("s{rate}"), s)
}

fn answer(cells: &[(String, CellSummary)], target: Option<u32>) -> SessionRateCapacity {
    session_rate_capacity(["vllm", "llama-8b", "D"], &refs(cells), &config(target)).unwrap()
}

#[test]
fn the_knee_inside_the_sweep_in_sessions_per_minute_with_its_plan() {
    // Out of order: 0.4/s fails on TTFT (900 > 500); 0.8/s too.
    let cells = [
        cell(0.4, 900.0),
        cell(0.1, 200.0),
        cell(0.2, 450.0),
        cell(0.8, 3000.0),
    ];
    let a = answer(&cells, Some(100));
    assert_eq!(a.status, SessionStatus::Found);
    assert_eq!(a.max_starts_per_minute, Some(12.0));
    assert_eq!(a.failing_starts_per_minute, Some(24.0));
    assert_eq!(a.first_failed.as_deref(), Some("ttft_p99_ms"));
    // 0.2 starts/s x 100 = 20 sessions active: 100 users / 20 = 5; 125 / 20 = 6.25 -> 7.
    assert_eq!(a.sessions_active_mean, Some(20.0));
    assert_eq!(a.requests_in_flight_mean, Some(6.0));
    let plan = a.plan.clone().unwrap();
    assert_eq!((plan.instances, plan.instances_with_headroom), (5, 7));
    let rates: Vec<f64> = a.cells.iter().map(|c| c.starts_per_minute).collect();
    assert_eq!(rates, [6.0, 12.0, 24.0, 48.0]);
    let bounds: Vec<&str> = a.cells[0].checks.iter().map(|c| c.bound.as_str()).collect();
    assert_eq!(
        bounds,
        [
            "ttft_p99_ms",
            "tpot_p99_ms",
            "overloaded",
            "session_starts_per_minute",
            "steady"
        ]
    );
    assert!(a.notes.is_empty(), "{:?}", a.notes);
    assert_eq!(
        a.answer(),
        "vllm/llama-8b/D: 12 session starts/min within the SLO, steady, not overloaded \
         (20.0 sessions active); 24/min fails on ttft_p99_ms; 100 concurrent users need 5 \
         instances (7 with 25% headroom)"
    );
}

#[test]
fn an_overloaded_rate_is_never_the_answer_even_within_the_slo() {
    let mut over = cell(0.4, 100.0);
    over.1.metrics.steady.overloaded = true;
    let cells = [cell(0.1, 100.0), cell(0.2, 100.0), over, cell(0.8, 100.0)];
    let a = answer(&cells, None);
    assert_eq!(a.status, SessionStatus::Found);
    assert_eq!(
        (a.max_starts_per_minute, a.failing_starts_per_minute),
        (Some(12.0), Some(24.0))
    );
    assert_eq!(a.first_failed.as_deref(), Some("overloaded"));
    assert_eq!(a.plan, None);
    assert_eq!(
        a.notes,
        ["48/min met the SLO, steady, but 24/min below it did not: left out"]
    );
}

#[test]
fn a_cap_that_held_starts_back_fails_and_unsteady_fails() {
    // 600 s window: 240 starts offered, 120 sent: short by half, 6.3 standard errors
    // (120 / sqrt(360)); 180 sent would be 2.9, within chance.
    let mut capped = cell(0.4, 100.0);
    let sessions = capped.1.metrics.sessions.as_mut().unwrap();
    sessions.session_starts_per_minute = Some(12.0);
    let a = answer(&[cell(0.2, 100.0), capped], None);
    assert_eq!(a.max_starts_per_minute, Some(12.0));
    assert_eq!(a.first_failed.as_deref(), Some("session_starts_per_minute"));
    assert_eq!(a.cells[1].achieved_starts_per_minute, Some(12.0));
    let mut near = cell(0.4, 100.0);
    near.1
        .metrics
        .sessions
        .as_mut()
        .unwrap()
        .session_starts_per_minute = Some(18.0);
    let a = answer(&[cell(0.2, 100.0), near], None);
    assert_eq!(a.max_starts_per_minute, Some(24.0));

    let mut unsteady = cell(0.2, 100.0);
    unsteady.1.metrics.steady.steady = false;
    let a = answer(&[cell(0.1, 100.0), unsteady], None);
    assert_eq!(a.max_starts_per_minute, Some(6.0));
    assert_eq!(a.first_failed.as_deref(), Some("steady"));
}

#[test]
fn the_highest_rate_passing_is_at_least_and_none_passing_has_no_answer() {
    let a = answer(&[cell(0.1, 100.0), cell(0.2, 100.0)], Some(10));
    assert_eq!(a.status, SessionStatus::AtLeast);
    assert_eq!(
        (a.max_starts_per_minute, a.failing_starts_per_minute),
        (Some(12.0), None)
    );
    // 10 users / 20 active = 0.5 -> 1 instance.
    assert_eq!(a.plan.clone().unwrap().instances, 1);
    assert!(
        a.notes[0].contains("at least 12 session starts/min"),
        "{:?}",
        a.notes
    );

    let a = answer(&[cell(0.1, 600.0), cell(0.2, 900.0)], Some(10));
    assert_eq!(a.status, SessionStatus::NonePassed);
    assert_eq!((a.max_starts_per_minute, a.plan.clone()), (None, None));
    assert_eq!(a.failing_starts_per_minute, Some(6.0));
    assert_eq!(
        a.answer(),
        "vllm/llama-8b/D: no session start rate met the SLO (lowest run 6/min)"
    );
}

#[test]
fn request_rates_closed_loops_and_repeats_are_left_out() {
    let (dir, mut requests) = cell(0.1, 100.0);
    requests.cell.load.rate_unit = None;
    let (cdir, mut closed) = cell(0.2, 100.0);
    closed.cell.load = LoadInfo {
        concurrency: Some(4),
        ..LoadInfo::default()
    };
    let refs = [(dir, &requests), (cdir, &closed)];
    assert_eq!(
        session_rate_capacity(["e", "m", "D"], &refs, &config(None)),
        None
    );
    let first = cell(0.2, 100.0);
    let (_, mut second) = cell(0.2, 900.0);
    second.cell.repeat = 2;
    let refs = [(first.0.clone(), &first.1), ("s0.2-2".into(), &second)];
    let a = session_rate_capacity(["e", "m", "D"], &refs, &config(None)).unwrap();
    assert_eq!((a.cells.len(), a.max_starts_per_minute), (1, Some(12.0)));
}
