//! `plateau run --url --model`: a first look without a config file, whose config is
//! printed, saved with --save-config, and runs again as a file.

use crate::common::{plateau, run, run_config, temp};

#[test]
fn a_first_look_needs_no_config_file_and_saves_one() {
    let tmp = temp("quick");
    let dir = tmp.path();
    let saved = dir.join("first-look.json");
    let out_dir = dir.join("results");
    let (code, out, err) = run(&mut plateau(&[
        "run",
        "--url",
        "sim://",
        "--engine",
        "sim",
        "--model",
        "plateau-sim",
        "--scenarios",
        "A1",
        "--concurrency",
        "2",
        "--set",
        "fill_seconds=0.2",
        "--set",
        "stabilize_seconds=0.3",
        "--set",
        "measure_seconds=2",
        "--set",
        "max_tokens=8",
        "--save-config",
        saved.to_str().unwrap(),
        "--output-dir",
        out_dir.to_str().unwrap(),
    ]));
    assert!(code == 0 || code == 1, "exit {code}: {out}{err}");
    assert!(out.contains("config from --url/--model"), "{out}");
    assert!(
        out.contains("\"measure_seconds\": 2.0"),
        "the --set keys are in it: {out}"
    );
    // Only the keys given, not the whole config with its defaults and nulls.
    let shown: Vec<&str> = out
        .lines()
        .skip_while(|l| !l.starts_with("config from --url/--model"))
        .skip(1)
        .take_while(|l| !l.starts_with("config written"))
        .collect();
    assert!(shown.len() <= 30, "{} lines: {out}", shown.len());
    assert!(!out.contains("null"), "{out}");
    assert!(
        !out.contains("\"request_timeout_seconds\""),
        "a default: {out}"
    );
    assert!(out.contains("server/plateau-sim/A1/c2"), "{out}");
    assert!(
        out_dir
            .join("server/plateau-sim/A1/c2/summary.json")
            .is_file()
    );
    let run_info: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out_dir.join("run.json")).unwrap()).unwrap();
    assert_eq!(
        run_info["invocations"][0]["config_file"],
        "the command line (--url, --model)"
    );

    // The saved config is an ordinary config file: it plans the same cell.
    let (code, out, err) = run_config(&saved, &["--dry-run"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("1 cells") && out.contains("server/plateau-sim/A1/c2"),
        "{out}"
    );

    // A bad flag value is blamed on its flag.
    let (code, _, err) = run(&mut plateau(&[
        "run",
        "--url",
        "sim://",
        "--engine",
        "sim",
        "--model",
        "m",
        "--concurrency",
        "0",
        "--dry-run",
    ]));
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("--concurrency") && err.contains("batch_sizes[0]"),
        "{err}"
    );
}

#[test]
fn save_config_works_with_a_config_file_and_keeps_existing_files() {
    let tmp = temp("save-config");
    let dir = tmp.path();
    let config = crate::common::tiny_config(dir, serde_json::json!({}));
    let saved = dir.join("saved.json");
    let (code, out, err) = run_config(
        &config,
        &[
            "--set",
            "measure_seconds=7",
            "--save-config",
            saved.to_str().unwrap(),
            "--dry-run",
        ],
    );
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains(&format!("config written to {}", saved.display())),
        "{out}"
    );
    let back: serde_json::Value = serde_json::from_slice(&std::fs::read(&saved).unwrap()).unwrap();
    assert_eq!(
        back["measure_seconds"], 7.0,
        "the --set key is in it: {back}"
    );
    assert_eq!(back["scenarios"], serde_json::json!(["A1"]), "{back}");
    assert!(back.get("slo").is_none(), "only the keys given: {back}");
    // A second save to the same file is refused, the file kept.
    let before = std::fs::read(&saved).unwrap();
    let (code, _, err) = run_config(
        &config,
        &["--save-config", saved.to_str().unwrap(), "--dry-run"],
    );
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("the file exists"), "{err}");
    assert_eq!(std::fs::read(&saved).unwrap(), before);
}
