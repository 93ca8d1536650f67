//! Running the binary from the repository root with a config written to a temp dir.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The repository root (the default config and `scenarios/` live there).
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

/// A fresh temp dir for one test (`plateau-cli-<name>-XXXXXX`), removed with everything in
/// it when the guard is dropped: keep it bound until the test (and any process it started
/// there) has ended.
pub fn temp(name: &str) -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix(&format!("plateau-cli-{name}-"))
        .tempdir()
        .unwrap()
}

/// A small config against the in-process simulator: `batch_sizes`, short phases.
pub fn tiny_config(dir: &Path, extra: serde_json::Value) -> PathBuf {
    let mut config = serde_json::json!({
        "endpoints": [{"name": "sim", "engine": "sim", "sim": {"profile": "fixed", "fixed": {"ttft_ms": 20, "itl_ms": 5}}}],
        "models": [{"id": "m", "name": "plateau-sim"}],
        "scenarios": ["A1"],
        "batch_sizes": [2],
        "fill_seconds": 0.2, "stabilize_seconds": 0.3, "measure_seconds": 3, "drain_seconds": 2,
        "max_tokens": 8,
        "output_dir": dir.join("results"),
    });
    for (k, v) in extra.as_object().unwrap() {
        config[k] = v.clone();
    }
    let path = dir.join("config.json");
    std::fs::write(&path, serde_json::to_vec_pretty(&config).unwrap()).unwrap();
    path
}

/// `plateau <args>` run from the repository root.
pub fn plateau(args: &[&str]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_plateau"));
    cmd.current_dir(root()).args(args).env_remove("RUST_LOG");
    cmd
}

/// Runs and returns the output (stdout, stderr as text) and exit code.
pub fn run(cmd: &mut Command) -> (i32, String, String) {
    let Output {
        status,
        stdout,
        stderr,
    } = cmd.output().unwrap();
    (
        status.code().unwrap_or(-1),
        String::from_utf8_lossy(&stdout).into_owned(),
        String::from_utf8_lossy(&stderr).into_owned(),
    )
}

/// `plateau sim` on a free loopback port (fixed profile), and its base URL; killed on drop.
pub struct Sim {
    child: std::process::Child,
    /// `http://127.0.0.1:PORT/v1`.
    pub url: String,
}

impl Sim {
    pub fn start() -> Sim {
        Sim::on_port(0)
    }

    /// On `port` (0: any free one).
    pub fn on_port(port: u16) -> Sim {
        use std::io::BufRead;
        let port = port.to_string();
        let mut child = plateau(&["sim", "--port", &port, "--profile", "fixed", "--quiet"])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let mut line = String::new();
        std::io::BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let url = line.trim().rsplit(' ').next().unwrap().to_owned();
        Sim { child, url }
    }

    /// The port it listens on.
    pub fn port(&self) -> u16 {
        let authority = self.url.trim_end_matches("/v1");
        authority.rsplit(':').next().unwrap().parse().unwrap()
    }
}

impl Drop for Sim {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A file of the results as JSON.
pub fn json(path: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

/// Exit code of a run that went to its end: 0, or 1 when a validation check failed (on a
/// loaded machine the client-bottleneck check can fail cells of any run).
pub fn assert_finished(code: i32, err: &str) {
    assert!(code == 0 || code == 1, "exit {code}: {err}");
    assert!(
        !err.lines().any(|l| l.starts_with("error:")),
        "the run stopped: {err}"
    );
}

/// `plateau run --config CONFIG <extra>`.
pub fn run_config(config: &Path, extra: &[&str]) -> (i32, String, String) {
    let mut args = vec!["run", "--config", config.to_str().unwrap()];
    args.extend_from_slice(extra);
    run(&mut plateau(&args))
}

/// `plateau run --config CONFIG --resume`.
pub fn run_resume(config: &Path) -> (i32, String, String) {
    run_config(config, &["--resume"])
}
