//! The registry against the code: every check name the workspace's sources use is
//! registered, every entry is used, and the severities written beside a name are its own.
//! The sources are parsed with `syn`, so formatting does not matter.

mod scan;

use std::path::{Path, PathBuf};

use super::{REGISTRY, lookup};
use scan::{Scan, Use};

/// The workspace's root folder.
fn root() -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    root.canonicalize().unwrap_or(root)
}

/// Every `.rs` file under the workspace's `crates/` and `xtask/`, sorted.
fn workspace_sources() -> Vec<PathBuf> {
    let root = root();
    let mut out = Vec::new();
    let mut dirs = vec![root.join("crates"), root.join("xtask")];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).expect("a source directory") {
            let path = entry.expect("a directory entry").path();
            if path.is_dir() && path.file_name().is_some_and(|n| n != "target") {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// What the workspace's sources say about checks, the registry's own files left out.
fn scan_workspace() -> Scan {
    let mut scan = Scan::default();
    let root = root();
    for path in workspace_sources() {
        let shown = path
            .strip_prefix(&root)
            .unwrap_or(&path)
            .display()
            .to_string();
        if shown.contains("validate/registry") {
            continue;
        }
        let text = std::fs::read_to_string(&path).expect("a readable source file");
        scan.file(&shown, &text);
    }
    scan
}

#[test]
fn every_check_the_code_names_is_registered_with_its_severity() {
    let scan = scan_workspace();
    assert!(
        scan.problems.is_empty(),
        "check names the registry test cannot read (write the name as a string literal, or pass it \
         through a fn or closure parameter that becomes a `Finding {{ check }}`):\n{}",
        scan.problems.join("\n")
    );
    let mut missing = Vec::new();
    for Use {
        check,
        severity,
        file,
    } in &scan.uses
    {
        match lookup(check) {
            None => missing.push(format!(
                "{file}: `{check}` is not in crates/model/src/validate/registry.rs"
            )),
            Some(entry) => {
                if let Some(s) = severity {
                    assert!(
                        entry.severity.contains(s),
                        "{file}: `{check}` is reported as {s:?}, the registry says {:?}",
                        entry.severity
                    );
                }
            }
        }
    }
    missing.sort();
    missing.dedup();
    assert!(
        missing.is_empty(),
        "unregistered checks:\n{}",
        missing.join("\n")
    );
}

#[test]
fn every_registered_check_is_reported_somewhere() {
    let scan = scan_workspace();
    let stale: Vec<&str> = REGISTRY
        .iter()
        .map(|e| e.check)
        .filter(|c| !scan.uses.iter().any(|u| u.check == *c))
        .collect();
    assert!(
        stale.is_empty(),
        "registry entries no code reports (renamed or removed checks?): {stale:?}"
    );
}

#[test]
fn entries_are_unique_named_and_documented() {
    for (i, e) in REGISTRY.iter().enumerate() {
        assert!(
            !e.check.is_empty()
                && e.check
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_'),
            "`{}`: names are snake_case",
            e.check
        );
        assert!(
            REGISTRY[..i].iter().all(|o| o.check != e.check),
            "`{}` is registered twice",
            e.check
        );
        assert!(!e.severity.is_empty(), "`{}` has no severity", e.check);
        for (what, text) in [("meaning", e.meaning), ("action", e.action)] {
            assert!(
                text.len() > 20 && text.ends_with('.'),
                "`{}`: its {what} is a sentence or more",
                e.check
            );
        }
    }
}
