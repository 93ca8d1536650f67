//! `cargo xtask dist [--check]`: the wheel users install, built from this checkout by
//! maturin (profile `dist`, linked statically: glibc's `+crt-static`, so no glibc floor and
//! the same file serves the `FROM scratch` image) into `target/dist/`, audited with
//! `auditwheel show` and `ldd`, its binary held under 30 MB. `--check`
//! also installs it the ways users do and runs it from an empty folder outside the checkout
//! ([`smoke`]), installs with `cargo install` ([`cargo`]), then builds the container image
//! from the wheel's binary and runs it ([`image`]). The tools come from `packaging/requirements.txt` (.ci/run puts them on PATH).

mod cargo;
mod image;
mod smoke;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use anyhow::{Context, bail};

/// Where the wheel goes, relative to the workspace root.
const OUT: &str = "target/dist";
/// The newest glibc the wheel's platform tag may ask for (`manylinux_2_17`, manylinux2014):
/// a static binary asks for none.
const NEWEST_GLIBC_MINOR: u32 = 17;
/// The target the wheel is built for, named so that `+crt-static` reaches only its
/// binary, not the build scripts and proc macros cargo runs on this machine.
const TARGET: &str = "x86_64-unknown-linux-gnu";
/// The largest binary the wheel may carry (the issue: "well under 30 MB").
const MAX_BINARY_BYTES: u64 = 30_000_000;

/// `cargo xtask dist`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Also install the wheel (pip, uv, pipx) and run it from an empty folder, install with
    /// `cargo install`, and build and run the container image.
    #[arg(long)]
    pub check: bool,
}

/// Builds and audits the wheel; with `--check`, tries it as users would.
pub fn run(args: Args) -> anyhow::Result<()> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .canonicalize()?;
    let started = Instant::now();
    let wheel = build(&root)?;
    let built = started.elapsed();
    audit(&wheel)?;
    static_binary(&root)?;
    let binary = binary_size(&wheel)?;
    eprintln!(
        "wheel {} ({:.1} MB; binary {:.1} MB) built in {:.1} min",
        wheel.display(),
        mb(std::fs::metadata(&wheel)?.len()),
        mb(binary),
        built.as_secs_f64() / 60.0
    );
    if binary > MAX_BINARY_BYTES {
        bail!(
            "the binary is {:.1} MB, over the {:.0} MB limit",
            mb(binary),
            mb(MAX_BINARY_BYTES)
        );
    }
    if args.check {
        let (installed, version) = smoke::run(&wheel)?;
        cargo::run(&root, &version)?;
        image::run(&root, &installed)?;
    }
    eprintln!(
        "dist done in {:.1} min",
        started.elapsed().as_secs_f64() / 60.0
    );
    Ok(())
}

/// `maturin build` into `target/dist/` (emptied first); the one wheel it wrote.
fn build(root: &Path) -> anyhow::Result<PathBuf> {
    let out = root.join(OUT);
    if out.is_dir() {
        std::fs::remove_dir_all(&out).with_context(|| out.display().to_string())?;
    }
    let status = Command::new("maturin")
        .current_dir(root)
        .env(
            "CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_RUSTFLAGS",
            "-C target-feature=+crt-static",
        )
        .args(["build", "--profile", "dist", "--locked", "--target", TARGET])
        .args(["--compatibility", "manylinux2014", "--out"])
        .arg(&out)
        .status()
        .context("could not run maturin (pip install -r packaging/requirements.txt)")?;
    if !status.success() {
        bail!("maturin build exited with {status}");
    }
    let wheels: Vec<PathBuf> = std::fs::read_dir(&out)?
        .filter_map(|e| Some(e.ok()?.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "whl"))
        .collect();
    match wheels.as_slice() {
        [one] => Ok(one.clone()),
        other => bail!("expected one wheel in {}, found {other:?}", out.display()),
    }
}

/// `auditwheel show`: prints its verdict and fails unless the tag it allows asks for no
/// glibc newer than 2.[`NEWEST_GLIBC_MINOR`].
fn audit(wheel: &Path) -> anyhow::Result<()> {
    let out = Command::new("auditwheel")
        .arg("show")
        .arg(wheel)
        .output()
        .context("could not run auditwheel (pip install -r packaging/requirements.txt)")?;
    let text = String::from_utf8_lossy(&out.stdout);
    eprintln!("auditwheel show:\n{}", text.trim_end());
    match glibc_minor(&text) {
        Some(minor) if out.status.success() && minor <= NEWEST_GLIBC_MINOR => Ok(()),
        _ => bail!(
            "auditwheel does not place the wheel at manylinux_2_{NEWEST_GLIBC_MINOR} or older: {}",
            String::from_utf8_lossy(&out.stderr)
        ),
    }
}

/// The glibc minor version of the first `"manylinux_2_N_x86_64"` tag in auditwheel's text.
fn glibc_minor(text: &str) -> Option<u32> {
    let tag = text.split("\"manylinux_2_").nth(1)?;
    tag.split('_').next()?.parse().ok()
}

/// Fails unless the binary maturin built loads no shared library (`ldd`: "statically
/// linked"): the image carries it alone.
fn static_binary(root: &Path) -> anyhow::Result<()> {
    let binary = crate::target_dir(root).join(TARGET).join("dist/plateau");
    let ldd = output(Command::new("ldd").arg(&binary))?;
    if !ldd.contains("statically linked") {
        bail!(
            "{} is not static; ldd says: {}",
            binary.display(),
            ldd.trim()
        );
    }
    Ok(())
}

/// The size of the `plateau` binary inside `wheel` (read with Python's zipfile).
fn binary_size(wheel: &Path) -> anyhow::Result<u64> {
    let out = Command::new("python3")
        .args([
            "-c",
            "import sys, zipfile; print(sum(i.file_size for i in zipfile.ZipFile(sys.argv[1]).infolist() if i.filename.endswith('.data/scripts/plateau')))",
        ])
        .arg(wheel)
        .output()
        .context("could not run python3")?;
    let text = String::from_utf8_lossy(&out.stdout);
    match text.trim().parse::<u64>() {
        Ok(n) if out.status.success() && n > 0 => Ok(n),
        _ => bail!("no `plateau` binary in {}", wheel.display()),
    }
}

/// Bytes in MB (10^6).
fn mb(bytes: u64) -> f64 {
    bytes as f64 / 1e6
}

/// Runs `cmd`, failing with its stderr unless it exits 0; its stdout.
fn output(cmd: &mut Command) -> anyhow::Result<String> {
    let out = cmd
        .output()
        .with_context(|| format!("could not run {:?}", cmd.get_program()))?;
    if !out.status.success() {
        bail!(
            "{:?} exited with {}: {}",
            cmd,
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}
