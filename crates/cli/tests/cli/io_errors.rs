//! Results that cannot be written: exit 4, one line naming the file and the OS error,
//! run.json closed as `failed` with the reason, and `--resume` finishes the run once the
//! problem is gone. A full disk is played by a file-size limit (`ulimit -f`, with SIGXFSZ
//! ignored so writes past it fail with EFBIG instead of killing plateau).

use crate::common::{
    assert_finished, json, plateau, root, run, run_config, run_resume, temp, tiny_config,
};

/// `File too large` (Linux).
const EFBIG: i32 = 27;

/// The lines plateau printed as errors.
fn error_lines(err: &str) -> Vec<&str> {
    err.lines().filter(|l| l.starts_with("error:")).collect()
}

#[test]
fn an_output_dir_that_is_a_file_exits_4_before_any_cell() {
    let tmp = temp("output-file");
    let dir = tmp.path();
    let config = tiny_config(dir, serde_json::json!({}));
    let results = dir.join("results");
    std::fs::write(&results, b"not a directory").unwrap();
    let (code, _, err) = run_config(&config, &["--quiet"]);
    assert_eq!(code, 4, "{err}");
    assert_eq!(
        err.trim(),
        format!(
            "error: cannot write results: {}: exists and is not a directory",
            results.display()
        )
    );
    assert_eq!(std::fs::read(&results).unwrap(), b"not a directory");
}

#[test]
fn a_full_disk_exits_4_closes_run_json_and_resume_finishes() {
    let tmp = temp("full-disk");
    let dir = tmp.path();
    let config = tiny_config(dir, serde_json::json!({"batch_sizes": [1]}));
    // 12 blocks of 512 bytes: run.json (~3 KB) fits, the cell's summary (~8 KB) does not.
    let (code, _, err) = run(std::process::Command::new("sh")
        .current_dir(root())
        .env_remove("RUST_LOG")
        .args([
            "-c",
            r#"trap '' XFSZ; ulimit -f 12; exec "$0" "$@""#,
            env!("CARGO_BIN_EXE_plateau"),
            "run",
            "--config",
            config.to_str().unwrap(),
            "--quiet",
        ]));
    assert_eq!(code, 4, "{err}");
    let lines = error_lines(&err);
    assert_eq!(lines.len(), 1, "{err}");
    let too_large = std::io::Error::from_raw_os_error(EFBIG).to_string();
    let line = lines[0];
    assert!(
        line.starts_with("error: cannot write results: ")
            && line.contains("/results/sim/m/A1/c1/")
            && line.matches(&too_large).count() == 1
            && line.contains("rerun with --resume"),
        "{line}"
    );

    let run_info = json(&dir.join("results/run.json"));
    assert_eq!(run_info["status"], "failed", "{run_info}");
    let reason = run_info["reason"].as_str().unwrap();
    assert!(
        reason.contains("sim/m/A1/c1/") && reason.contains(&too_large),
        "{reason}"
    );
    assert_eq!(run_info["cells"][0]["state"], "failed");
    assert_eq!(run_info["invocations"][0]["status"], "failed");
    assert!(run_info["ended_at"].is_string());

    let (code, _, err) = run_resume(&config);
    assert_finished(code, &err);
    assert!(err.contains("redoing sim/m/A1/c1: "), "{err}");
    let run_info = json(&dir.join("results/run.json"));
    assert_eq!(run_info["status"], "complete");
    assert!(run_info.get("reason").is_none(), "{run_info}");
    assert_eq!(run_info["invocations"][0]["status"], "failed");
    assert_eq!(run_info["invocations"][1]["status"], "complete");
    let summary = json(&dir.join("results/sim/m/A1/c1/summary.json"));
    assert_eq!(summary["status"], "complete");
    assert!(dir.join("results/sim/m/A1/c1/requests.jsonl.gz").is_file());
}

/// Copies the directory tree `from` into `to`.
fn copy_tree(from: &std::path::Path, to: &std::path::Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let path = entry.unwrap().path();
        let target = to.join(path.file_name().unwrap());
        if path.is_dir() {
            copy_tree(&path, &target);
        } else {
            std::fs::copy(&path, &target).unwrap();
        }
    }
}

#[test]
fn a_report_that_cannot_be_written_exits_4_naming_the_file() {
    let tmp = temp("report-unwritable");
    let dir = tmp.path();
    let results = dir.join("results");
    copy_tree(&root().join("crates/report/tests/fixtures/clean"), &results);
    // report.html is a directory that is not empty: the rename onto it fails.
    let blocker = results.join("report.html");
    std::fs::create_dir_all(blocker.join("keep")).unwrap();
    let (code, _, err) = run(&mut plateau(&[
        "report",
        "--results-dir",
        results.to_str().unwrap(),
        "--figures-dir",
        dir.join("figures").to_str().unwrap(),
    ]));
    assert_eq!(code, 4, "{err}");
    let lines = error_lines(&err);
    assert_eq!(lines.len(), 1, "{err}");
    assert!(
        lines[0].starts_with("error: cannot write the report: ")
            && lines[0].contains(&blocker.display().to_string()),
        "{err}"
    );
    assert!(blocker.join("keep").is_dir(), "nothing was clobbered");
}
