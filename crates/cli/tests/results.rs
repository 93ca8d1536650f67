//! `plateau validate` and `plateau report` run as the real binary on the report crate's
//! fixture results: exit codes 0 (ok), 1 (a check failed), 2 (bad input), and messages that
//! name the cell or the file.

#![allow(clippy::unwrap_used, missing_docs)]

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use plateau_testkit::tree::copy_tree;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../report/tests/fixtures")
        .join(name)
}

fn plateau(args: &[&str], dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_plateau"))
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap()
}

fn text(out: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A fresh, empty directory for `test`, removed when the guard is dropped.
fn scratch(test: &str) -> tempfile::TempDir {
    plateau_testkit::scratch(&format!("cli-{test}"))
}

fn validate(name: &str) -> (Option<i32>, String, String) {
    let dir = fixture(name);
    let tmp = scratch(name);
    let out = plateau(
        &["validate", "--results-dir", dir.to_str().unwrap()],
        tmp.path(),
    );
    let (stdout, stderr) = text(&out);
    (out.status.code(), stdout, stderr)
}

#[test]
fn validate_passes_a_clean_run() {
    let (code, stdout, stderr) = validate("clean");
    assert_eq!(code, Some(0), "{stdout}{stderr}");
    assert!(stdout.contains("OK: every check passed"), "{stdout}");
    assert!(
        stdout.contains("warn  sglang/llama-8b/A1/c1  token_agreement"),
        "{stdout}"
    );
    assert!(!stdout.contains("FAIL"), "{stdout}");
}

#[test]
fn validate_fails_an_interrupted_run() {
    let (code, stdout, _) = validate("interrupted");
    assert_eq!(code, Some(1), "{stdout}");
    for want in [
        "FAIL  run",
        "run_status",
        "FAIL  vllm/llama-8b/A1/c2",
        "interrupted",
        "FAIL  vllm/llama-8b/A1/c4",
        "missing",
        "the cell was never reached",
    ] {
        assert!(stdout.contains(want), "{want} not in:\n{stdout}");
    }
    assert!(stdout.contains("FAILED:"), "{stdout}");
}

#[test]
fn validate_fails_an_unsteady_window() {
    let (code, stdout, _) = validate("unsteady");
    assert_eq!(code, Some(1), "{stdout}");
    assert!(
        stdout.contains("FAIL  vllm/llama-8b/A1/c4  unsteady"),
        "{stdout}"
    );
    assert!(stdout.contains("trend -0.93"), "{stdout}");
    assert!(!stdout.contains("FAIL  vllm/llama-8b/A1/c1"), "{stdout}");
}

#[test]
fn an_overloaded_rate_is_a_warning_about_the_server_not_a_failed_run() {
    let (code, stdout, _) = validate("open");
    assert_eq!(code, Some(0), "{stdout}");
    assert!(
        stdout.contains(
            "warn  vllm/llama-8b/A1/r8  overloaded    overloaded: requests outstanding +"
        ),
        "{stdout}"
    );
    assert!(!stdout.contains("A1/r6  overloaded"), "{stdout}");
}

#[test]
fn validate_names_a_missing_directory_with_exit_2() {
    let tmp = scratch("validate-missing");
    let dir = tmp.path();
    let out = plateau(&["validate", "--results-dir", "nope/results"], dir);
    let (_, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("nope/results: no such results directory"),
        "{stderr}"
    );
}

#[test]
fn validate_reads_the_records() {
    let tmp = scratch("validate-cut");
    let dir = tmp.path();
    copy_tree(&fixture("unsteady"), &dir.join("r"));
    let gz = dir.join("r/vllm/llama-8b/A1/c1/requests.jsonl.gz");
    let bytes = fs::read(&gz).unwrap();
    fs::write(&gz, &bytes[..bytes.len() - 40]).unwrap();
    let out = plateau(&["validate", "--results-dir", "r"], dir);
    let (stdout, _) = text(&out);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains("FAIL  vllm/llama-8b/A1/c1  records"),
        "{stdout}"
    );
    assert!(stdout.contains("requests.jsonl.gz"), "{stdout}");
}

#[test]
fn report_writes_everything_and_names_bad_files() {
    let tmp = scratch("report");
    let dir = tmp.path();
    copy_tree(&fixture("unsteady"), &dir.join("r"));
    let out = plateau(&["report", "--results-dir", "r"], dir);
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(0), "{stdout}{stderr}");
    assert!(
        stdout.contains("2 cells: 14 figures (PNG and SVG) in r/figures"),
        "{stdout}"
    );
    for file in [
        "r/report.html",
        "r/summary.md",
        "r/summary.csv",
        "r/figures/ttft_vs_concurrency.svg",
    ] {
        assert!(dir.join(file).is_file(), "{file} missing");
    }
    assert!(
        !dir.join("figures").exists(),
        "figures go inside the results directory"
    );

    let gz = dir.join("r/vllm/llama-8b/A1/c4/requests.jsonl.gz");
    let bytes = fs::read(&gz).unwrap();
    fs::write(&gz, &bytes[..bytes.len() / 3]).unwrap();
    let out = plateau(&["report", "--results-dir", "r"], dir);
    let (_, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("c4/requests.jsonl.gz"), "{stderr}");
    assert!(stderr.contains("the report covers the rest"), "{stderr}");
}

#[test]
fn report_names_a_missing_directory_with_exit_2() {
    let tmp = scratch("report-missing");
    let dir = tmp.path();
    let out = plateau(&["report"], dir);
    let (_, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("results/default: no such results directory"),
        "{stderr}"
    );
}
