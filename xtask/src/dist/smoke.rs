//! The wheel as a user without Rust gets it: installed with pip into a fresh venv (and with
//! uv and pipx when they are on PATH), then, from an empty folder outside the checkout with
//! HOME and the XDG folders pointed into a temp dir, a short run of the built-in default
//! config, `plateau report` and `plateau validate`, each output checked.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use anyhow::{Context, bail};

use super::output;

/// Overrides that make the built-in default short: two scenarios at two concurrencies.
const SHORT: &[&str] = &[
    "scenarios=[A1,B1]",
    "batch_sizes=[1,4]",
    "fill_seconds=0.5",
    "stabilize_seconds=1",
    "measure_seconds=4",
];

/// Installs and runs the wheel; the installed binary (in a temp dir that is kept, so the
/// image can be built from it: its path is printed) and its `--version`.
pub fn run(wheel: &Path) -> anyhow::Result<(PathBuf, String)> {
    let tmp = tempfile::Builder::new()
        .prefix("plateau-dist-")
        .tempdir()?
        .keep();
    let venv = tmp.join("venv");
    output(Command::new("python3").args(["-m", "venv"]).arg(&venv))?;
    output(
        Command::new(venv.join("bin/pip"))
            .args(["install", "--quiet", "--disable-pip-version-check"])
            .arg(wheel),
    )?;
    let plateau = venv.join("bin/plateau");
    let version = output(Command::new(&plateau).arg("--version"))?;
    eprintln!("pip install: {}", version.trim());
    if !version.starts_with(concat!("plateau ", env!("CARGO_PKG_VERSION"), " (")) {
        bail!("unexpected --version: {version}");
    }
    if version.contains("commit unknown") {
        bail!("a wheel built from a checkout must name its commit: {version}");
    }
    from_empty_folder(&plateau, &tmp)?;
    for (tool, install) in [("uv", uv as Installer), ("pipx", pipx)] {
        if which(tool) {
            let bin = install(wheel, &tmp)?;
            let theirs = output(Command::new(bin.join("plateau")).arg("--version"))?;
            if theirs != version {
                bail!("{tool}'s plateau says {theirs}, pip's {version}");
            }
            eprintln!("{tool} install: {}", theirs.trim());
        } else {
            eprintln!("{tool} install: skipped ({tool} is not on PATH)");
        }
    }
    eprintln!("installs and runs kept in {}", tmp.display());
    Ok((plateau, version))
}

/// How a tool installs `wheel` under `tmp`: the folder its `plateau` lands in.
type Installer = fn(&Path, &Path) -> anyhow::Result<PathBuf>;

fn uv(wheel: &Path, tmp: &Path) -> anyhow::Result<PathBuf> {
    let bin = tmp.join("uv-bin");
    output(
        Command::new("uv")
            .args(["tool", "install", "--quiet"])
            .arg(wheel)
            .env("UV_TOOL_DIR", tmp.join("uv-tools"))
            .env("UV_TOOL_BIN_DIR", &bin),
    )?;
    Ok(bin)
}

fn pipx(wheel: &Path, tmp: &Path) -> anyhow::Result<PathBuf> {
    let bin = tmp.join("pipx-bin");
    output(
        Command::new("pipx")
            .args(["install", "--quiet"])
            .arg(wheel)
            .env("PIPX_HOME", tmp.join("pipx"))
            .env("PIPX_BIN_DIR", &bin)
            .env("PIPX_MAN_DIR", tmp.join("pipx-man")),
    )?;
    Ok(bin)
}

/// `run` (the built-in default, shortened), `report` and `validate` from an empty folder.
fn from_empty_folder(plateau: &Path, tmp: &Path) -> anyhow::Result<()> {
    let empty = tmp.join("empty");
    std::fs::create_dir(&empty)?;
    let cache = tmp.join("xdg-cache");
    let command = |args: &[&str]| {
        let mut cmd = Command::new(plateau);
        cmd.current_dir(&empty)
            .args(args)
            .env("HOME", tmp.join("home"))
            .env("XDG_DATA_HOME", tmp.join("xdg-data"))
            .env("XDG_CACHE_HOME", &cache)
            .env_remove("PLATEAU_CACHE_DIR")
            .env_remove("RUST_LOG");
        cmd
    };
    let mut run_args = vec!["run"];
    for set in SHORT {
        run_args.extend(["--set", set]);
    }
    let (run, run_secs, run_err) = timed(command(&run_args).arg("--quiet"))?;
    if run_err.contains("scenario folder") || !(run == 0 || run == 1) {
        bail!("plateau run from an empty folder exited {run}: {run_err}");
    }
    let (report, report_secs, report_err) = timed(&mut command(&["report"]))?;
    let (validate, validate_secs, _) = timed(&mut command(&["validate", "--quiet"]))?;
    eprintln!(
        "from an empty folder: run exit {run} in {run_secs:.1} s, report exit {report} in \
         {report_secs:.1} s, validate exit {validate} in {validate_secs:.1} s"
    );
    if report != 0 || !(validate == 0 || validate == 1) {
        bail!("report exited {report} ({report_err}), validate {validate}");
    }
    let results = empty.join("results/default");
    for file in [
        "run.json",
        "summary.csv",
        "report.html",
        "summary.md",
        "sim/sim-8b/A1/c4/summary.json",
    ] {
        if !results.join(file).is_file() {
            bail!("missing {}", results.join(file).display());
        }
    }
    let run_json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(results.join("run.json"))?)?;
    let launched = &run_json["invocations"][0];
    if launched["config_file"] != "benchmark_config.json (built in)"
        || launched["plateau_commit"]
            .as_str()
            .is_none_or(|c| c == "unknown")
    {
        bail!("run.json does not name the built-in config and the commit: {launched}");
    }
    let cached = std::fs::read_dir(cache.join("plateau"))
        .with_context(|| format!("no corpus cache in {}", cache.display()))?
        .count();
    if cached == 0 {
        bail!("the corpus cache in {} is empty", cache.display());
    }
    Ok(())
}

/// Runs `cmd`: its exit code, wall time in seconds and stderr.
fn timed(cmd: &mut Command) -> anyhow::Result<(i32, f64, String)> {
    let started = Instant::now();
    let out = cmd
        .output()
        .with_context(|| format!("could not run {cmd:?}"))?;
    Ok((
        out.status.code().unwrap_or(-1),
        started.elapsed().as_secs_f64(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    ))
}

/// Whether `tool` is on PATH.
fn which(tool: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|path| std::env::split_paths(&path).any(|dir| dir.join(tool).is_file()))
}
