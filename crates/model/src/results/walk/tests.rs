//! The walk never follows a link: loops and links out of the tree are named, not read.

use std::os::unix::fs::symlink;

use super::*;

fn temp() -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix("plateau-walk-")
        .tempdir()
        .unwrap()
}

fn cell(dir: &Path) {
    fs::create_dir_all(dir).unwrap();
    fs::write(dir.join(SUMMARY_FILE), b"{}").unwrap();
    fs::write(dir.join(REQUESTS_FILE), b"").unwrap();
}

#[test]
fn a_link_to_an_ancestor_is_a_loop_named_and_not_followed() {
    let tmp = temp();
    let root = tmp.path().join("results");
    cell(&root.join("sim/m/A1/c1"));
    cell(&root.join("sim/m/A1/c2"));
    symlink(".", root.join("sim/m/A1/self")).unwrap();
    symlink("../..", root.join("sim/m/A1/c1/up")).unwrap();
    let found = walk(&root).unwrap();
    assert_eq!(found.cells.len(), 2, "{:?}", found.cells);
    let skipped: Vec<String> = found.skipped.iter().map(|e| e.to_string()).collect();
    assert_eq!(skipped.len(), 2, "{skipped:?}");
    assert!(
        skipped[0].ends_with(
            "sim/m/A1/c1/up: a symbolic link to ../.., which holds it: a loop; plateau does not \
             follow links inside a results directory (remove the link)"
        ),
        "{skipped:?}"
    );
    assert!(
        skipped[1].ends_with("sim/m/A1/self: a symbolic link to ., which holds it: a loop; plateau does not follow links inside a results directory (remove the link)"),
        "{skipped:?}"
    );
}

#[test]
fn a_link_out_of_the_tree_is_named_and_not_followed() {
    let tmp = temp();
    let root = tmp.path().join("results");
    cell(&root.join("sim/m/A1/c1"));
    cell(&tmp.path().join("elsewhere/c2"));
    symlink(tmp.path().join("elsewhere/c2"), root.join("sim/m/A1/c2")).unwrap();
    let found = walk(&root).unwrap();
    assert_eq!(
        found.cells,
        vec![root.canonicalize().unwrap().join("sim/m/A1/c1")]
    );
    let e = found.skipped[0].to_string();
    assert!(e.contains("sim/m/A1/c2: a symbolic link to "), "{e}");
    assert!(e.ends_with("elsewhere/c2; plateau does not follow links inside a results directory (copy the files in instead)"), "{e}");
}

#[test]
fn a_linked_root_is_read_and_a_linked_file_is_not_opened() {
    let tmp = temp();
    let real = tmp.path().join("run-1");
    cell(&real.join("sim/m/A1/c1"));
    symlink(&real, tmp.path().join("latest")).unwrap();
    let found = walk(&tmp.path().join("latest")).unwrap();
    assert_eq!(found.cells.len(), 1);
    assert!(found.skipped.is_empty());
    fs::write(tmp.path().join("other.json"), b"{}").unwrap();
    symlink(tmp.path().join("other.json"), real.join("run.json")).unwrap();
    let e = open_file(&real.join("run.json")).unwrap_err().to_string();
    assert!(e.contains("run.json: a symbolic link to "), "{e}");
    assert!(open_file(&real.join("sim/m/A1/c1/summary.json")).is_ok());
}

#[test]
fn records_without_a_summary_are_an_orphan_cell() {
    let tmp = temp();
    let root = tmp.path();
    cell(&root.join("sim/m/A1/c1"));
    fs::create_dir_all(root.join("sim/m/A1/c2")).unwrap();
    fs::write(root.join("sim/m/A1/c2/requests.jsonl.gz.tmp"), b"").unwrap();
    fs::create_dir_all(root.join("figures")).unwrap();
    let found = walk(root).unwrap();
    assert_eq!(found.cells.len(), 1);
    assert_eq!(
        found.orphans,
        vec![root.canonicalize().unwrap().join("sim/m/A1/c2")]
    );
}
