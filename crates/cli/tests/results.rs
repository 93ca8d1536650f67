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
            "warn  vllm/llama-8b/A1/r8  overloaded    overloaded: the server completed 7.0 req/s of the 8.0 offered; requests outstanding +"
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

/// A copy of the `clean` fixture (12 cells) in `dir/r`.
fn clean_copy(dir: &Path) -> PathBuf {
    let r = dir.join("r");
    copy_tree(&fixture("clean"), &r);
    r
}

#[test]
fn report_and_export_exit_1_naming_a_cell_that_lost_its_summary() {
    let tmp = scratch("lost-summary");
    let dir = tmp.path();
    let r = clean_copy(dir);
    fs::remove_file(r.join("sglang/llama-8b/A1/c2/summary.json")).unwrap();
    let named = "error: sglang/llama-8b/A1/c2: no summary.json: the cell finished, but its files are gone (deleted or moved?)";
    for args in [
        &["report", "--results-dir", "r"][..],
        &["export", "--format", "long-csv", "r"][..],
        &["export", "--format", "vllm", "r"][..],
    ] {
        let out = plateau(args, dir);
        let (stdout, stderr) = text(&out);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {stdout}{stderr}");
        assert!(stderr.contains(named), "{args:?}: {stderr}");
        assert!(
            stderr.contains("1 cell(s) ran but have no summary.json"),
            "{args:?}: {stderr}"
        );
    }
    let out = plateau(&["validate", "--results-dir", "r"], dir);
    let (stdout, _) = text(&out);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains("no summary.json: the cell finished, but its files are gone"),
        "{stdout}"
    );
}

#[test]
fn a_link_loop_is_named_and_not_followed_by_any_reader() {
    let tmp = scratch("link-loop");
    let dir = tmp.path();
    let r = clean_copy(dir);
    std::os::unix::fs::symlink(".", r.join("sglang/llama-8b/A1/self")).unwrap();
    let loop_named = "A1/self: a symbolic link to ., which holds it: a loop";
    let out = plateau(&["report", "--results-dir", "r"], dir);
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(2), "{stdout}{stderr}");
    assert!(stdout.starts_with("12 cells: "), "{stdout}");
    assert!(stderr.contains(loop_named), "{stderr}");
    let out = plateau(&["export", "--format", "vllm", "r"], dir);
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(2), "{stdout}{stderr}");
    assert!(
        stdout.starts_with("12 cells exported (12 files)"),
        "{stdout}"
    );
    assert!(stderr.contains(loop_named), "{stderr}");
    let out = plateau(&["validate", "--results-dir", "r"], dir);
    let (stdout, _) = text(&out);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("12 cells with a summary.json"), "{stdout}");
    assert!(
        stdout.contains("not_followed") && stdout.contains(loop_named),
        "{stdout}"
    );
}

#[test]
fn files_from_a_newer_plateau_are_named_with_both_versions() {
    let tmp = scratch("newer");
    let dir = tmp.path();
    let r = clean_copy(dir);
    let path = r.join("vllm/llama-8b/A1/c1/summary.json");
    let mut s: serde_json::Value = serde_json::from_slice(&fs::read(&path).unwrap()).unwrap();
    s["plateau_version"] = "9.1.0".into();
    fs::write(&path, serde_json::to_vec(&s).unwrap()).unwrap();
    let out = plateau(&["validate", "--results-dir", "r"], dir);
    let (stdout, _) = text(&out);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(
        stdout.contains("newer_version")
            && stdout
                .contains("1 file(s) written by plateau 9.1.0, newer than this plateau (0.1.0)"),
        "{stdout}"
    );
    s["schema_version"] = 999.into();
    fs::write(&path, serde_json::to_vec(&s).unwrap()).unwrap();
    let out = plateau(&["report", "--results-dir", "r"], dir);
    let (_, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("c1/summary.json: written by plateau 9.1.0 in summary layout version 999; this plateau (0.1.0) reads layout version 1"),
        "{stderr}"
    );
}
