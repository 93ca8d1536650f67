//! Shared by the tests: a fresh copy of a fixture in a temp directory (the report writes
//! into its results directory), and the clean fixture rendered once.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use plateau_report::{Options, Output};

use crate::fixtures;

/// A fresh, empty directory for `test`.
pub fn scratch(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("plateau-report-{}-{test}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    dir
}

/// Copies the tree at `from` into `to`.
pub fn copy_tree(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// A copy of fixture `name` for `test`: `(results dir, figures dir)`.
pub fn fixture_copy(name: &str, test: &str) -> (PathBuf, PathBuf) {
    let root = scratch(test);
    let results = root.join("results");
    copy_tree(&fixtures::path(name), &results);
    (results, root.join("figures"))
}

/// The clean fixture, rendered once for every test that only reads the output.
pub fn clean() -> &'static (PathBuf, PathBuf, Output) {
    static RENDERED: OnceLock<(PathBuf, PathBuf, Output)> = OnceLock::new();
    RENDERED.get_or_init(|| {
        let (results, figures) = fixture_copy("clean", "clean");
        let out = plateau_report::render(&Options::new(&results, &figures)).unwrap();
        (results, figures, out)
    })
}
