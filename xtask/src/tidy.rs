//! `cargo xtask tidy`: the workspace's house rules, checked on every Rust file and manifest
//! under `crates/` and `xtask/` (rust-analyzer's `xtask/src/tidy.rs` is the model):
//!
//! - every source file opens with a `//!` line saying what it owns;
//! - no file over 400 lines and no function over 100 lines (`rules`), except those named
//!   in `allow` with the reason;
//! - no `.unwrap()` or `.expect(` in the non-test code of a library crate (where it would
//!   panic on network or file data), except those named in `allow` with the reason;
//! - no import cycle between the modules of a crate (`cycles`), except those named in
//!   `allow`;
//! - dependency versions only in the workspace manifest (members say `workspace = true`).
//!
//! Each rule reports every violation with its file and line, so one run lists them all.

mod allow;
mod cycles;
mod lexer;
mod rules;

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};

/// The crates whose non-test code may not unwrap.
const LIBRARIES: &[&str] = &[
    "crates/model",
    "crates/core",
    "crates/http",
    "crates/hub",
    "crates/scenarios",
    "crates/report",
    "crates/sim",
];

pub fn run() -> anyhow::Result<()> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut problems = Vec::new();
    for file in rust_files(&root)? {
        let rel = relative(&root, &file);
        let text = std::fs::read_to_string(&file).with_context(|| rel.clone())?;
        let library = LIBRARIES
            .iter()
            .any(|l| rel.starts_with(&format!("{l}/src/")));
        problems.extend(rules::source(&rel, &text, library && !is_test_file(&rel)));
    }
    for dir in crate_dirs(&root)? {
        let rel = relative(&root, &dir);
        for cycle in crate_cycles(&dir)? {
            if !allow::allows(allow::Kind::Cycle, &rel, &cycle) {
                problems.push(format!(
                    "{rel}: import cycle between modules {cycle}: one of them should own what the others import"
                ));
            }
        }
    }
    for manifest in manifests(&root)? {
        let rel = relative(&root, &manifest);
        let text = std::fs::read_to_string(&manifest).with_context(|| rel.clone())?;
        problems.extend(rules::manifest(&rel, &text));
    }
    problems.extend(allow::stale(&root));
    for p in &problems {
        eprintln!("{p}");
    }
    if !problems.is_empty() {
        bail!("tidy: {} problem(s)", problems.len());
    }
    eprintln!("tidy: clean");
    Ok(())
}

/// `path` relative to `root`, with `/`.
fn relative(root: &Path, path: &Path) -> String {
    path.strip_prefix(root)
        .unwrap_or(path)
        .to_string_lossy()
        .replace('\\', "/")
}

/// A test module file inside `src/` (`tests.rs` or under a `tests/` folder).
fn is_test_file(rel: &str) -> bool {
    rel.ends_with("/tests.rs") || rel.contains("/tests/")
}

/// Every `.rs` file under `crates/` and `xtask/`, in a stable order, `target/` left out.
fn rust_files(root: &Path) -> anyhow::Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for dir in ["crates", "xtask"] {
        walk(&root.join(dir), &mut |p| {
            if p.extension().is_some_and(|e| e == "rs") {
                out.push(p.to_owned());
            }
        })?;
    }
    out.sort();
    Ok(out)
}

/// The library and binary crates under `crates/`.
fn crate_dirs(root: &Path) -> anyhow::Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(root.join("crates"))? {
        let dir = entry?.path();
        if dir.join("src").is_dir() {
            out.push(dir);
        }
    }
    out.sort();
    Ok(out)
}

/// The import cycles among the non-test modules of the crate at `dir`.
pub(crate) fn crate_cycles(dir: &Path) -> anyhow::Result<Vec<String>> {
    let src = dir.join("src");
    let mut files = Vec::new();
    walk(&src, &mut |p| {
        if p.extension().is_some_and(|e| e == "rs") {
            files.push(p.to_owned());
        }
    })?;
    let mut modules = Vec::new();
    for file in files {
        let rel = relative(&src, &file);
        if is_test_file(&format!("/{rel}")) || rel.starts_with("bin/") {
            continue;
        }
        let text = std::fs::read_to_string(&file).with_context(|| rel.clone())?;
        modules.push((cycles::module_of(&rel), text));
    }
    Ok(cycles::cycles(&modules))
}

/// The member manifests.
fn manifests(root: &Path) -> anyhow::Result<Vec<PathBuf>> {
    let mut out = vec![root.join("xtask").join("Cargo.toml")];
    for entry in std::fs::read_dir(root.join("crates"))? {
        let manifest = entry?.path().join("Cargo.toml");
        if manifest.is_file() {
            out.push(manifest);
        }
    }
    out.sort();
    Ok(out)
}

fn walk(dir: &Path, found: &mut dyn FnMut(&Path)) -> anyhow::Result<()> {
    for entry in std::fs::read_dir(dir).with_context(|| dir.display().to_string())? {
        let path = entry?.path();
        if path.is_dir() {
            if path.file_name().is_some_and(|n| n == "target") {
                continue;
            }
            walk(&path, found)?;
        } else {
            found(&path);
        }
    }
    Ok(())
}
