//! The container image of `packaging/Containerfile`, from the static binary the wheel
//! installed, alone in a root folder, built `FROM scratch` by buildah in a private vfs
//! storage (no daemon, no registry, nothing left behind), run with the image's own
//! entrypoint through `buildah run` (runc) for `--version`, a short simulator run and a
//! host name resolved with no shared library to load, and saved as `target/dist/plateau-image.tar` for `podman load` /
//! `docker load`. (`podman run` cannot start containers on this project's VM: runc may not
//! set the rlimits podman asks for; `buildah run` sets none.)

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use anyhow::{Context, bail};

use super::{OUT, mb, output};

/// The image's name.
const TAG: &str = concat!("localhost/plateau:", env!("CARGO_PKG_VERSION"));

/// Builds, runs and saves the image of `binary`.
pub fn run(root: &Path, binary: &Path) -> anyhow::Result<()> {
    let started = Instant::now();
    let tmp = tempfile::Builder::new()
        .prefix("plateau-image-")
        .tempdir()?;
    let context = tmp.path().join("context");
    fill_rootfs(&context.join("rootfs"), binary)?;
    std::fs::copy(
        root.join("packaging/Containerfile"),
        context.join("Containerfile"),
    )?;
    let buildah = |args: &[&str]| {
        let mut cmd = Command::new("buildah");
        cmd.arg("--root")
            .arg(tmp.path().join("storage"))
            .arg("--runroot")
            .arg(tmp.path().join("run"))
            .args(["--storage-driver", "vfs"])
            .args(args);
        cmd
    };
    output(
        buildah(&["build", "--quiet", "--layers=false", "-t", TAG, "-f"])
            .arg(context.join("Containerfile"))
            .arg(&context),
    )
    .context("buildah build")?;
    let size = output(&mut buildah(&["images", "--format", "{{.Size}}", TAG]))?;
    // The whole inspection, parsed here: Debian's buildah 1.28 has no `json` template
    // function for `--format`.
    let inspected: serde_json::Value =
        serde_json::from_str(&output(&mut buildah(&["inspect", "--type", "image", TAG]))?)?;
    let entrypoint: Vec<String> =
        serde_json::from_value(inspected["OCIv1"]["config"]["Entrypoint"].clone())
            .context("the image's OCI config has no Entrypoint list")?;
    let container = output(&mut buildah(&["from", "--quiet", TAG]))?;
    let container = container.trim();
    let results = tmp.path().join("results");
    std::fs::create_dir(&results)?;
    let volume = format!("{}:/results", results.display());
    let in_image = |args: &[&str]| {
        let mut cmd = buildah(&["run", "--network", "none", "-v", &volume, container, "--"]);
        cmd.args(&entrypoint).args(args);
        cmd
    };
    let version = output(&mut in_image(&["--version"]))?;
    let short = [
        "run",
        "--quiet",
        "--output-dir",
        "/results/run",
        "--set",
        "scenarios=[A1]",
        "--set",
        "batch_sizes=[2]",
        "--set",
        "fill_seconds=0.5",
        "--set",
        "stabilize_seconds=1",
        "--set",
        "measure_seconds=3",
    ];
    let ran = in_image(&short).output()?;
    let code = ran.status.code().unwrap_or(-1);
    if !(code == 0 || code == 1) || !results.join("run/summary.csv").is_file() {
        bail!(
            "plateau run in the image exited {code}: {}",
            String::from_utf8_lossy(&ran.stderr)
        );
    }
    resolves_names(&mut in_image(&[
        "run",
        "--url",
        "http://localhost:9/v1",
        "--model",
        "m",
        "--output-dir",
        "/results/unreachable",
    ]))?;
    output(&mut buildah(&["rm", container]))?;
    let archive = root.join(OUT).join("plateau-image.tar");
    output(
        buildah(&["push", "--quiet", TAG])
            .arg(format!("docker-archive:{}:{TAG}", archive.display())),
    )?;
    eprintln!(
        "image {TAG} ({}; saved as {}, {:.1} MB): {} ran a simulator cell, exit {code}, in \
         {:.1} s all told",
        size.trim(),
        archive.display(),
        mb(std::fs::metadata(&archive)?.len()),
        version.trim(),
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

/// `rootfs` with the binary at /usr/local/bin/plateau, every file `ldd` says it loads at the
/// same path (none: it is static), an empty /root (HOME) and /tmp, /etc/hosts and /etc/nsswitch.conf.
fn fill_rootfs(rootfs: &Path, binary: &Path) -> anyhow::Result<()> {
    let bin = rootfs.join("usr/local/bin");
    std::fs::create_dir_all(&bin)?;
    std::fs::copy(binary, bin.join("plateau"))?;
    for dir in ["root", "tmp", "etc"] {
        std::fs::create_dir_all(rootfs.join(dir))?;
    }
    // Runtimes mount their own /etc/hosts over this one, but not all of them (`buildah run
    // --network none` mounts none): without it "localhost" does not resolve. The
    // nsswitch.conf reads it before DNS, which glibc otherwise asks first and, unreachable,
    // gives up on.
    std::fs::write(
        rootfs.join("etc/hosts"),
        "127.0.0.1 localhost\n::1 localhost\n",
    )?;
    std::fs::write(rootfs.join("etc/nsswitch.conf"), "hosts: files dns\n")?;
    for lib in loaded(binary)? {
        let to = rootfs.join(lib.strip_prefix("/").unwrap_or(&lib));
        if let Some(dir) = to.parent() {
            std::fs::create_dir_all(dir)?;
        }
        // `copy` follows a symlink to the file itself.
        std::fs::copy(&lib, &to).with_context(|| lib.display().to_string())?;
    }
    Ok(())
}

/// The absolute paths `ldd` lists for `binary` (none for a static one).
fn loaded(binary: &Path) -> anyhow::Result<Vec<PathBuf>> {
    let text = output(Command::new("ldd").arg(binary))?;
    let libs: Vec<PathBuf> = text
        .split_whitespace()
        .filter(|word| word.starts_with('/'))
        .map(PathBuf::from)
        .collect();
    if libs.is_empty() && !text.contains("statically linked") {
        bail!("ldd listed nothing for {}: {text}", binary.display());
    }
    Ok(libs)
}

/// Runs `plateau run` against `localhost` on a closed port: a static glibc resolves names
/// without loading NSS modules, so preflight must find the port closed (exit 3, "Connection
/// refused"), not fail to look the name up.
fn resolves_names(run: &mut Command) -> anyhow::Result<()> {
    let ran = run.output()?;
    let stderr = String::from_utf8_lossy(&ran.stderr);
    if ran.status.code() != Some(3) || !stderr.contains("Connection refused") {
        bail!(
            "plateau in the image did not reach localhost's closed port (exit {:?}): {}",
            ran.status.code(),
            stderr.trim()
        );
    }
    Ok(())
}
