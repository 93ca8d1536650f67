//! The open loop of sessions on paused time: each arrival starts a session of three turns
//! with 1 s of think time between them, run whole on its own; sessions active, requests in
//! flight and thinking come out exactly as Little's law says, and a `max_concurrency` cap
//! bounds sessions active and holds starts back.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use plateau_core::plan::{Load, Rate};
use plateau_core::runner::{CellInput, CellOutput, Ending};
use plateau_core::workload::{After, Message, Prompt, Role, Session, Turn, Workload};
use plateau_model::config::{Arrival, RateUnit};
use plateau_model::metrics::SessionMetrics;
use plateau_model::phase::Schedule;
use plateau_model::results::workload::WorkloadInfo;
use plateau_model::sample::Sample;
use plateau_testkit::cell;

use crate::open::FAKE;

/// Sessions of three turns, 1 s of think time after the first two.
struct Three;

/// One source of sessions: its slot, how many sessions it began, the turn last sent.
struct Dialog {
    slot: u32,
    sessions: u32,
    turn: Option<u32>,
}

impl Workload for Three {
    fn info(&self) -> WorkloadInfo {
        WorkloadInfo {
            id: "three".into(),
            name: "Three turns".into(),
            synthetic: true,
            source: "test".into(),
            notes: Vec::new(),
            output_tokens: None,
        }
    }

    fn session(&self, slot: u32) -> Box<dyn Session> {
        Box::new(Dialog {
            slot,
            sessions: 0,
            turn: None,
        })
    }
}

impl Session for Dialog {
    fn next(&mut self) -> Prompt {
        let turn = match self.turn {
            Some(t) if t < 2 => t + 1,
            _ => {
                self.sessions += 1;
                0
            }
        };
        self.turn = Some(turn);
        Prompt {
            messages: vec![Message::new(Role::User, format!("turn {turn}"))],
            turn: Some(turn),
            session: Some(Turn {
                id: format!("{}-{}", self.slot, self.sessions - 1),
                prior_tokens: 0,
            }),
            ..Prompt::default()
        }
    }

    fn after(&mut self) -> After {
        match self.turn {
            Some(2) => After::End,
            _ => After::Think(Duration::from_secs(1)),
        }
    }
}

/// 2 sessions/s at constant gaps; Stabilize 4 s, Measure 10 s.
async fn run(max_concurrency: Option<u32>) -> CellOutput {
    let load = Load::Rate(Rate {
        rps: 2.0,
        arrival: Arrival::Constant,
        max_concurrency,
        unit: RateUnit::Sessions,
    });
    let schedule = Schedule::secs(0, [0, 4, 10, 60]);
    cell::run(CellInput {
        seed: 5,
        ..cell::input(FAKE, Arc::new(Three), load, schedule)
    })
    .await
}

fn sessions(out: &CellOutput) -> SessionMetrics {
    let m = cell::summarize(out, Some(2.0));
    *m.sessions.expect("a sessions block")
}

/// The records grouped by session id, each in send order (arrivals still queued for a
/// place at the cell's end never began a session).
fn by_session(out: &CellOutput) -> BTreeMap<String, Vec<&Sample>> {
    let mut all: BTreeMap<String, Vec<&Sample>> = BTreeMap::new();
    for s in &out.recorded.samples {
        if let Some(id) = &s.session_id {
            all.entry(id.clone()).or_default().push(s);
        }
    }
    for turns in all.values_mut() {
        turns.sort_by_key(|s| s.t_sent_us);
    }
    all
}

#[tokio::test(start_paused = true)]
async fn each_arrival_runs_its_session_and_littles_law_holds_exactly() {
    let out = run(None).await;
    assert_eq!(out.ending, Ending::Complete);
    assert!(out.recorded.samples.iter().all(|s| s.session_id.is_some()));
    assert_eq!(
        (out.bounds.m0_us, out.bounds.m1_us),
        (4_000_000, 14_000_000)
    );
    let all = by_session(&out);
    for (id, turns) in &all {
        let intended = turns[0]
            .t_intended_us
            .expect("a first turn is its arrival's");
        assert_eq!(intended % 500_000, 0, "{id}: starts 500 ms apart");
        assert_eq!(turns[0].t_sent_us, intended, "{id}: sent at its arrival");
        for (k, t) in turns.iter().enumerate().skip(1) {
            assert_eq!(t.turn, Some(k as u32), "{id}: in order");
            assert_eq!(t.t_intended_us, None);
            assert_eq!(turns[k - 1].think_us, Some(1_000_000), "{id}");
            assert_eq!(t.t_sent_us, turns[k - 1].t_end_us + 1_000_000, "{id}");
        }
        if turns.len() == 3 && turns[2].outcome.is_ok() {
            assert!(turns[2].session_end);
            assert_eq!(turns[2].t_end_us - intended, 3_170_000, "{id}");
        }
    }
    let s = sessions(&out);
    // Little's law: 2 sessions/s x 3.17 s; of each session 3 x 0.39 s in flight and 2 s
    // thinking.
    let close = |a: f64, b: f64| (a - b).abs() < 1e-9;
    assert!(close(s.sessions_active_mean, 6.34), "{s:?}");
    assert!(close(s.requests_in_flight_mean, 2.34), "{s:?}");
    assert!(close(s.thinking_mean, 4.0), "{s:?}");
    assert_eq!(s.sessions_completed, 20);
    assert_eq!(s.sessions_per_minute, Some(120.0));
    assert_eq!(s.session_starts_offered_per_minute, Some(120.0));
    assert_eq!(s.session_starts_per_minute, Some(120.0));
    assert_eq!(
        s.session_duration_s.map(|d| (d.min, d.max)),
        Some((3.17, 3.17))
    );
}

#[tokio::test(start_paused = true)]
async fn a_cap_bounds_sessions_active_and_holds_starts_back() {
    // At most 3 sessions of 3.17 s: 0.95 starts/s of the 2 offered.
    let out = run(Some(3)).await;
    let s = sessions(&out);
    assert!((s.sessions_active_mean - 3.0).abs() < 1e-9, "{s:?}");
    assert_eq!(s.session_starts_offered_per_minute, Some(120.0));
    let started = s.session_starts_per_minute.unwrap();
    assert!((54.0..=60.0).contains(&started), "{started} starts/min");
    for turns in by_session(&out).values() {
        let first = turns[0];
        let queued = first.queue_us.expect("a capped start has a queue time");
        assert_eq!(first.t_sent_us, first.t_intended_us.unwrap() + queued);
    }
}
