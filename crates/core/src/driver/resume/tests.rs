//! Each reason a cell's earlier results are redone, from summaries written by hand.

use serde_json::json;

use super::*;
use crate::workload::WorkloadInfo;
use plateau_model::config::{Api, Engine, SteadyConfig};
use plateau_model::results::fingerprint::Inputs;

fn fingerprint(max_tokens: u32) -> Fingerprint {
    let inputs = Inputs {
        url: "sim://".into(),
        sim: Some(json!("fixed")),
        engine: Engine::Sim,
        model: "plateau-sim".into(),
        scenario: "A1".into(),
        load: crate::plan::LoadInfo {
            concurrency: Some(2),
            ..Default::default()
        },
        fill_s: 0.2,
        stabilize_s: 0.3,
        measure_s: 3.0,
        drain: "configured 2 s".into(),
        request_timeout_s: 600.0,
        max_tokens: Some(max_tokens),
        ignore_eos: true,
        stream: true,
        api: Api::Chat,
        extra_body: serde_json::Map::new(),
        header_names: Vec::new(),
        tokenizer: "cl100k_base".into(),
        seed: 0,
        workload: WorkloadInfo::default(),
        scenario_options: None,
        slo: None,
        steady: SteadyConfig::default(),
        adaptive_phases: None,
    };
    Fingerprint {
        hash: fingerprint::hash_of(&serde_json::to_value(&inputs).unwrap()),
        inputs,
    }
}

/// A temp cell directory holding `summary` (none: an empty directory), removed when the
/// guard is dropped.
fn cell(name: &str, summary: Option<Value>) -> tempfile::TempDir {
    let dir = tempfile::Builder::new()
        .prefix(&format!("plateau-resume-{name}-"))
        .tempdir()
        .unwrap();
    if let Some(s) = summary {
        std::fs::write(dir.path().join(SUMMARY_FILE), s.to_string()).unwrap();
    }
    dir
}

fn redo_reason(name: &str, summary: Option<Value>, now: &Fingerprint) -> String {
    let dir = cell(name, summary);
    let verdict = check(dir.path(), now);
    drop(dir);
    match verdict {
        Verdict::Redo(reason) => reason,
        other => panic!("{name}: expected a redo, got {other:?}"),
    }
}

#[test]
fn a_cell_never_started_is_fresh() {
    let tmp = tempfile::Builder::new()
        .prefix("plateau-resume-none-")
        .tempdir()
        .unwrap();
    let dir = tmp.path().join("none");
    assert!(matches!(check(&dir, &fingerprint(8)), Verdict::Fresh));
}

#[test]
fn each_reason_to_redo_is_named() {
    let now = fingerprint(32);
    let old = serde_json::to_value(fingerprint(16)).unwrap();
    let cases = [
        (
            "unfinished",
            None,
            "no summary.json (the cell never finished)",
        ),
        (
            "layout",
            Some(json!({"schema_version": 0, "status": "complete"})),
            "summary.json has layout version 0, this plateau writes 1",
        ),
        (
            "interrupted",
            Some(json!({"schema_version": 1, "status": "interrupted", "fingerprint": old})),
            "status was interrupted",
        ),
        (
            "failed",
            Some(json!({"schema_version": 1, "status": "failed", "fingerprint": old})),
            "status was failed",
        ),
        (
            "older",
            Some(json!({"schema_version": 1, "status": "complete"})),
            "no fingerprint (written by an older plateau)",
        ),
        (
            "changed",
            Some(json!({"schema_version": 1, "status": "complete", "fingerprint": old})),
            "max_tokens 16 -> 32",
        ),
        (
            "broken",
            Some(json!({"schema_version": 1, "status": "complete",
                "fingerprint": serde_json::to_value(&now).unwrap()})),
            "unreadable summary.json (missing field",
        ),
    ];
    for (name, summary, reason) in cases {
        let got = redo_reason(name, summary, &now);
        assert!(got.starts_with(reason), "{name}: {got}");
    }
}

#[test]
fn a_summary_that_is_not_json_is_redone() {
    let tmp = cell("garbage", None);
    let dir = tmp.path();
    std::fs::write(dir.join(SUMMARY_FILE), "{ half").unwrap();
    let verdict = check(dir, &fingerprint(8));
    assert!(
        matches!(&verdict, Verdict::Redo(r) if r.starts_with("unreadable summary.json")),
        "{verdict:?}"
    );
}

#[test]
fn the_reason_is_logged_into_the_cell_entry() {
    let old = serde_json::to_value(fingerprint(16)).unwrap();
    let tmp = cell(
        "entry",
        Some(json!({"schema_version": 1, "status": "complete", "fingerprint": old})),
    );
    let dir = tmp.path();
    let mut entry = CellEntry {
        path: "sim/m/A1/c2".into(),
        state: plateau_model::results::run_info::CellState::Pending,
        redone: None,
        reason: None,
    };
    assert!(reuse(dir, &fingerprint(32), &[], &mut entry).is_none());
    assert_eq!(entry.redone.as_deref(), Some("max_tokens 16 -> 32"));
}
