//! Capacity in sessions on sweeps whose answers are known: the knee inside the sweep, the
//! largest N passing ("at least"), none passing, an unsteady cell, a pass above a failure,
//! an interrupted cell, and the instance plan for a target number of users.

use super::*;
use crate::capacity::tests::fixtures::{config, refs, sessions, summary};
use crate::metrics::SessionMetrics;

/// A real complete cell summary as N = `n` concurrent sessions with turn TTFT p99 `ttft`
/// ms, TPOT p99 `tpot` ms, steady or not, `n / 2` sessions per minute and `0.75 n` requests
/// in flight.
fn cell(n: u32, ttft: f64, tpot: f64, steady: bool) -> (String, CellSummary) {
    let mut s = summary(ttft, tpot);
    s.cell.load.concurrency = Some(n);
    s.metrics.steady.steady = steady;
    let n_f = f64::from(n);
    s.metrics.sessions = Some(Box::new(SessionMetrics {
        sessions_target: Some(n),
        ..sessions(n_f, 0.75 * n_f, 0.25 * n_f, n_f / 2.0)
    }));
    (format!("c{n}"), s)
}

fn answer(cells: &[(String, CellSummary)], target: Option<u32>) -> SessionCapacity {
    session_capacity(["vllm", "llama-8b", "D"], &refs(cells), &config(target)).unwrap()
}

#[test]
fn the_knee_inside_the_sweep_is_the_answer_with_its_plan() {
    // Given out of order: N = 16 fails on TTFT (900 > 500), 32 on both.
    let cells = [
        cell(16, 900.0, 40.0, true),
        cell(4, 200.0, 20.0, true),
        cell(8, 450.0, 45.0, true),
        cell(32, 2000.0, 80.0, true),
    ];
    let a = answer(&cells, Some(100));
    assert_eq!(a.status, SessionStatus::Found);
    assert_eq!((a.max_sessions, a.failing_sessions), (Some(8), Some(16)));
    assert_eq!(a.first_failed.as_deref(), Some("ttft_p99_ms"));
    assert_eq!(a.sessions_per_minute, Some(4.0));
    assert_eq!(a.requests_in_flight_mean, Some(6.0));
    // 100 / 8 = 12.5 -> 13; 125 / 8 = 15.6 -> 16.
    let plan = a.plan.clone().unwrap();
    assert_eq!((plan.target_sessions, plan.instances), (100, 13));
    assert_eq!((plan.headroom, plan.instances_with_headroom), (0.25, 16));
    let ns: Vec<u32> = a.cells.iter().map(|c| c.sessions).collect();
    assert_eq!(ns, [4, 8, 16, 32]);
    let passed: Vec<bool> = a.cells.iter().map(|c| c.passed).collect();
    assert_eq!(passed, [true, true, false, false]);
    let bounds: Vec<&str> = a.cells[2].checks.iter().map(|c| c.bound.as_str()).collect();
    assert_eq!(bounds, ["ttft_p99_ms", "tpot_p99_ms", "steady"]);
    assert_eq!(a.cells[2].checks[0].value, Some(900.0));
    assert!(a.notes.is_empty(), "{:?}", a.notes);
    assert_eq!(
        a.answer(),
        "vllm/llama-8b/D: 8 concurrent sessions within the SLO, steady; N = 16 fails on \
         ttft_p99_ms; 100 sessions need 13 instances (16 with 25% headroom)"
    );
}

#[test]
fn the_largest_n_passing_is_at_least() {
    let cells = [cell(4, 200.0, 20.0, true), cell(8, 300.0, 30.0, true)];
    let a = answer(&cells, Some(16));
    assert_eq!(a.status, SessionStatus::AtLeast);
    assert_eq!((a.max_sessions, a.failing_sessions), (Some(8), None));
    assert_eq!(a.first_failed, None);
    let plan = a.plan.clone().unwrap();
    // 16 / 8 = 2 exactly (not 3); 20 / 8 = 2.5 -> 3.
    assert_eq!((plan.instances, plan.instances_with_headroom), (2, 3));
    assert_eq!(a.notes.len(), 1);
    assert!(a.notes[0].contains("at least 8 sessions"), "{:?}", a.notes);
    assert!(a.answer().contains(": at least 8 concurrent sessions"));
}

#[test]
fn none_passing_has_no_answer_and_no_plan() {
    let cells = [cell(4, 600.0, 20.0, true), cell(8, 900.0, 60.0, true)];
    let a = answer(&cells, Some(100));
    assert_eq!(a.status, SessionStatus::NonePassed);
    assert_eq!((a.max_sessions, a.failing_sessions), (None, Some(4)));
    assert_eq!(a.first_failed.as_deref(), Some("ttft_p99_ms"));
    assert_eq!((a.plan.clone(), a.sessions_per_minute), (None, None));
    assert_eq!(
        a.answer(),
        "vllm/llama-8b/D: no N met the SLO in sessions (smallest run N = 4)"
    );
}

#[test]
fn an_unsteady_cell_fails_even_within_the_slo() {
    let cells = [
        cell(4, 200.0, 20.0, true),
        cell(8, 300.0, 30.0, false),
        cell(16, 400.0, 40.0, true),
    ];
    let a = answer(&cells, None);
    assert_eq!(a.status, SessionStatus::Found);
    assert_eq!((a.max_sessions, a.failing_sessions), (Some(4), Some(8)));
    assert_eq!(a.first_failed.as_deref(), Some("steady"));
    assert_eq!(a.plan, None);
    assert_eq!(
        a.notes,
        ["N = 16 met the SLO, steady, but N = 8 below it did not: left out"]
    );
}

#[test]
fn tpot_alone_can_fail_and_interrupted_cells_are_not_judged() {
    let mut interrupted = cell(16, 9000.0, 90.0, false);
    interrupted.1.status = CellStatus::Interrupted;
    let cells = [
        cell(4, 200.0, 20.0, true),
        cell(8, 300.0, 51.0, true),
        interrupted,
    ];
    let a = answer(&cells, None);
    assert_eq!((a.max_sessions, a.failing_sessions), (Some(4), Some(8)));
    assert_eq!(a.first_failed.as_deref(), Some("tpot_p99_ms"));
    assert_eq!(a.notes, ["N = 16 was interrupted: not judged"]);
    assert!(!a.cells[2].passed);

    let mut alone = cell(4, 200.0, 20.0, true);
    alone.1.status = CellStatus::Interrupted;
    let a = answer(&[alone], None);
    assert_eq!((a.status, a.max_sessions), (SessionStatus::Stopped, None));
}

#[test]
fn cells_without_sessions_repeats_and_open_loop_cells_give_no_answer_or_are_left_out() {
    let (dir, mut plain) = cell(4, 200.0, 20.0, true);
    plain.metrics.sessions = None;
    let (rdir, mut rate) = cell(8, 200.0, 20.0, true);
    rate.cell.load.concurrency = None;
    let refs = [(dir.clone(), &plain), (rdir, &rate)];
    assert_eq!(
        session_capacity(["e", "m", "A1"], &refs, &config(None)),
        None
    );
    let (_, mut second) = cell(8, 900.0, 20.0, true);
    second.cell.repeat = 2;
    let first = cell(8, 200.0, 20.0, true);
    let refs = [(first.0.clone(), &first.1), ("c8-2".into(), &second)];
    let a = session_capacity(["e", "m", "D"], &refs, &config(None)).unwrap();
    assert_eq!((a.cells.len(), a.max_sessions), (1, Some(8)));
}
