//! Stamps the commit the binary is built from into `PLATEAU_COMMIT` (run.json) and, with its
//! date, into `PLATEAU_BUILD` (`--version`): `PLATEAU_BUILD_COMMIT` when a packager sets it
//! (`<hash> [<date>]`), else git's short hash and commit date of HEAD, else "unknown" (a
//! build from a crates.io package or an sdist, which carry no `.git`).

use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    println!("cargo::rerun-if-env-changed=PLATEAU_BUILD_COMMIT");
    let stamp = match std::env::var("PLATEAU_BUILD_COMMIT") {
        Ok(given) if !given.trim().is_empty() => given.trim().to_owned(),
        _ => from_git().unwrap_or_default(),
    };
    let commit = stamp.split_whitespace().next().unwrap_or("unknown");
    let build = if stamp.is_empty() {
        "commit unknown"
    } else {
        &stamp
    };
    println!("cargo::rustc-env=PLATEAU_COMMIT={commit}");
    println!("cargo::rustc-env=PLATEAU_BUILD={build}");
}

/// `<short hash> <commit date>` of HEAD, when this is a git work tree and git runs; asks
/// cargo to run this again when HEAD moves (a commit, a checkout, a rebase).
fn from_git() -> Option<String> {
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR")?);
    // A packaged crate (crates.io, an sdist) carries no `.git`; an enclosing repository that
    // does not track this file (a home directory under git) is not this one's.
    git(&manifest, &["ls-files", "--full-name", "build.rs"])?;
    for what in ["HEAD", "packed-refs"] {
        watch(&manifest, &["rev-parse", "--git-path", what]);
    }
    if let Some(branch) = git(&manifest, &["symbolic-ref", "-q", "HEAD"]) {
        // The branch's ref file; when the ref is packed there is none yet, and the next
        // commit writes it into its folder.
        if !watch(&manifest, &["rev-parse", "--git-path", &branch]) {
            let folder = branch.rsplit_once('/').map_or("refs", |(dir, _)| dir);
            watch(&manifest, &["rev-parse", "--git-path", folder]);
        }
    }
    git(
        &manifest,
        &[
            "log",
            "-1",
            "--no-show-signature",
            "--format=%h %cs",
            "HEAD",
        ],
    )
}

/// Reruns the build script when the file or folder git names for `args` changes, if it
/// exists (cargo would rerun for a missing one on every build); whether it does.
fn watch(dir: &Path, args: &[&str]) -> bool {
    let path = git(dir, args).map(|p| dir.join(p)).filter(|p| p.exists());
    if let Some(path) = &path {
        println!("cargo::rerun-if-changed={}", path.display());
    }
    path.is_some()
}

/// The trimmed output of `git args` run in `dir`, if it succeeded and said something.
fn git(dir: &Path, args: &[&str]) -> Option<String> {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .output()
        .ok()?;
    let text = String::from_utf8(out.stdout).ok()?;
    let text = text.trim();
    (out.status.success() && !text.is_empty()).then(|| text.to_owned())
}
