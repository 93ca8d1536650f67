//! Endpoints that fail: a wrong model name stops the run at preflight (exit 3) before any
//! cell; a server that dies mid-matrix costs one cell a few seconds, its endpoint's later
//! cells are skipped, other endpoints run, and `--resume` redoes what was lost.

use std::path::Path;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::common::{Sim, plateau, run, run_config, run_resume, temp, tiny_config};

#[test]
fn a_wrong_model_name_stops_the_run_before_any_cell() {
    let tmp = temp("wrong-model");
    let dir = tmp.path();
    let config = tiny_config(
        dir,
        json!({"endpoints": [{"name": "sim", "engine": "sim",
            "sim": {"profile": "fixed", "served_models": ["the-real-model"]}}],
            "models": [{"id": "m", "name": "a-typo"}]}),
    );
    let started = Instant::now();
    let (code, _, err) = run(&mut plateau(&["run", "--config", config.to_str().unwrap()]));
    assert_eq!(code, 3, "{err}");
    assert!(
        err.contains("/v1/models lists `the-real-model`, not `a-typo`"),
        "names what the server lists: {err}"
    );
    assert!(!dir.join("results/sim").exists(), "no cell ran");
    assert!(started.elapsed() < Duration::from_secs(10));
    // Told the list is not the whole story, plateau sends the name, and the server's own
    // refusal (HTTP 404 with its message) still stops the run before any cell.
    let (code, _, err) = run_config(&config, &["--set", "allow_unlisted_model=true"]);
    assert_eq!(code, 3, "{err}");
    assert!(
        err.contains("model `a-typo` got HTTP 404")
            && err.contains("The model `a-typo` does not exist."),
        "the server's own message: {err}"
    );
    assert!(!dir.join("results/sim").exists(), "no cell ran");
}

/// Waits for `child` at most `limit`; kills it and fails the test after that.
fn wait(mut child: Child, limit: Duration) -> (i32, String) {
    let deadline = Instant::now() + limit;
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("plateau run took over {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn states(dir: &Path) -> Vec<(String, String, Option<String>)> {
    let run: Value =
        serde_json::from_slice(&std::fs::read(dir.join("results/run.json")).unwrap()).unwrap();
    run["cells"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["path"].as_str().unwrap().to_owned(),
                c["state"].as_str().unwrap().to_owned(),
                c["reason"].as_str().map(str::to_owned),
            )
        })
        .collect()
}

#[test]
fn a_server_that_dies_mid_matrix_costs_one_cell_seconds_and_resume_redoes_it() {
    let tmp = temp("dies");
    let dir = tmp.path();
    let sim = Sim::start();
    let (url, port) = (sim.url.clone(), sim.port());
    let config = tiny_config(
        dir,
        json!({"endpoints": [
                {"name": "dying", "engine": "vllm", "url": url},
                {"name": "alive", "engine": "sim", "sim": {"profile": "fixed", "fixed": {"ttft_ms": 20, "itl_ms": 5}}}],
            "scenarios": ["A1", "B1"], "batch_sizes": [1, 2], "measure_seconds": 1.5}),
    );
    // -v: the "starting" line of each cell that starts (a skipped one must have none).
    let runner = plateau(&["run", "-v", "--config", config.to_str().unwrap()])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Kill the server once its first cell is written.
    let first = dir.join("results/dying/m/A1/c1/summary.json");
    let deadline = Instant::now() + Duration::from_secs(60);
    while !first.exists() {
        assert!(Instant::now() < deadline, "the first cell never finished");
        std::thread::sleep(Duration::from_millis(20));
    }
    drop(sim);
    let (code, err) = wait(runner, Duration::from_secs(120));
    assert_eq!(code, 1, "a failed cell fails validation: {err}");

    // After the kill, each of the endpoint's cells failed (no data) until the streak of
    // refused connections reached 5 s; that cell gave up and the rest were skipped.
    let got = states(dir);
    let dying: Vec<_> = got.iter().filter(|c| c.0.starts_with("dying/")).collect();
    assert_eq!(dying[0].0, "dying/m/A1/c1");
    assert_eq!(dying[0].1, "complete");
    let gave_up = dying
        .iter()
        .position(|c| {
            c.2.as_deref()
                .is_some_and(|r| r.starts_with("no connection could be opened for 5."))
        })
        .unwrap_or_else(|| panic!("no cell gave up: {dying:?}"));
    for (path, state, why) in &dying[1..gave_up] {
        assert_eq!(state, "failed", "{path}");
        assert!(
            why.as_deref()
                .unwrap()
                .starts_with("no measured request succeeded"),
            "{path}: {why:?}"
        );
    }
    assert_eq!(dying[gave_up].1, "failed");
    let prefix = format!("{} gave up: no connection", dying[gave_up].0);
    for (path, state, why) in &dying[gave_up + 1..] {
        assert_eq!(state, "skipped", "{path}");
        assert!(why.as_deref().unwrap().starts_with(&prefix), "{why:?}");
        assert!(!err.contains(&format!("{path}: starting")), "{err}");
    }
    assert!(
        err.contains("dying/m/A1/c1: starting"),
        "-v shows a start: {err}"
    );
    for (path, state, _) in got.iter().filter(|c| c.0.starts_with("alive/")) {
        assert_eq!(state, "complete", "{path}");
    }
    // The dead server cost its cells seconds, not their whole length in connects.
    let failed_cell = dir
        .join("results")
        .join(&dying[gave_up].0)
        .join("summary.json");
    let summary: Value = serde_json::from_slice(&std::fs::read(failed_cell).unwrap()).unwrap();
    assert_eq!(summary["status"], "failed");
    assert!(summary["requests"]["total"].as_u64().unwrap() < 100);
    assert!(
        err.contains("gave up: no connection could be opened"),
        "{err}"
    );

    // The server is back: --resume redoes the failed and skipped cells, keeps the rest.
    let sim = Sim::on_port(port);
    let (code, _, err) = run_resume(&config);
    drop(sim);
    // Cells this short may fail the steady check (exit 1), but none is missing or failed.
    assert!(code == 0 || code == 1, "{err}");
    assert!(
        !err.contains("gave up") && !err.contains("failed:"),
        "{err}"
    );
    for (path, state, _) in states(dir) {
        let redone = path.starts_with("dying/") && path != "dying/m/A1/c1";
        assert_eq!(state, if redone { "complete" } else { "resumed" }, "{path}");
    }
}
