//! `cargo xtask kubernetes`: renders every kustomization under deploy/kubernetes (the two
//! overlays and the merge Job) with `kubectl kustomize` and checks what comes out with
//! `kubernetes-validate --strict` against its current Kubernetes schema (CI runs it).

use std::path::Path;
use std::process::Command;

use anyhow::{Context, bail};

/// The kustomizations a user applies.
const KUSTOMIZATIONS: [&str; 3] = ["overlays/cells", "overlays/load", "merge"];

pub fn run() -> anyhow::Result<()> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../deploy/kubernetes");
    let out = tempfile::Builder::new()
        .prefix("plateau-kubernetes-")
        .tempdir()
        .context("cannot make a temp dir")?;
    for k in KUSTOMIZATIONS {
        let rendered = Command::new("kubectl")
            .arg("kustomize")
            .arg(root.join(k))
            .output()
            .context(
                "cannot start kubectl (install it: https://kubernetes.io/docs/tasks/tools/)",
            )?;
        if !rendered.status.success() {
            bail!(
                "kubectl kustomize {k}: {}",
                String::from_utf8_lossy(&rendered.stderr)
            );
        }
        let file = out.path().join(format!("{}.yaml", k.replace('/', "-")));
        std::fs::write(&file, &rendered.stdout)
            .with_context(|| format!("cannot write {}", file.display()))?;
        let status = Command::new("kubernetes-validate")
            .args(["--strict", "--quiet"])
            .arg(&file)
            .status()
            .context("cannot start kubernetes-validate (pip install kubernetes-validate)")?;
        if !status.success() {
            bail!("deploy/kubernetes/{k}: kubernetes-validate failed ({status})");
        }
        eprintln!("deploy/kubernetes/{k}: rendered and valid");
    }
    Ok(())
}
