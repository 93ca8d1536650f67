//! A plateau-format trace with sessions replayed on its own clock (timed replay, open loop)
//! against the simulator: each session starts at its first record's instant over the
//! speedup, its later turns go in order after the previous reply plus the think time, and
//! the cell's sessions block counts the sessions the trace started in Measure.

use std::collections::BTreeMap;
use std::io::Write;

use plateau_model::sample::Sample;
use plateau_sim::SimConfig;
use serde_json::json;

use crate::common::temp_dir;
use crate::trace::{run, samples};

/// The replay's speedup.
const SPEEDUP: f64 = 2.0;

/// Writes scenario T (blocks of 50 tokens, speedup 2): a lone request at 0; session `a` at
/// 4 s of trace time with later turns timed by `delay_ms` (150, 120 ms); `b` at 4.3 s with
/// its second turn 100 ms later (no `delay_ms`: the gap is the think time); `c` at 4.6 s
/// with one later turn after `delay_ms` 100.
fn write_trace(dir: &std::path::Path) {
    let lines = [
        json!({"timestamp_ms": 0, "input_length": 30, "output_length": 2}),
        json!({"timestamp_ms": 4000, "session_id": "a", "turn": 0, "input_length": 100, "output_length": 2, "hash_ids": [1, 2]}),
        json!({"session_id": "a", "turn": 1, "delay_ms": 150, "input_length": 200, "output_length": 2, "hash_ids": [1, 2, 3, 4]}),
        json!({"timestamp_ms": 4300, "session_id": "b", "turn": 0, "input_length": 60, "output_length": 3}),
        json!({"session_id": "a", "turn": 2, "delay_ms": 120, "input_length": 300, "output_length": 2, "hash_ids": [1, 2, 3, 4, 5, 6]}),
        json!({"timestamp_ms": 4400, "session_id": "b", "turn": 1, "input_length": 120, "output_length": 3}),
        json!({"timestamp_ms": 4600, "session_id": "c", "turn": 0, "input_length": 80, "output_length": 2}),
        json!({"session_id": "c", "turn": 1, "delay_ms": 100, "input_length": 90, "output_length": 2}),
    ];
    let mut f = std::fs::File::create(dir.join("trace.jsonl")).unwrap();
    for l in &lines {
        writeln!(f, "{l}").unwrap();
    }
    let def = json!({
        "id": "T", "name": "Trace", "description": "timed sessions", "kind": "trace",
        "trace": {"format": "plateau", "path": "trace.jsonl", "block_tokens": 50, "speedup": SPEEDUP},
    });
    std::fs::write(dir.join("T.json"), def.to_string()).unwrap();
}

/// A session as planned: its start (us since the cell's start: trace time over the
/// speedup), and per turn the input length and the think time before it (us).
type Planned = (u64, Vec<(u32, u64)>);

/// Each session as the trace plans it.
fn planned() -> BTreeMap<&'static str, Planned> {
    BTreeMap::from([
        ("line1", (0, vec![(30, 0)])),
        (
            "a",
            (2_000_000, vec![(100, 0), (200, 75_000), (300, 60_000)]),
        ),
        ("b", (2_150_000, vec![(60, 0), (120, 50_000)])),
        ("c", (2_300_000, vec![(80, 0), (90, 50_000)])),
    ])
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sessions_start_at_their_trace_instants_and_turns_wait_reply_and_think() {
    let dir = temp_dir("trace-open");
    write_trace(dir.path());
    let sim = SimConfig::from_profile("fixed").unwrap(); // TTFT 100 ms, ITL 20 ms
    // Fill and Stabilize 1 s each: the sessions start in Measure [2 s, 4 s).
    let extra = json!({"request_rates": [1], "batch_sizes": []});
    let (report, out, _) = run(sim, dir.path(), extra).await;
    let sent = samples(out.path(), "r1");
    let mut by_session: BTreeMap<&str, Vec<&Sample>> = BTreeMap::new();
    for s in &sent {
        let id = s.session_id.as_deref().expect("every request is a turn");
        by_session.entry(id).or_default().push(s);
    }
    let plan = planned();
    let ids: Vec<&str> = by_session.keys().copied().collect();
    assert_eq!(
        ids,
        plan.keys().copied().collect::<Vec<_>>(),
        "each session once"
    );
    let (mut lag_ms, mut extra_ms) = (Vec::new(), Vec::new());
    for (id, (start_us, turns)) in &plan {
        let sent = &by_session[id];
        assert_eq!(sent.len(), turns.len(), "session {id}: every turn sent");
        for (k, (s, &(input, think_us))) in sent.iter().zip(turns).enumerate() {
            assert!(s.outcome.is_ok(), "{id} turn {k}: {:?}", s.outcome);
            assert_eq!(s.turn, Some(k as u32), "session {id}: turns in order");
            assert_eq!(s.n_in_target, Some(input), "{id} turn {k}: input_length");
            let last = k + 1 == turns.len();
            assert_eq!(s.session_end, last, "{id} turn {k}");
            let next_think = turns.get(k + 1).map(|t| t.1);
            assert_eq!(s.think_us, next_think, "{id} turn {k}: think recorded");
            if k == 0 {
                assert_eq!(s.t_intended_us, Some(*start_us), "{id}: its trace instant");
                lag_ms.push((s.t_sent_us - start_us) as f64 / 1e3);
            } else {
                assert_eq!(
                    s.t_intended_us, None,
                    "{id} turn {k}: no arrival of its own"
                );
                let gap = s.t_sent_us - sent[k - 1].t_end_us;
                assert!(
                    gap >= think_us,
                    "{id} turn {k}: sent {gap} µs after the reply"
                );
                extra_ms.push((gap - think_us) as f64 / 1e3);
            }
        }
    }
    let max = |v: &[f64]| v.iter().copied().fold(0.0, f64::max);
    println!(
        "first turns late by at most {:.3} ms; later turns sent at most {:.3} ms after reply + think",
        max(&lag_ms),
        max(&extra_ms)
    );
    // Generous bounds: other engineers compile on the same 2 cores.
    assert!(max(&lag_ms) < 20.0, "first turns late: {lag_ms:?} ms");
    assert!(max(&extra_ms) < 20.0, "later turns late: {extra_ms:?} ms");

    let m = &report.summaries[0].metrics;
    let lag = m.load.as_ref().and_then(|l| l.schedule_lag_ms.as_ref());
    assert_eq!(
        lag.map(|d| d.n),
        Some(3),
        "lateness of the first turns in Measure"
    );
    let s = m.sessions.as_ref().expect("a sessions block");
    // a, b and c start in Measure's 2 s; each ends well inside it.
    assert_eq!(s.session_starts_offered_per_minute, Some(90.0));
    assert_eq!(s.session_starts_per_minute, Some(90.0));
    assert_eq!(s.sessions_completed, 3);
    assert_eq!(
        s.turns_per_session.as_ref().map(|d| (d.n, d.min, d.max)),
        Some((3, 2.0, 3.0))
    );
}
