//! A timed replay whose trace names sessions, on paused time: each session starts at its
//! replay instant (ties kept), its later turns go after the previous reply plus the think
//! time, each turn is measured by its own start, only first turns carry an intended send
//! (lateness), and the sessions block counts the trace's sessions.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use plateau_core::plan::{Load, Rate};
use plateau_core::runner::{CellInput, CellOutput, Ending};
use plateau_core::workload::{
    After, FixedPrompt, Message, Prompt, Replay, Role, Session, Turn, Workload,
};
use plateau_model::config::Arrival;
use plateau_model::phase::{Phase, Schedule};
use plateau_model::results::workload::WorkloadInfo;
use plateau_model::sample::Sample;
use plateau_testkit::cell;

use crate::open::FAKE;

/// The trace's sessions, in order of their start: start (ms since the cell's start), turns,
/// think time before each later turn (ms). Two start at the same instant.
const SESSIONS: [(u64, u32, u64); 5] = [
    (500, 3, 1_000),
    (1_800, 2, 250),
    (1_800, 1, 0),
    (4_000, 2, 3_000),
    (7_900, 2, 500),
];

/// A timed replay of [`SESSIONS`].
struct Trace;

impl Replay for Trace {
    fn instants(&self) -> Arc<[Duration]> {
        SESSIONS
            .iter()
            .map(|s| Duration::from_millis(s.0))
            .collect()
    }

    fn prompt(&self, _k: usize) -> Prompt {
        unreachable!("a replay of sessions sends no lone records")
    }

    fn session(&self, k: usize) -> Option<Box<dyn Session>> {
        let (_, turns, think_ms) = SESSIONS[k];
        Some(Box::new(Recorded {
            id: format!("s{k}"),
            turns,
            think: Duration::from_millis(think_ms),
            sent: 0,
        }))
    }
}

/// One session of the trace: `turns` turns, `think` before each later one.
struct Recorded {
    id: String,
    turns: u32,
    think: Duration,
    sent: u32,
}

impl Session for Recorded {
    fn next(&mut self) -> Prompt {
        self.sent += 1;
        Prompt {
            messages: vec![Message::new(Role::User, format!("turn {}", self.sent))],
            turn: Some(self.sent - 1),
            session: Some(Turn {
                id: self.id.clone(),
                prior_tokens: 0,
            }),
            ..Prompt::default()
        }
    }

    fn after(&mut self) -> After {
        if self.sent == self.turns {
            After::End
        } else {
            After::Think(self.think)
        }
    }
}

impl Workload for Trace {
    fn info(&self) -> WorkloadInfo {
        FixedPrompt::new("unused", None).info()
    }

    fn session(&self, _slot: u32) -> Box<dyn Session> {
        unreachable!("every arrival brings its trace session")
    }

    fn replay(&self) -> Option<Arc<dyn Replay>> {
        Some(Arc::new(Trace))
    }
}

/// Stabilize 2 s, Measure 6 s ([2 s, 8 s)); each request 300 ms + 9 x 10 ms = 390 ms.
async fn run() -> CellOutput {
    let load = Load::Rate(Rate {
        rps: 1.0,
        arrival: Arrival::Constant,
        max_concurrency: None,
        unit: Default::default(),
    });
    let schedule = Schedule::secs(0, [0, 2, 6, 30]);
    cell::run(CellInput {
        seed: 5,
        ..cell::input(FAKE, Arc::new(Trace), load, schedule)
    })
    .await
}

#[tokio::test(start_paused = true)]
async fn sessions_start_at_their_instants_and_turns_follow_reply_and_think() {
    let out = run().await;
    assert_eq!(out.ending, Ending::Complete);
    assert_eq!((out.bounds.m0_us, out.bounds.m1_us), (2_000_000, 8_000_000));
    let mut by_session: BTreeMap<&str, Vec<&Sample>> = BTreeMap::new();
    for s in &out.recorded.samples {
        let id = s.session_id.as_deref().expect("every request is a turn");
        by_session.entry(id).or_default().push(s);
    }
    assert_eq!(by_session.len(), SESSIONS.len(), "one session per arrival");
    for (k, &(start_ms, turns, think_ms)) in SESSIONS.iter().enumerate() {
        let id = format!("s{k}");
        let sent = &by_session[id.as_str()];
        // The last session's second turn would start in Drain, after the measured turns
        // ended: the cell ends first.
        let planned = if k == 4 { 1 } else { turns as usize };
        assert_eq!(sent.len(), planned, "{id}");
        let mut at = start_ms * 1_000;
        for (t, s) in sent.iter().enumerate() {
            assert!(s.outcome.is_ok(), "{id} turn {t}: {:?}", s.outcome);
            assert_eq!(s.turn, Some(t as u32), "{id}: turns in order");
            assert_eq!(s.slot, k as u32, "{id}: its arrival's index");
            assert_eq!(s.t_sent_us, at, "{id} turn {t}: sent");
            // Only a first turn has an intended send (its arrival) and so a lateness.
            let intended = (t == 0).then_some(start_ms * 1_000);
            assert_eq!(s.t_intended_us, intended, "{id} turn {t}");
            assert_eq!(s.t_end_us, at + 390_000, "{id} turn {t}: ended");
            let last = t + 1 == turns as usize;
            assert_eq!(s.session_end, last, "{id} turn {t}");
            let think = (!last).then_some(think_ms * 1_000);
            assert_eq!(s.think_us, think, "{id} turn {t}: think recorded");
            let phase = match at {
                ..2_000_000 => Phase::Stabilize,
                2_000_000..8_000_000 => Phase::Measure,
                _ => Phase::Drain,
            };
            assert_eq!(s.phase, phase, "{id} turn {t}: measured by its own start");
            at += 390_000 + think_ms * 1_000;
        }
    }

    // At the open loop's rate (a replay lists one rate, unused for spacing).
    let m = cell::summarize(&out, Some(1.0));
    // Measured: s0's third turn (3.28 s), s1's second (2.44 s), both of s3 (4.0, 7.39 s),
    // s4's first (7.9 s).
    assert_eq!(m.requests.measured_ok, 5);
    let load = m.load.expect("a load block");
    let lag = load.schedule_lag_ms.expect("first turns are late or not");
    assert_eq!((lag.n, lag.max), (2, 0.0), "only s3's and s4's first turns");
    let s = m.sessions.expect("a sessions block");
    // Ended inside Measure on a successful last turn: s0 (3.67 s), s1 (2.83 s), s2
    // (2.19 s), s3 (7.78 s).
    assert_eq!(s.sessions_completed, 4);
    assert_eq!(s.sessions_failed, 0);
    // Two starts (4.0 s, 7.9 s) in 6 s of Measure.
    assert_eq!(s.session_starts_offered_per_minute, Some(20.0));
    assert_eq!(s.session_starts_per_minute, Some(20.0));
}
