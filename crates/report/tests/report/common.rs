//! Shared by the tests: a fresh copy of a fixture in a temp directory (the report writes
//! into its results directory), and the clean and open fixtures rendered once each.

use std::fs;
use std::path::PathBuf;
use std::sync::OnceLock;

use plateau_report::{Options, Output};

use crate::fixtures;
use crate::tree::copy_tree;

/// A fresh, empty directory for `test`.
pub fn scratch(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("plateau-report-{}-{test}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    dir
}

/// A copy of fixture `name` for `test`: `(results dir, figures dir)`.
pub fn fixture_copy(name: &str, test: &str) -> (PathBuf, PathBuf) {
    let root = scratch(test);
    let results = root.join("results");
    copy_tree(&fixtures::path(name), &results);
    (results, root.join("figures"))
}

/// A fixture as rendered: `(results dir, figures dir, output)`.
pub type Rendered = (PathBuf, PathBuf, Output);

fn render(name: &str) -> Rendered {
    let (results, figures) = fixture_copy(name, name);
    let out = plateau_report::render(&Options::new(&results, &figures)).unwrap();
    (results, figures, out)
}

/// The clean fixture (closed loop only), rendered once for every test that only reads the
/// output.
pub fn clean() -> &'static Rendered {
    static RENDERED: OnceLock<Rendered> = OnceLock::new();
    RENDERED.get_or_init(|| render("clean"))
}

/// The open fixture (closed- and open-loop cells, capacity.json), rendered once.
pub fn open() -> &'static Rendered {
    static RENDERED: OnceLock<Rendered> = OnceLock::new();
    RENDERED.get_or_init(|| render("open"))
}
