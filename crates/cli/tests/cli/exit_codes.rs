//! Exit codes of SPEC.md section 2: 0 success, 2 bad input, 3 unreachable at preflight.

use crate::common::{plateau, root, run, run_config, temp, tiny_config};

#[test]
fn dry_run_of_the_default_config_prints_the_plan() {
    let (code, out, err) = run(&mut plateau(&["run", "--dry-run"]));
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("24 cells"), "{out}");
    assert!(out.contains("sim/sim-8b/D/c16"), "{out}");
    assert!(out.contains("estimated wall time"), "{out}");
}

/// The JSON configs directly in `dir`.
fn configs_in(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut configs: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    configs.sort();
    configs
}

/// `plateau run --dry-run` on `config`: its plan, or the test fails naming the file.
fn dry_run(config: &std::path::Path) -> String {
    let mut cmd = plateau(&["run", "--dry-run", "--config", config.to_str().unwrap()]);
    // A hosted API needs its key; a local NIM does not (NGC_API_KEY pulls the container).
    cmd.env_remove("NGC_API_KEY")
        .env("OPENAI_API_KEY", "test-key");
    let (code, out, err) = run(&mut cmd);
    assert_eq!(code, 0, "{}: {err}", config.display());
    out
}

#[test]
fn every_example_config_plans() {
    let examples = root().join("examples");
    let configs = configs_in(&examples);
    assert!(configs.len() >= 8, "{configs:?}");
    for path in configs {
        let out = dry_run(&path);
        if path
            .file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with("sim-"))
        {
            // A demo against the simulator: short phases, so it runs in minutes.
            continue;
        }
        // Full studies: adaptive phases never longer than the fixed 60 s / 120 s they
        // replaced (docs/src/guide/phases.md, "The examples").
        assert!(
            out.contains(
                "Fill 30s, Stabilize 20..60 s (until the transient is over), \
                 Measure 30..120 s (until the 95% intervals are within ±2%), \
                 Drain up to max(30 s, 2 x longest request before m1)"
            ),
            "{}: {out}",
            path.display()
        );
    }
    // The CI recipe's short config plans too.
    let ci = configs_in(&examples.join("ci"));
    assert_eq!(ci.len(), 1, "{ci:?}");
    dry_run(&ci[0]);
}

#[test]
fn unknown_key_is_bad_input_naming_file_and_key() {
    let tmp = temp("unknown");
    let dir = tmp.path();
    let config = tiny_config(dir, serde_json::json!({"measure_secondz": 3}));
    let (code, _, err) = run(&mut plateau(&["run", "--config", config.to_str().unwrap()]));
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("config.json") && err.contains("unknown field `measure_secondz`"),
        "{err}"
    );
}

#[test]
fn invalid_values_are_bad_input_naming_the_field() {
    let tmp = temp("invalid");
    let dir = tmp.path();
    let config = tiny_config(
        dir,
        serde_json::json!({"batch_sizes": [0], "scenarios": ["A9"]}),
    );
    let (code, _, err) = run(&mut plateau(&["run", "--config", config.to_str().unwrap()]));
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("batch_sizes[0]: expected a concurrency of at least 1"),
        "{err}"
    );
    let config = tiny_config(dir, serde_json::json!({"scenarios": ["A9"]}));
    let (code, _, err) = run(&mut plateau(&["run", "--config", config.to_str().unwrap()]));
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("scenarios[0]") && err.contains("A9"), "{err}");
    let (code, _, err) = run_config(&config, &["--set", "oops"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("expected KEY=VALUE"), "{err}");
}

#[test]
fn unreachable_endpoint_exits_3_before_any_cell() {
    let tmp = temp("unreachable");
    let dir = tmp.path();
    let config = tiny_config(
        dir,
        serde_json::json!({"endpoints": [{"name": "gone", "engine": "vllm", "url": "http://127.0.0.1:1/v1"}]}),
    );
    let (code, _, err) = run(&mut plateau(&["run", "--config", config.to_str().unwrap()]));
    assert_eq!(code, 3, "{err}");
    assert!(
        err.contains("endpoint gone at http://127.0.0.1:1/v1 is unreachable"),
        "{err}"
    );
    assert!(!dir.join("results/gone").exists(), "no cell ran");
}

#[test]
fn a_clean_run_exits_0_and_writes_every_file() {
    let tmp = temp("clean");
    let dir = tmp.path();
    let config = tiny_config(dir, serde_json::json!({}));
    let (code, out, err) = run(&mut plateau(&["run", "--config", config.to_str().unwrap()]));
    // Exit 1 only when a busy test machine made the client itself the bottleneck (an
    // honest finding about the machine, not the run): every failed check must be that one.
    // Without -v, log lines start with their level: no timestamps.
    let level = |l: &str| l.split_whitespace().next().unwrap_or("").to_owned();
    assert!(
        err.lines()
            .all(|l| !l.starts_with(|c: char| c.is_ascii_digit())),
        "{err}"
    );
    let failed: Vec<&str> = err.lines().filter(|l| level(l) == "ERROR").collect();
    let busy_client = !failed.is_empty() && failed.iter().all(|l| l.contains("client_bottleneck"));
    assert!(
        code == 0 || (code == 1 && busy_client),
        "exit {code}: {err}"
    );
    assert!(out.contains("sim/m/A1/c2"), "{out}");
    let results = dir.join("results");
    for f in [
        "run.json",
        "summary.csv",
        "sim/m/A1/c2/summary.json",
        "sim/m/A1/c2/requests.jsonl.gz",
    ] {
        assert!(results.join(f).is_file(), "{f} missing");
    }
    let run_info: serde_json::Value =
        serde_json::from_slice(&std::fs::read(results.join("run.json")).unwrap()).unwrap();
    assert_eq!(run_info["status"], "complete");
    assert!(run_info["wall_duration_s"].as_f64().unwrap() > 1.5);
    assert!(run_info["ended_at"].as_str().unwrap() > run_info["started_at"].as_str().unwrap());
    let csv = std::fs::read_to_string(results.join("summary.csv")).unwrap();
    assert_eq!(csv.lines().count(), 2, "{csv}");
}
