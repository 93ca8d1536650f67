//! Reading a results directory: links, cells that moved, other layouts, newer plateaus and
//! missing summaries, each named.

use std::fs;
use std::os::unix::fs::symlink;

use super::*;

/// A copy of the report's `clean` fixture (2 endpoints x 2 scenarios x 3 loads, run.json
/// listing all 12 cells) in a temp dir.
fn fixture() -> tempfile::TempDir {
    let tmp = tempfile::Builder::new()
        .prefix("plateau-dir-")
        .tempdir()
        .unwrap();
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../report/tests/fixtures/clean");
    copy(&src, tmp.path());
    tmp
}

fn copy(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy(&entry.path(), &target);
        } else {
            fs::copy(entry.path(), target).unwrap();
        }
    }
}

const CELL: &str = "sglang/llama-8b/A1/c2";

#[test]
fn a_loop_is_named_and_each_cell_is_read_once() {
    let tmp = fixture();
    let root = tmp.path();
    symlink(".", root.join("sglang/llama-8b/A1/self")).unwrap();
    let dir = ResultsDir::read(root).unwrap();
    assert_eq!(dir.cells.len(), 12);
    assert_eq!(dir.summaries().count(), 12);
    let problems = dir.problems();
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(problems[0].contains("A1/self: a symbolic link to ., which holds it: a loop"));
}

#[test]
fn a_summary_that_says_it_is_another_cell_is_an_error() {
    let tmp = fixture();
    let root = tmp.path();
    fs::create_dir_all(root.join("sglang/llama-8b/A1/c8")).unwrap();
    fs::copy(
        root.join(CELL).join(SUMMARY_FILE),
        root.join("sglang/llama-8b/A1/c8").join(SUMMARY_FILE),
    )
    .unwrap();
    let dir = ResultsDir::read(root).unwrap();
    let c8 = dir.cells.iter().find(|c| c.rel.ends_with("c8")).unwrap();
    let e = c8.summary.as_ref().unwrap_err().to_string();
    assert!(
        e.ends_with(
            "A1/c8/summary.json: says it is cell sglang/llama-8b/A1/c2 \
             (endpoint/model/scenario/load) but lies in sglang/llama-8b/A1/c8: moved or edited \
             after plateau wrote it; plateau reads a cell only where it was written"
        ),
        "{e}"
    );
    assert_eq!(dir.summaries().count(), 12);
}

/// Rewrites the fixture's cell summary with `edit`.
fn edit(root: &Path, edit: impl Fn(&mut serde_json::Value)) {
    let path = root.join(CELL).join(SUMMARY_FILE);
    let mut v: serde_json::Value = serde_json::from_slice(&fs::read(&path).unwrap()).unwrap();
    edit(&mut v);
    fs::write(&path, serde_json::to_vec(&v).unwrap()).unwrap();
}

#[test]
fn another_layout_is_an_error_and_a_newer_plateau_a_warning() {
    let tmp = fixture();
    let root = tmp.path();
    edit(root, |v| {
        v["schema_version"] = 999.into();
        v["plateau_version"] = "9.0.0".into();
    });
    let dir = ResultsDir::read(root).unwrap();
    let cell = dir.cells.iter().find(|c| c.rel == CELL).unwrap();
    let e = cell.summary.as_ref().unwrap_err().to_string();
    assert!(
        e.ends_with("written by plateau 9.0.0 in summary layout version 999; this plateau (0.1.0) reads layout version 1: read it with the plateau that wrote it"),
        "{e}"
    );
    assert!(dir.warnings.is_empty(), "{:?}", dir.warnings);

    edit(root, |v| {
        v["schema_version"] = 1.into();
        v["new_field"] = "from the future".into();
    });
    let dir = ResultsDir::read(root).unwrap();
    assert_eq!(dir.summaries().count(), 12);
    assert_eq!(dir.warnings.len(), 1);
    assert!(
        dir.warnings[0]
            .starts_with("1 file(s) written by plateau 9.0.0, newer than this plateau (0.1.0)"),
        "{:?}",
        dir.warnings
    );
}

#[test]
fn missing_summaries_are_named_in_words() {
    let tmp = fixture();
    let root = tmp.path();
    fs::remove_file(root.join(CELL).join(SUMMARY_FILE)).unwrap();
    let dir = ResultsDir::read(root).unwrap();
    assert_eq!(
        dir.missing(),
        vec![Missing {
            rel: CELL.into(),
            why: "the cell finished, but its files are gone (deleted or moved?)".into(),
            lost: true,
        }]
    );
    // Its records are still there: listed once, as run.json says it.
    assert_eq!(dir.orphans, vec![CELL.to_owned()]);
}

/// Sets `run.json`'s `shard` to `shard`.
fn shard_run(root: &Path, shard: serde_json::Value) {
    let path = root.join(RUN_FILE);
    let mut run: serde_json::Value = serde_json::from_slice(&fs::read(&path).unwrap()).unwrap();
    run["shard"] = shard;
    fs::write(&path, serde_json::to_vec(&run).unwrap()).unwrap();
}

#[test]
fn a_load_shard_is_refused_and_a_cell_shard_is_read() {
    let tmp = fixture();
    let root = tmp.path();
    shard_run(
        root,
        serde_json::json!({"index": 1, "count": 4, "by": "load"}),
    );
    let e = ResultsDir::read(root).unwrap_err().to_string();
    assert!(
        e.ends_with(
            "run.json: this is load shard 1 of 4: each cell holds this runner's share of the \
             load, not the benchmark's; merge all 4 shards first (plateau merge SHARD_DIR... \
             --out DIR) and read the merged directory"
        ),
        "{e}"
    );
    shard_run(
        root,
        serde_json::json!({"index": 1, "count": 4, "by": "cells"}),
    );
    let dir = ResultsDir::read(root).unwrap();
    assert_eq!(
        dir.run_info().unwrap().shard.as_ref().unwrap().shard.index,
        1
    );
    assert_eq!(dir.summaries().count(), 12);
}
