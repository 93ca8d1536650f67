//! Sessions in the closed loop, end to end: D at N = 4 with a fixed think time against the
//! in-process simulator (sessions active = N, requests in flight = N minus the slots
//! thinking, checked against the simulator's own running count; each turn's prompt is the
//! previous prompt plus the live reply plus the new user text, by the server's
//! `usage.prompt_tokens`), and `session_header` on every turn to an echo server.

use std::collections::{BTreeMap, BTreeSet};
use std::io::Read;
use std::path::Path;

use serde_json::{Value, json};

use crate::common::{assert_finished, json, plateau, run, temp, tiny_config};
use crate::echo_server::{EchoServer, Mode};

/// Every record of one cell's `requests.jsonl.gz`.
fn records(cell: &Path) -> Vec<Value> {
    let bytes = std::fs::read(cell.join("requests.jsonl.gz")).unwrap();
    let mut text = String::new();
    flate2::read::GzDecoder::new(&bytes[..])
        .read_to_string(&mut text)
        .unwrap();
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn at(v: &Value, pointer: &str) -> f64 {
    v.pointer(pointer)
        .and_then(Value::as_f64)
        .unwrap_or_else(|| panic!("{pointer} missing in {v}"))
}

#[test]
fn sessions_hold_n_with_live_replies_against_the_sim() {
    let tmp = temp("sessions");
    let dir = tmp.path();
    // A request takes ~55 ms (TTFT 20 ms + 7 x 5 ms); each slot then thinks 100 ms.
    let config = tiny_config(
        dir,
        json!({"scenarios": ["D"], "batch_sizes": [4], "measure_seconds": 4,
            "scenario_options": {"D": {"think": {"dist": "fixed", "seconds": 0.1}}}}),
    );
    let (code, _, err) = run(&mut plateau(&["run", "--config", config.to_str().unwrap()]));
    assert_finished(code, &err);
    let cell = dir.join("results/sim/m/D/c4");
    let summary = json(&cell.join("summary.json"));
    let s = &summary["sessions"];
    assert_eq!(s["sessions_target"], 4, "{s}");
    let (active, in_flight, thinking) = (
        at(s, "/sessions_active_mean"),
        at(s, "/requests_in_flight_mean"),
        at(s, "/thinking_mean"),
    );
    eprintln!("sessions active {active:.3}, in flight {in_flight:.3}, thinking {thinking:.3}");
    assert!(
        (active - 4.0).abs() < 0.2,
        "sessions active {active}, expected 4"
    );
    assert!(
        (in_flight + thinking - active).abs() < 0.2,
        "in flight {in_flight} + thinking {thinking} != active {active}"
    );
    assert!(
        (1.0..3.5).contains(&in_flight) && thinking > 0.5,
        "in flight {in_flight}, thinking {thinking}: 100 ms of think per ~55 ms request"
    );
    // The simulator's own count of running requests, scraped over Measure.
    let running = at(&summary, "/server/measure/running/mean");
    eprintln!("simulator running mean {running:.3}");
    assert!(
        (running - in_flight).abs() <= 0.25 * in_flight + 0.3,
        "the simulator saw {running} running, plateau {in_flight} in flight"
    );
    assert!(at(s, "/sessions_completed") >= 1.0, "{s}");
    let think = &s["think_ms"];
    assert_eq!((at(think, "/p50"), at(think, "/max")), (100.0, 100.0));

    // Live replies: turn k+1's server prompt tokens are turn k's, plus the reply (as the
    // client counted it), plus the new user text, plus the simulator's 4 template tokens
    // for each of the two new messages.
    let mut by_session: BTreeMap<String, Vec<Value>> = BTreeMap::new();
    for r in records(&cell) {
        if let Some(id) = r["session_id"].as_str() {
            by_session.entry(id.to_owned()).or_default().push(r);
        }
    }
    let mut checked = 0;
    for turns in by_session.values() {
        for pair in turns.windows(2) {
            let (a, b) = (&pair[0], &pair[1]);
            if a["outcome"]["kind"] != "ok" || b["n_in_source"] != "usage" {
                continue;
            }
            assert_eq!(b["turn"].as_u64(), a["turn"].as_u64().map(|t| t + 1));
            let reply = at(a, "/n_out_client");
            let user = at(b, "/n_in_target") - at(b, "/n_in_prior");
            assert_eq!(at(b, "/n_in_prior"), at(a, "/n_in_target") + reply, "{b}");
            assert_eq!(
                at(b, "/n_in"),
                at(a, "/n_in") + reply + user + 8.0,
                "{a}\n{b}"
            );
            checked += 1;
        }
    }
    assert!(checked >= 20, "only {checked} consecutive turns checked");
}

#[test]
fn session_header_carries_each_sessions_id() {
    let server = EchoServer::start(Mode::Mixed, "m");
    let tmp = temp("session-header");
    let dir = tmp.path();
    let config = tiny_config(
        dir,
        json!({"endpoints": [{"name": "echo", "engine": "openai", "url": server.url(None, None),
                "session_header": "X-Session-ID"}],
            "models": [{"id": "m", "name": "m"}],
            "scenarios": ["D"], "fill_seconds": 0.1, "stabilize_seconds": 0.2,
            "measure_seconds": 1, "drain_seconds": 1}),
    );
    let (code, _, err) = run(&mut plateau(&["run", "--config", config.to_str().unwrap()]));
    // Half the requests fail by design: validation may fail the run (exit 1).
    assert!(code == 0 || code == 1, "exit {code}: {err}");
    let received = server.received();
    let chats: Vec<&str> = received
        .split("POST /v1/chat/completions")
        .skip(1)
        .collect();
    assert!(chats.len() >= 4, "{received}");
    // Preflight probes are not session turns: every turn of the cell carries the header.
    let sent: Vec<String> = chats
        .iter()
        .filter_map(|head| {
            head.lines().find_map(|l| {
                let (name, value) = l.split_once(':')?;
                name.eq_ignore_ascii_case("x-session-id")
                    .then(|| value.trim().to_owned())
            })
        })
        .collect();
    // Every answered turn (a reply or an HTTP error) reached the server with its session's
    // id; a turn cancelled at the cell's end may never have been written.
    let records = records(&dir.join("results/echo/m/D/c2"));
    let id = |r: &Value| r["session_id"].as_str().expect("a session turn").to_owned();
    let answered: Vec<String> = records
        .iter()
        .filter(|r| matches!(r["outcome"]["kind"].as_str(), Some("ok" | "http_status")))
        .map(id)
        .collect();
    assert!(
        (answered.len()..=records.len()).contains(&sent.len()),
        "{} turns sent with the header, {} answered, {} recorded",
        sent.len(),
        answered.len(),
        records.len()
    );
    let sent: BTreeSet<String> = sent.into_iter().collect();
    let recorded: BTreeSet<String> = records.iter().map(id).collect();
    assert!(sent.is_subset(&recorded), "{sent:?} vs {recorded:?}");
    assert!(answered.iter().all(|a| sent.contains(a)));
    // A failed turn ends its session, so both slots went through several.
    assert!(
        sent.contains("0-0") && sent.contains("1-0") && sent.len() >= 4,
        "{sent:?}"
    );
}
