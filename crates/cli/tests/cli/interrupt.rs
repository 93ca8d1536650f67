//! Ctrl-C, SIGTERM and SIGHUP end the cell cleanly: its records and summary are written,
//! marked `interrupted`, the requests cut short counted `cancelled` (not errors), run.json
//! is closed, and plateau exits 130. While the cell runs, run.json names it `running`.

use std::time::{Duration, Instant};

use crate::common::{plateau, temp, tiny_config};

#[test]
fn ctrl_c_writes_the_cell_marked_interrupted() {
    stop_mid_cell("INT");
}

#[test]
fn sigterm_writes_the_cell_marked_interrupted() {
    stop_mid_cell("TERM");
}

#[test]
fn sighup_writes_the_cell_marked_interrupted() {
    stop_mid_cell("HUP");
}

/// Sends `signal` to a run in its first cell and checks what it left.
fn stop_mid_cell(signal: &str) {
    let tmp = temp(&format!("interrupt-{signal}"));
    let dir = tmp.path();
    let config = tiny_config(
        dir,
        serde_json::json!({"measure_seconds": 60, "batch_sizes": [4, 8]}),
    );
    let mut child = plateau(&["run", "--config", config.to_str().unwrap(), "--quiet"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Wait until the cell is under way (the simulator answers in ~55 ms per request).
    let cell = dir.join("results/sim/m/A1/c4");
    let deadline = Instant::now() + Duration::from_secs(30);
    while !cell.join("requests.jsonl.gz.tmp").exists() {
        assert!(Instant::now() < deadline, "the cell never started");
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_millis(1500));
    // While it runs, run.json names the cell it is in.
    let live: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("results/run.json")).unwrap()).unwrap();
    assert_eq!(live["status"], "running");
    assert_eq!(live["cells"][0]["state"], "running", "{live}");
    assert_eq!(live["cells"][1]["state"], "pending", "{live}");
    let status = std::process::Command::new("kill")
        .args([&format!("-{signal}"), &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let deadline = Instant::now() + Duration::from_secs(30);
    let code = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s.code();
        }
        assert!(
            Instant::now() < deadline,
            "plateau did not stop after SIG{signal}"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    assert_eq!(code, Some(130), "SIG{signal}");
    let summary: serde_json::Value =
        serde_json::from_slice(&std::fs::read(cell.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["status"], "interrupted");
    assert!(summary["records"]["count"].as_u64().unwrap() > 10);
    // The requests in flight at the stop were cancelled by plateau: not errors.
    let requests = &summary["requests"];
    assert!(requests["cancelled"].as_u64().unwrap() >= 1, "{requests}");
    assert_eq!(requests["measured_errors"], 0, "{requests}");
    assert_eq!(
        requests["errors_by_kind"],
        serde_json::json!({}),
        "{requests}"
    );
    assert!(cell.join("requests.jsonl.gz").is_file());
    let run_info: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("results/run.json")).unwrap()).unwrap();
    assert_eq!(run_info["status"], "interrupted");
    assert_eq!(
        run_info["cells"][1]["state"], "pending",
        "the second cell never ran"
    );
    assert!(!dir.join("results/sim/m/A1/c8").exists());
}
