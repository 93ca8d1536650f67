//! Ctrl-C at every step of a run: while the workloads are prepared, at preflight, in each
//! of the four phases, and as the run prints its end: plateau stops within seconds (a
//! loaded 2-core machine), exits 130 and run.json says where it stopped.

use std::net::TcpListener;
use std::path::Path;
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crate::common::{json, plateau, temp, tiny_config};

/// How long plateau may take to stop after the signal, on a loaded machine.
const STOPS_WITHIN: Duration = Duration::from_secs(5);

/// Runs `cmd`, sends SIGINT once `ready()` holds and `after` has passed, and returns the
/// exit code, stderr and how long plateau took to exit after the signal.
fn interrupt(
    mut cmd: Command,
    ready: impl Fn() -> bool,
    after: Duration,
) -> (i32, String, Duration) {
    let (mut child, reader) = plateau_testkit::process::spawn(&mut cmd);
    let deadline = Instant::now() + Duration::from_secs(120);
    while !ready() {
        assert!(
            child.try_wait().unwrap().is_none(),
            "plateau ended before the step: {}",
            reader.join().unwrap()
        );
        assert!(Instant::now() < deadline, "the step never came");
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(after);
    let sent = Instant::now();
    let status = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let code = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s.code().unwrap_or(-1);
        }
        assert!(
            sent.elapsed() < Duration::from_secs(60),
            "plateau did not stop"
        );
        std::thread::sleep(Duration::from_millis(10));
    };
    let took = sent.elapsed();
    (code, reader.join().unwrap(), took)
}

fn run_cmd(config: &Path) -> Command {
    plateau(&["run", "--config", config.to_str().unwrap(), "--quiet"])
}

/// run.json of a run stopped before any cell: interrupted, the reason naming the step.
fn assert_stopped_before_cells(results: &Path, step: &str) {
    let info = json(&results.join("run.json"));
    assert_eq!(info["status"], "interrupted", "{info}");
    assert_eq!(
        info["reason"],
        format!("interrupted while {step}, before any cell ran"),
        "{info}"
    );
    assert_eq!(info["invocations"][0]["status"], "interrupted");
    assert_eq!(info["cells"][0]["state"], "pending");
}

#[test]
fn ctrl_c_while_the_workloads_are_prepared() {
    let tmp = temp("int-prepare");
    let dir = tmp.path();
    let scenarios = dir.join("scenarios");
    std::fs::create_dir_all(&scenarios).unwrap();
    std::fs::write(
        scenarios.join("big.json"),
        r#"{"id": "big", "name": "Big", "description": "many prompts", "kind": "custom", "source": "jsonl", "file": "big.jsonl"}"#,
    )
    .unwrap();
    // About 40 MB of prompts: seconds of tokenizing.
    let line = format!(
        "{{\"prompt\": \"{}\"}}\n",
        "which city has the most rain in a year, and why? ".repeat(20)
    );
    std::fs::write(scenarios.join("big.jsonl"), line.repeat(40_000)).unwrap();
    let config = tiny_config(
        dir,
        serde_json::json!({"scenarios": ["big"], "scenarios_dir": scenarios}),
    );
    let lock = dir.join("results/.plateau.lock");
    let (code, err, took) = interrupt(
        run_cmd(&config),
        || lock.exists(),
        Duration::from_millis(300),
    );
    assert_eq!(code, 130, "{err}");
    assert!(took < STOPS_WITHIN, "took {took:?}");
    assert!(
        err.contains("error: interrupted while preparing the workloads, before any cell ran"),
        "{err}"
    );
    assert_stopped_before_cells(&dir.join("results"), "preparing the workloads");
}

#[test]
fn ctrl_c_at_preflight() {
    let tmp = temp("int-preflight");
    let dir = tmp.path();
    // A server that accepts connections and never answers.
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let asked = Arc::new(AtomicBool::new(false));
    let flag = asked.clone();
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for conn in listener.incoming().take(8) {
            flag.store(true, Ordering::SeqCst);
            held.push(conn);
        }
    });
    let config = tiny_config(
        dir,
        serde_json::json!({"endpoints": [{"name": "silent", "engine": "openai", "url": format!("http://127.0.0.1:{port}/v1")}]}),
    );
    let (code, err, took) = interrupt(
        run_cmd(&config),
        || asked.load(Ordering::SeqCst),
        Duration::from_millis(300),
    );
    assert_eq!(code, 130, "{err}");
    assert!(took < STOPS_WITHIN, "took {took:?}");
    assert!(
        err.contains("error: interrupted while checking the endpoints (preflight)"),
        "{err}"
    );
    assert_stopped_before_cells(&dir.join("results"), "checking the endpoints (preflight)");
}

/// Interrupts the first cell of a run with `phases` (and `extra` keys) `after` its start
/// and returns the cell's phase bounds; checks the run ended as an interrupted run should.
fn in_a_phase(name: &str, phases: serde_json::Value, after: Duration) -> serde_json::Value {
    let tmp = temp(name);
    let dir = tmp.path();
    let config = tiny_config(dir, phases);
    let cell = dir.join("results/sim/m/A1/c2");
    let started = cell.join("requests.jsonl.gz.tmp");
    let (code, err, took) = interrupt(run_cmd(&config), || started.exists(), after);
    assert_eq!(code, 130, "{err}");
    assert!(took < STOPS_WITHIN, "took {took:?}");
    let summary = json(&cell.join("summary.json"));
    assert_eq!(summary["status"], "interrupted");
    assert!(cell.join("requests.jsonl.gz").is_file());
    let info = json(&dir.join("results/run.json"));
    assert_eq!(info["status"], "interrupted");
    assert_eq!(info["cells"][0]["state"], "interrupted");
    summary["phases"].clone()
}

/// The phase bounds in us: (fill end, m0, m1, end).
fn bounds(p: &serde_json::Value) -> (f64, f64, f64, f64) {
    (
        p["fill_s"].as_f64().unwrap() * 1e6,
        p["m0_us"].as_f64().unwrap(),
        p["m1_us"].as_f64().unwrap(),
        p["end_us"].as_f64().unwrap(),
    )
}

#[test]
fn ctrl_c_in_fill() {
    let p = in_a_phase(
        "int-fill",
        serde_json::json!({"fill_seconds": 12, "stabilize_seconds": 1, "measure_seconds": 1}),
        Duration::from_millis(1500),
    );
    let (fill, _, _, end) = bounds(&p);
    assert!(end < fill, "stopped in Fill: {p}");
}

#[test]
fn ctrl_c_in_stabilize() {
    let p = in_a_phase(
        "int-stabilize",
        serde_json::json!({"fill_seconds": 0.2, "stabilize_seconds": 12, "measure_seconds": 1}),
        Duration::from_millis(2000),
    );
    let (fill, m0, _, end) = bounds(&p);
    assert!(fill < end && end < m0, "stopped in Stabilize: {p}");
}

#[test]
fn ctrl_c_in_measure() {
    let p = in_a_phase(
        "int-measure",
        serde_json::json!({"fill_seconds": 0.2, "stabilize_seconds": 0.3, "measure_seconds": 12}),
        Duration::from_millis(2000),
    );
    let (_, m0, m1, end) = bounds(&p);
    assert!(m0 < end && end < m1, "stopped in Measure: {p}");
}

#[test]
fn ctrl_c_in_drain() {
    // Requests of about 4 s (TTFT 4 s): the two sent at about 4.1 s, inside Measure
    // [0.5 s, 4.5 s], end near 8.1 s; Drain waits for them.
    let p = in_a_phase(
        "int-drain",
        serde_json::json!({
            "endpoints": [{"name": "sim", "engine": "sim", "sim": {"profile": "fixed", "fixed": {"ttft_ms": 4000, "itl_ms": 10}}}],
            "fill_seconds": 0.2, "stabilize_seconds": 0.3, "measure_seconds": 4,
            "drain_seconds": 60
        }),
        Duration::from_millis(6000),
    );
    let (_, _, m1, end) = bounds(&p);
    assert!(m1 < end, "stopped in Drain: {p}");
    assert!(end < m1 + 3.5e6, "before the measured requests ended: {p}");
}

#[test]
fn ctrl_c_as_the_run_prints_its_end() {
    let tmp = temp("int-end");
    let dir = tmp.path();
    let config = tiny_config(dir, serde_json::json!({}));
    let run_json = dir.join("results/run.json");
    let complete = || {
        std::fs::read(&run_json)
            .ok()
            .and_then(|b| serde_json::from_slice::<serde_json::Value>(&b).ok())
            .is_some_and(|v| v["status"] == "complete")
    };
    let mut cmd = run_cmd(&config);
    cmd.env("PLATEAU_TEST_HOLD_AT", "end");
    let (code, err, took) = interrupt(cmd, complete, Duration::from_millis(200));
    assert_eq!(code, 130, "{err}");
    assert!(took < STOPS_WITHIN, "took {took:?}");
    assert!(
        err.contains("error: interrupted as the run ended: every cell was already written (run.json says complete)"),
        "{err}"
    );
    assert_eq!(
        json(&dir.join("results/sim/m/A1/c2/summary.json"))["status"],
        "complete"
    );
}
