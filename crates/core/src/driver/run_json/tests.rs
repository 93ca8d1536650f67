//! Earlier invocations survive `--resume`, whatever wrote them; closing sums running time.

use serde_json::json;

use super::*;
use plateau_model::results::run_info::Launch;

/// `run.json` holding `content`, in a temp directory removed when the guard is dropped:
/// `(guard, path)`.
fn file(name: &str, content: &str) -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::Builder::new()
        .prefix(&format!("plateau-runjson-{name}-"))
        .tempdir()
        .unwrap();
    let path = dir.path().join("run.json");
    std::fs::write(&path, content).unwrap();
    (dir, path)
}

#[test]
fn invocations_are_read_back() {
    let (_tmp, path) = file(
        "list",
        &json!({"config": {"unknown_to_this_version": 1}, "invocations": [
            {"started_at": "2026-01-01T00:00:00Z", "ended_at": "2026-01-01T01:00:00Z",
             "status": "failed", "reason": "disk full", "resume": false, "config_file": "c.json"},
            {"started_at": "2026-01-02T00:00:00Z", "ended_at": null, "status": "running",
             "resume": true}
        ]})
        .to_string(),
    );
    let got = earlier_invocations(&path);
    assert_eq!(got.len(), 2);
    assert_eq!(got[0].status, RunStatus::Failed);
    assert_eq!(got[0].reason.as_deref(), Some("disk full"));
    assert_eq!(got[0].launch.config_file.as_deref(), Some("c.json"));
    assert!(got[1].resume && got[1].ended_at.is_none());
}

#[test]
fn a_run_json_without_invocations_gives_its_own_span() {
    let (_tmp, path) = file(
        "old",
        r#"{"status": "interrupted", "started_at": "2026-01-01T00:00:00Z",
            "ended_at": "2026-01-01T00:10:00Z"}"#,
    );
    let got = earlier_invocations(&path);
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].status, RunStatus::Interrupted);
    assert_eq!(got[0].launch, Launch::default());
    assert!(earlier_invocations(&path.with_file_name("absent.json")).is_empty());
    let (_bad_tmp, bad) = file("bad", "{ nope");
    assert!(earlier_invocations(&bad).is_empty());
}

#[test]
fn closing_sums_the_time_each_invocation_ran() {
    let at = |s: &str| -> DateTime<Utc> { s.parse().unwrap() };
    let done = Invocation {
        started_at: at("2026-01-01T00:00:00Z"),
        ended_at: Some(at("2026-01-01T00:00:10Z")),
        status: RunStatus::Interrupted,
        reason: None,
        resume: false,
        launch: Launch::default(),
    };
    let died = Invocation {
        ended_at: None,
        status: RunStatus::Running,
        ..done.clone()
    };
    let now = Invocation {
        started_at: Utc::now(),
        ..died.clone()
    };
    let mut info: RunInfo = serde_json::from_value(json!({
        "plateau_version": "x", "status": "running", "started_at": "2026-01-01T00:00:00Z",
        "ended_at": null, "wall_duration_s": null,
        "host": {"hostname": "h", "os": "linux", "arch": "x86_64", "cpus": 2},
        "endpoints": [], "cells": [],
        "config": {"endpoints": [], "models": [], "batch_sizes": []}
    }))
    .unwrap();
    info.invocations = vec![done, died, now];
    close(&mut info, RunStatus::Failed, Some("disk full".into()));
    assert_eq!(info.status, RunStatus::Failed);
    assert_eq!(info.reason.as_deref(), Some("disk full"));
    let last = info.invocations.last().unwrap();
    assert_eq!(last.status, RunStatus::Failed);
    assert_eq!(last.reason.as_deref(), Some("disk full"));
    let wall = info.wall_duration_s.unwrap();
    assert!((10.0..11.0).contains(&wall), "{wall}");
}
