//! `plateau run --url --model`: a first look without a config file, whose config is
//! printed, saved with --save-config, and runs again as a file.

use crate::common::{plateau, run, temp};

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
    let (code, out, err) = run(&mut plateau(&[
        "run",
        "--config",
        saved.to_str().unwrap(),
        "--dry-run",
    ]));
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
