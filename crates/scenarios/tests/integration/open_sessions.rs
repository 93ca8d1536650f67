//! The open loop of sessions (`rate_unit: sessions`) against the simulator: a trace of one
//! session of three turns with 300 ms think times, started 4 times a second at constant
//! gaps. Every session runs whole on its own, its turns in order with the think time
//! between them; sessions active obey Little's law (the rate x the measured session
//! duration); requests in flight are below sessions active by the thinking share.

use std::collections::BTreeMap;
use std::io::Write;

use plateau_model::sample::Sample;
use plateau_sim::SimConfig;
use serde_json::json;

use crate::common::temp_dir;
use crate::trace::{run, samples};
use crate::trace_sessions::only_the_end_is_cut;

/// Session starts per second.
const RATE: f64 = 4.0;
/// Think time before each later turn, us.
const THINK_US: u64 = 300_000;

/// Writes scenario T: one trace session `a` of three turns (each extending the last one's
/// blocks), 300 ms of think time (`delay_ms`) before turns 2 and 3.
fn write_trace(dir: &std::path::Path) {
    let lines = [
        json!({"timestamp_ms": 0, "session_id": "a", "turn": 0, "input_length": 100, "output_length": 2, "hash_ids": [1, 2]}),
        json!({"session_id": "a", "turn": 1, "delay_ms": 300, "input_length": 200, "output_length": 2, "hash_ids": [1, 2, 3, 4]}),
        json!({"session_id": "a", "turn": 2, "delay_ms": 300, "input_length": 300, "output_length": 2, "hash_ids": [1, 2, 3, 4, 5, 6]}),
    ];
    let mut f = std::fs::File::create(dir.join("trace.jsonl")).unwrap();
    for l in &lines {
        writeln!(f, "{l}").unwrap();
    }
    let def = json!({
        "id": "T", "name": "Trace", "description": "one session", "kind": "trace",
        "trace": {"format": "plateau", "path": "trace.jsonl", "block_tokens": 50},
    });
    std::fs::write(dir.join("T.json"), def.to_string()).unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_arrival_runs_a_whole_session_and_littles_law_holds() {
    let dir = temp_dir("open-sessions");
    write_trace(dir.path());
    let sim = SimConfig::from_profile("fixed").unwrap(); // TTFT 100 ms, ITL 20 ms
    let extra = json!({
        "batch_sizes": [], "request_rates": [RATE], "rate_unit": "sessions",
        "arrival": "constant", "stabilize_seconds": 2, "measure_seconds": 8,
    });
    let (report, out, _) = run(sim, dir.path(), extra).await;
    let summary = &report.summaries[0];
    assert_eq!(summary.cell.load.request_rate, Some(RATE));
    let sent = samples(out.path(), "s4");
    only_the_end_is_cut(&sent);

    let mut by_session: BTreeMap<&str, Vec<&Sample>> = BTreeMap::new();
    for s in &sent {
        let id = s.session_id.as_deref().expect("every request is a turn");
        by_session.entry(id).or_default().push(s);
    }
    let (m0, m1) = (summary.phases.m0_us, summary.phases.m1_us);
    let mut whole = Vec::new();
    for (id, turns) in &by_session {
        let first = turns[0];
        let intended = first.t_intended_us.expect("a first turn is its arrival's");
        assert!(
            first.t_sent_us - intended < 20_000,
            "session {id}: first turn {} µs late",
            first.t_sent_us - intended
        );
        for (k, t) in turns.iter().enumerate() {
            assert_eq!(t.turn, Some(k as u32), "session {id}: turns in order");
            assert_eq!(t.slot, first.slot, "session {id}: one sender");
            if k == 0 {
                continue;
            }
            assert_eq!(
                t.t_intended_us, None,
                "session {id}: later turns follow thinks"
            );
            let prev = turns[k - 1];
            assert_eq!(prev.think_us, Some(THINK_US), "session {id} turn {k}");
            let gap = t.t_sent_us - prev.t_end_us;
            assert!(
                (THINK_US..THINK_US + 30_000).contains(&gap),
                "session {id} turn {k}: sent {gap} µs after the previous reply"
            );
        }
        if turns.len() == 3 && turns[2].outcome.is_ok() {
            assert!(turns[2].session_end, "session {id} ends at its last turn");
            whole.push(turns[2].t_end_us - intended);
        }
    }
    // Constant starts 250 ms apart over Fill (ramping), Stabilize and Measure.
    assert!(by_session.len() >= 40, "{} sessions", by_session.len());

    let s = summary.metrics.sessions.as_ref().expect("a sessions block");
    let duration_s = whole.iter().sum::<u64>() as f64 / whole.len() as f64 / 1e6;
    // Little's law: sessions active = arrival rate x time in the system.
    let little = RATE * duration_s;
    assert!(
        (s.sessions_active_mean / little - 1.0).abs() < 0.05,
        "sessions active {} against {RATE}/s x {duration_s} s = {little}",
        s.sessions_active_mean
    );
    // Requests in flight: sessions active less those thinking, 2 x 300 ms of each session.
    let thinking_share = 2.0 * THINK_US as f64 / 1e6 / duration_s;
    let want_in_flight = s.sessions_active_mean * (1.0 - thinking_share);
    assert!(
        (s.requests_in_flight_mean / want_in_flight - 1.0).abs() < 0.05,
        "in flight {} against {want_in_flight} (thinking share {thinking_share})",
        s.requests_in_flight_mean
    );
    assert!(
        (s.requests_in_flight_mean + s.thinking_mean - s.sessions_active_mean).abs() < 0.01,
        "{s:?}"
    );
    // One start every 250 ms: 32 or 33 in the 8 s window, all sent on time.
    let minutes = (m1 - m0) as f64 / 60e6;
    let offered = s.session_starts_offered_per_minute.expect("offered starts") * minutes;
    assert!(
        (32.0..=33.0).contains(&offered.round()),
        "{offered} offered"
    );
    assert_eq!(
        s.session_starts_per_minute,
        s.session_starts_offered_per_minute
    );
    let per_minute = s.sessions_per_minute.expect("sessions per minute");
    assert!(
        (per_minute / (RATE * 60.0) - 1.0).abs() < 0.05,
        "{per_minute} sessions/min"
    );
    assert_eq!(s.turns_per_session.as_ref().map(|t| t.mean), Some(3.0));
    assert_eq!(
        summary.metrics.requests.measured,
        summary.metrics.requests.measured_ok
    );
}
