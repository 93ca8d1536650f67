//! `cargo xtask ci`: every check CI runs, in order, stopping at the first failure: format,
//! tidy, clippy, tests, docs (each cargo step with `--locked`), the book (its generated
//! reference pages current, `mdbook build`, no broken link), the Kubernetes manifests
//! (`kubectl kustomize`, `kubernetes-validate`), the GitHub workflow examples
//! (`action-validator`), then the README's main job
//! (the default config against the built-in simulator, validated and reported), then
//! `dist --check` (the wheel built, installed and run from an empty folder; cargo install;
//! the container image). `.ci/run` installs what a fresh machine lacks (mdbook, the
//! packaging tools, buildah) and then runs this; there is no second list.

use std::path::Path;
use std::process::Command;

use anyhow::{Context, bail};

/// A cargo step: its name, its arguments, and whether rustdoc warnings are errors.
struct Step {
    name: &'static str,
    args: &'static [&'static str],
    deny_doc_warnings: bool,
}

const fn step(name: &'static str, args: &'static [&'static str]) -> Step {
    Step {
        name,
        args,
        deny_doc_warnings: false,
    }
}

/// The cargo steps before the README's job (`tidy` runs in-process after `format`).
const STEPS: &[Step] = &[
    step("format", &["fmt", "--all", "--check"]),
    step(
        "clippy",
        &[
            "clippy",
            "--workspace",
            "--all-targets",
            "--locked",
            "--",
            "-D",
            "warnings",
        ],
    ),
    step("tests", &["test", "--workspace", "--locked"]),
    Step {
        name: "docs",
        args: &["doc", "--no-deps", "--workspace", "--locked"],
        deny_doc_warnings: true,
    },
];

pub fn run() -> anyhow::Result<()> {
    for (k, step) in STEPS.iter().enumerate() {
        if k == 1 {
            eprintln!("==> tidy");
            crate::tidy::run()?;
        }
        eprintln!("==> {}: cargo {}", step.name, step.args.join(" "));
        let mut cmd = Command::new("cargo");
        cmd.args(step.args);
        if step.deny_doc_warnings {
            cmd.env("RUSTDOCFLAGS", "-D warnings");
        }
        cargo(cmd, step.name)?;
    }
    eprintln!("==> the book: cargo xtask docs --check, cargo xtask book");
    crate::docs::run(crate::docs::Args { check: true })?;
    crate::book::run()?;
    eprintln!("==> the Kubernetes manifests: cargo xtask kubernetes");
    crate::kubernetes::run()?;
    workflows()?;
    readme_job()?;
    // After the README's job: `cargo install` then reuses its release build.
    eprintln!("==> install without Rust: cargo xtask dist --check");
    crate::dist::run(crate::dist::Args { check: true })?;
    eprintln!("CI passed");
    Ok(())
}

/// The GitHub workflow examples under `examples/ci`, checked against the workflow schema by
/// `action-validator` (installed by `.ci/run` from `tools/ci/package-lock.json`).
fn workflows() -> anyhow::Result<()> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/ci");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .with_context(|| format!("reading {}", dir.display()))?
        .filter_map(|e| Some(e.ok()?.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "yml" || x == "yaml"))
        .collect();
    files.sort();
    for file in files {
        eprintln!("==> workflow: action-validator {}", file.display());
        let status = Command::new("action-validator")
            .arg(&file)
            .status()
            .context("running action-validator (install it with .ci/run, tools/ci/package.json)")?;
        if !status.success() {
            bail!(
                "{} is not a valid GitHub workflow ({status})",
                file.display()
            );
        }
    }
    Ok(())
}

/// The README's main job: `plateau run` with the default config against the built-in
/// simulator, `validate` and `report` on its results, and the files they promise.
fn readme_job() -> anyhow::Result<()> {
    let stamp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let out = std::env::temp_dir().join(format!("plateau-ci-{}-{stamp}", std::process::id()));
    let results = out.join("default");
    let figures = out.join("figures");
    let (results_s, figures_s) = (
        results.to_string_lossy().into_owned(),
        figures.to_string_lossy().into_owned(),
    );
    for (what, args) in [
        ("run", vec!["run", "--output-dir", results_s.as_str()]),
        (
            "validate",
            vec!["validate", "--results-dir", results_s.as_str()],
        ),
        (
            "report",
            vec![
                "report",
                "--results-dir",
                results_s.as_str(),
                "--figures-dir",
                figures_s.as_str(),
            ],
        ),
    ] {
        eprintln!("==> the README's main job: plateau {}", args.join(" "));
        let mut cmd = Command::new("cargo");
        cmd.args(["run", "--release", "--locked", "-p", "plateau-bench", "--"])
            .args(&args);
        cargo(cmd, what)?;
    }
    // report.html, summary.md and summary.csv go beside the results; the figures into
    // --figures-dir.
    for f in ["report.html", "summary.md", "summary.csv"] {
        let path = results.join(f);
        if std::fs::metadata(&path).map_or(true, |m| m.len() == 0) {
            bail!("missing: {}", path.display());
        }
    }
    if !has_timeline(&figures)? {
        bail!("missing: timeline figures in {}", figures.display());
    }
    eprintln!("the README's main job passed ({})", out.display());
    Ok(())
}

fn has_timeline(dir: &Path) -> anyhow::Result<bool> {
    for entry in std::fs::read_dir(dir).with_context(|| dir.display().to_string())? {
        let name = entry?.file_name();
        let name = name.to_string_lossy();
        if name.starts_with("timeline_") && name.ends_with(".png") {
            return Ok(true);
        }
    }
    Ok(false)
}

fn cargo(mut cmd: Command, name: &str) -> anyhow::Result<()> {
    let status = cmd.status().context("could not start cargo")?;
    if !status.success() {
        bail!("{name} failed ({status})");
    }
    Ok(())
}
