//! The local samplers against stand-ins written by the test into a temp dir: a script that
//! prints what `nvidia-smi -lms` prints (the header once, then a round every 100 ms), and
//! one that prints amd-smi's JSON, each run as the sampler runs the real tool.

use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use super::{Sampled, amd, smi};
use plateau_http::clock::Clock;

/// Writes `body` as an executable shell script `name` in `dir`.
fn script(dir: &Path, name: &str, body: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

/// Samples for `for_ms` with `run`, then stops.
async fn sample_for<F: Future<Output = Sampled>>(
    for_ms: u64,
    stop: CancellationToken,
    run: F,
) -> Sampled {
    let stopper = stop.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(for_ms)).await;
        stopper.cancel();
    });
    tokio::time::timeout(Duration::from_secs(20), run)
        .await
        .expect("the sampler stops")
}

const HEADER: &str = "index, uuid, name, power.draw [W], utilization.gpu [%], memory.used [MiB]";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nvidia_smi_rounds_become_samples_on_the_cell_clock() {
    let dir = tempfile::tempdir().unwrap();
    let body = format!(
        "echo '{HEADER}'\ni=0\nwhile [ $i -lt 100 ]; do\n\
         echo '0, GPU-a, NVIDIA H100 80GB HBM3, 300.00 W, 97 %, 71234 MiB'\n\
         echo '1, GPU-b, NVIDIA H100 80GB HBM3, 200.00 W, 95 %, 70110 MiB'\n\
         sleep 0.1\ni=$((i+1))\ndone"
    );
    let program = script(dir.path(), "nvidia-smi", &body);
    let stop = CancellationToken::new();
    let clock = Clock::start();
    let run = smi::run(
        program.as_os_str(),
        Duration::from_millis(100),
        clock,
        stop.clone(),
    );
    let got = sample_for(1500, stop, run).await;
    assert!(got.refused.is_empty(), "{:?}", got.refused);
    assert!(
        got.samples.len() >= 5,
        "{} samples in 1.5 s at 100 ms",
        got.samples.len()
    );
    for s in &got.samples {
        let watts: f64 = s.gpus.iter().filter_map(|g| g.power_w).sum();
        assert_eq!((s.gpus.len(), watts), (2, 500.0));
    }
    assert!(got.samples.windows(2).all(|w| w[0].t_us < w[1].t_us));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nvidia_smi_in_other_units_is_refused_with_the_unit_named() {
    let dir = tempfile::tempdir().unwrap();
    let body = "echo 'index, uuid, power.draw [mW]'\necho '0, GPU-a, 300000 mW'\nsleep 5";
    let program = script(dir.path(), "nvidia-smi", body);
    let stop = CancellationToken::new();
    let run = smi::run(
        program.as_os_str(),
        Duration::from_millis(100),
        Clock::start(),
        stop.clone(),
    );
    let got = sample_for(3000, stop, run).await;
    assert!(got.samples.is_empty());
    assert_eq!(
        got.refused,
        ["nvidia-smi's `power.draw` is in `mW`, expected `W`"]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn amd_smi_runs_once_per_tick_and_a_missing_tool_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let json = include_str!("../../../model/src/gpu/fixtures/amd-smi-gpu-data.json");
    let fixture = dir.path().join("out.json");
    std::fs::write(&fixture, json).unwrap();
    let program = script(
        dir.path(),
        "amd-smi",
        &format!("cat '{}'", fixture.display()),
    );
    let stop = CancellationToken::new();
    let run = amd::run(
        program.as_os_str(),
        Duration::from_millis(200),
        Clock::start(),
        &stop,
    );
    let got = sample_for(1100, stop.clone(), run).await;
    assert!(got.refused.is_empty(), "{:?}", got.refused);
    assert!(
        got.samples.len() >= 3,
        "{} samples in 1.1 s at 200 ms",
        got.samples.len()
    );
    assert_eq!(got.samples[0].gpus[0].power_w, Some(542.0));
    assert_eq!(got.samples[0].gpus[0].memory_used_mib, Some(121_344.0));

    let missing = dir.path().join("no-such-amd-smi");
    let stop = CancellationToken::new();
    let run = amd::run(
        missing.as_os_str(),
        Duration::from_millis(200),
        Clock::start(),
        &stop,
    );
    let got = sample_for(5000, stop.clone(), run).await;
    assert!(got.samples.is_empty());
    assert!(
        got.refused[0].starts_with("could not run `amd-smi`"),
        "{:?}",
        got.refused
    );
}
