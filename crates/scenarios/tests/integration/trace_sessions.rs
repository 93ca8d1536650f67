//! A plateau-format trace with sessions replayed in the closed loop against the simulator:
//! each trace session runs whole in one slot, its turns in order with the recorded prompts
//! and lengths, the think time before each turn its `delay_ms` (or the arrival gap),
//! sessions taken in order of first arrival and wrapped around with a pass suffix.

use std::collections::BTreeMap;
use std::io::Write;

use plateau_model::sample::{Outcome, Sample};
use plateau_sim::SimConfig;
use serde_json::json;

use crate::common::temp_dir;
use crate::trace::{run, samples};

/// One turn as the trace gives it: input tokens, tokens shared with the previous turn,
/// think time before it (µs).
struct Want {
    input: u32,
    prior: u32,
    think_before_us: u64,
}

/// Checks that every request of `sent` succeeded but those the cell's end cut: cancelled
/// (or out of Drain time) and ended with the last successful ones (100 ms of slack).
pub(crate) fn only_the_end_is_cut(sent: &[Sample]) {
    let last_ok = sent
        .iter()
        .filter(|s| s.outcome.is_ok())
        .map(|s| s.t_end_us)
        .max()
        .unwrap_or(0);
    for s in sent.iter().filter(|s| !s.outcome.is_ok()) {
        assert!(
            matches!(s.outcome, Outcome::Cancelled | Outcome::DrainTimeout),
            "request {} failed: {:?} {:?}",
            s.seq,
            s.outcome,
            s.error
        );
        assert!(
            s.t_end_us + 100_000 >= last_ok,
            "request {} was cut at {} µs, before the cell's end ({last_ok} µs)",
            s.seq,
            s.t_end_us
        );
    }
}

/// Writes the trace and its definition (scenario T) to `dir`. Blocks of 50 tokens. Session
/// `a`: three turns, each extending the last one's blocks, timed by delay_ms alone after
/// the first; `b`: two turns timed by timestamps 80 ms apart (no delay_ms: the gap is the
/// think time); one request of no session.
fn write_trace(dir: &std::path::Path) {
    let lines = [
        json!({"timestamp_ms": 0, "session_id": "a", "turn": 0, "input_length": 100, "output_length": 2, "hash_ids": [1, 2]}),
        json!({"timestamp_ms": 10, "session_id": "b", "turn": 0, "input_length": 60, "output_length": 3, "hash_ids": [7, 8]}),
        json!({"session_id": "a", "turn": 1, "delay_ms": 150, "input_length": 200, "output_length": 2, "hash_ids": [1, 2, 3, 4]}),
        json!({"timestamp_ms": 40, "input_length": 30, "output_length": 4}),
        json!({"timestamp_ms": 90, "session_id": "b", "turn": 1, "input_length": 120, "output_length": 3, "hash_ids": [7, 8, 9]}),
        json!({"session_id": "a", "turn": 2, "delay_ms": 120, "input_length": 300, "output_length": 2, "hash_ids": [1, 2, 3, 4, 5, 6]}),
    ];
    let mut f = std::fs::File::create(dir.join("trace.jsonl")).unwrap();
    for l in &lines {
        writeln!(f, "{l}").unwrap();
    }
    let def = json!({
        "id": "T", "name": "Trace", "description": "sessions", "kind": "trace",
        "trace": {"format": "plateau", "path": "trace.jsonl", "block_tokens": 50},
    });
    std::fs::write(dir.join("T.json"), def.to_string()).unwrap();
}

/// Each session's turns as the trace plans them.
fn planned() -> BTreeMap<&'static str, Vec<Want>> {
    BTreeMap::from([
        (
            "a",
            vec![
                Want {
                    input: 100,
                    prior: 0,
                    think_before_us: 0,
                },
                Want {
                    input: 200,
                    prior: 100,
                    think_before_us: 150_000,
                },
                Want {
                    input: 300,
                    prior: 200,
                    think_before_us: 120_000,
                },
            ],
        ),
        (
            "b",
            vec![
                Want {
                    input: 60,
                    prior: 0,
                    think_before_us: 0,
                },
                Want {
                    input: 120,
                    prior: 60,
                    think_before_us: 80_000,
                },
            ],
        ),
        (
            "line4",
            vec![Want {
                input: 30,
                prior: 0,
                think_before_us: 0,
            }],
        ),
    ])
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn trace_sessions_replay_whole_in_one_slot_with_their_think_times() {
    let dir = temp_dir("trace-sessions");
    write_trace(dir.path());
    let sim = SimConfig::from_profile("fixed").unwrap();
    let (_report, out, _) = run(sim, dir.path(), json!({"batch_sizes": [2]})).await;
    let sent = samples(out.path(), "c2");

    let want = planned();
    let order = ["a", "b", "line4"];
    let mut by_session: BTreeMap<String, Vec<&Sample>> = BTreeMap::new();
    for s in &sent {
        let id = s
            .session_id
            .clone()
            .expect("every request is a session turn");
        by_session.entry(id).or_default().push(s);
    }
    // Session ids are the cursor's sequence a, b, line4, a~1, b~1, ... with no gap.
    let expected_ids: Vec<String> = (0..by_session.len())
        .map(|k| {
            let (id, pass) = (order[k % 3], k / 3);
            if pass == 0 {
                id.to_owned()
            } else {
                format!("{id}~{pass}")
            }
        })
        .collect();
    let mut ids: Vec<String> = by_session.keys().cloned().collect();
    ids.sort_by_key(|id| expected_ids.iter().position(|e| e == id));
    assert_eq!(
        ids, expected_ids,
        "sessions in order of first arrival, wrapped"
    );
    assert!(
        by_session.len() >= 9,
        "{} sessions: three passes at least",
        by_session.len()
    );

    let mut complete = 0;
    for (id, turns) in &by_session {
        let base = id.split('~').next().unwrap();
        let plan = &want[base];
        assert!(
            turns.len() <= plan.len(),
            "session {id}: {} turns",
            turns.len()
        );
        assert!(
            turns.iter().all(|t| t.slot == turns[0].slot),
            "session {id} stays in one slot"
        );
        for (k, (t, w)) in turns.iter().zip(plan).enumerate() {
            assert_eq!(t.turn, Some(k as u32), "session {id}: turns in order");
            assert_eq!(
                t.n_in_target,
                Some(w.input),
                "session {id} turn {k}: input_length"
            );
            assert_eq!(
                t.n_in_prior,
                Some(w.prior),
                "session {id} turn {k}: shared prefix"
            );
            let last = k + 1 == plan.len();
            assert_eq!(t.session_end, last, "session {id} turn {k}: end flag");
            let think = plan
                .get(k + 1)
                .map(|n| n.think_before_us)
                .filter(|us| *us > 0);
            assert_eq!(
                t.think_us, think,
                "session {id} turn {k}: think time recorded"
            );
            if k > 0 {
                let gap = t.t_sent_us - turns[k - 1].t_end_us;
                assert!(
                    gap >= w.think_before_us,
                    "session {id} turn {k}: sent {gap} µs after the previous reply"
                );
            }
        }
        if turns.len() == plan.len() {
            complete += 1;
        }
    }
    // Only each slot's last session may be cut by the cell's end.
    assert!(
        complete + 2 >= by_session.len(),
        "{complete} of {} complete",
        by_session.len()
    );
    only_the_end_is_cut(&sent);
}
