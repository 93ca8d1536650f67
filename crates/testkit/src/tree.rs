//! Copies a fixture tree (the report, `plateau validate` and results tests change their
//! copies, never the fixture).

use std::fs;
use std::path::Path;

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
