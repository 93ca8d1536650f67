//! The store: a run recorded once however often it is added, filters, removal, and
//! refusals (damaged file, locked database, another program's database) that change
//! nothing already recorded.

use std::collections::BTreeMap;
use std::path::Path;

use super::*;
use crate::record::{CellRecord, RunRecord};

fn run(key: &str, started: &str, labels: &[(&str, &str)]) -> RunRecord {
    RunRecord {
        key: key.into(),
        path: PathBuf::from(format!("/results/{key}")),
        started_at: started.parse().unwrap(),
        status: "complete".into(),
        plateau_version: "0.1.0".into(),
        host: serde_json::json!({"hostname": "h"}),
        endpoints: serde_json::json!([]),
        labels: labels
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect::<BTreeMap<_, _>>(),
        cells: vec![CellRecord {
            rel: "sim/m/A1/c2".into(),
            endpoint: "sim".into(),
            model: "m".into(),
            scenario: "A1".into(),
            load: "c2".into(),
            repeat: 1,
            fingerprint: Some("fnv1a64:0123".into()),
            status: "complete".into(),
            steady: true,
            overloaded: false,
            values: vec![
                (
                    "throughput.server_direct_tps".into(),
                    812.5,
                    Some([800.0, 825.0]),
                ),
                ("ttft_ms.p50".into(), 21.0, None),
            ],
        }],
    }
}

fn three(path: &Path) -> Store {
    let mut s = Store::open(path).unwrap();
    assert_eq!(
        s.add(&run("a", "2026-01-01T00:00:00Z", &[("engine", "vllm")]))
            .unwrap(),
        Added::New(1)
    );
    assert_eq!(
        s.add(&run("b", "2026-01-02T00:00:00Z", &[("engine", "sglang")]))
            .unwrap(),
        Added::New(2)
    );
    assert_eq!(
        s.add(&run("c", "2026-01-03T00:00:00Z", &[("engine", "vllm")]))
            .unwrap(),
        Added::New(3)
    );
    s
}

#[test]
fn adds_once_lists_filters_shows_and_removes() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("sub/history.sqlite");
    let mut s = three(&db);
    assert_eq!(
        s.add(&run("b", "2026-01-02T00:00:00Z", &[])).unwrap(),
        Added::Already(2)
    );
    let all = s.runs(&Filter::default()).unwrap();
    assert_eq!(all.iter().map(|r| r.id).collect::<Vec<_>>(), [1, 2, 3]);
    let vllm = s.runs(&Filter::parse("engine=vllm").unwrap()).unwrap();
    assert_eq!(vllm.iter().map(|r| r.id).collect::<Vec<_>>(), [1, 3]);
    let last = s.runs(&Filter::parse("last 2").unwrap()).unwrap();
    assert_eq!(last.iter().map(|r| r.id).collect::<Vec<_>>(), [2, 3]);
    let (row, cells) = s.run(1).unwrap();
    assert_eq!(row.labels, [("engine".to_owned(), "vllm".to_owned())]);
    assert_eq!(row.cells, 1);
    assert_eq!(cells, run("a", "2026-01-01T00:00:00Z", &[]).cells);
    assert_eq!(s.remove(&[2]).unwrap(), 1);
    assert!(matches!(
        s.remove(&[2, 3]),
        Err(HistoryError::NoRun { id: 2, .. })
    ));
    // The failed removal removed nothing (run 3 is still there), and reopening keeps all.
    drop(s);
    let s = Store::open(&db).unwrap();
    assert_eq!(s.runs(&Filter::default()).unwrap().len(), 2);
    assert!(matches!(s.run(2), Err(HistoryError::NoRun { .. })));
}

#[test]
fn a_damaged_file_is_refused_and_left_as_it_was() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("history.sqlite");
    drop(three(&db));
    // Overwrite the middle of the file: the header survives, the pages do not.
    let mut bytes = std::fs::read(&db).unwrap();
    let len = bytes.len();
    for b in &mut bytes[100..len] {
        *b = 0xA5;
    }
    std::fs::write(&db, &bytes).unwrap();
    let e = Store::open(&db).unwrap_err();
    assert!(matches!(e, HistoryError::Corrupt { .. }), "{e}");
    assert!(e.to_string().contains("nothing was changed"), "{e}");
    assert_eq!(std::fs::read(&db).unwrap(), bytes, "the file is untouched");

    let text = dir.path().join("notes.txt");
    std::fs::write(
        &text,
        "not a database at all, just some words that are long enough",
    )
    .unwrap();
    let e = Store::open(&text).unwrap_err();
    assert!(matches!(e, HistoryError::Corrupt { .. }), "{e}");
}

#[test]
fn another_programs_database_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("other.sqlite");
    let c = Connection::open(&db).unwrap();
    c.execute_batch("CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (1);")
        .unwrap();
    drop(c);
    let e = Store::open(&db).unwrap_err();
    assert!(
        e.to_string()
            .contains("a SQLite database plateau did not write"),
        "{e}"
    );
}

#[test]
fn a_locked_database_refuses_the_write_and_keeps_what_it_has() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("history.sqlite");
    let mut s = three(&db);
    let other = Connection::open(&db).unwrap();
    other.execute_batch("BEGIN IMMEDIATE;").unwrap();
    let e = s.add(&run("d", "2026-01-04T00:00:00Z", &[])).unwrap_err();
    assert!(matches!(e, HistoryError::Locked { .. }), "{e}");
    assert!(e.to_string().contains("nothing was written"), "{e}");
    other.execute_batch("ROLLBACK;").unwrap();
    assert_eq!(s.runs(&Filter::default()).unwrap().len(), 3);
    assert_eq!(
        s.add(&run("d", "2026-01-04T00:00:00Z", &[])).unwrap(),
        Added::New(4)
    );
}
