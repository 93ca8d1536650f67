//! `cargo xtask man`: rewrites the man pages the wheel installs
//! (`packaging/wheel/data/share/man/man1/`) with `plateau man --out`, so they come from the
//! command-line definition itself. A test of the `plateau` crate (`man_pages_are_current`)
//! fails when they are stale.

use std::path::Path;

use anyhow::Context;

/// Where the pages live, relative to the workspace root.
const DIR: &str = "packaging/wheel/data/share/man/man1";

/// Regenerates the pages: the folder is emptied first, so a removed command's page goes.
pub fn run() -> anyhow::Result<()> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(DIR);
    if dir.is_dir() {
        std::fs::remove_dir_all(&dir).with_context(|| dir.display().to_string())?;
    }
    let mut cmd = crate::plateau::command();
    cmd.args(["--quiet", "man", "--out"]).arg(&dir);
    crate::plateau::run(cmd, "plateau man")
}
