//! `amd-smi` as a sampler: `amd-smi metric -p -E -u -m --json` run once per tick on a
//! blocking thread (killed past [`TIMEOUT`](super::TIMEOUT)), its output parsed by
//! [`plateau_model::gpu::amd`], each sample stamped on the cell's clock when the command
//! started. amd-smi has no loop mode that prints JSON per interval, hence one run per tick.

use std::ffi::{OsStr, OsString};
use std::io::Read as _;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use tokio_util::sync::CancellationToken;

use super::{AMD_SMI, Sampled, TIMEOUT, ticker};
use plateau_http::clock::Clock;
use plateau_model::gpu::{GpuSample, amd};

/// Runs `program` (`amd-smi`; a test's stand-in) every `interval` until `stop`. A run that
/// fails or prints what is not amd-smi's JSON counts as a failed sample; a program that
/// cannot be started at all is refused once.
pub(super) async fn run(
    program: &OsStr,
    interval: Duration,
    clock: Clock,
    stop: &CancellationToken,
) -> Sampled {
    let mut out = Sampled::default();
    let mut ticker = ticker(interval);
    loop {
        tokio::select! {
            () = stop.cancelled() => break,
            _ = ticker.tick() => {}
        }
        let t_us = clock.now_us();
        let program = program.to_owned();
        let ran = tokio::task::spawn_blocking(move || once(&program)).await;
        match ran {
            Ok(Ok(text)) => match amd::readings(&text) {
                Ok(gpus) if !gpus.is_empty() => out.samples.push(GpuSample { t_us, gpus }),
                Ok(_) => out.failed += 1,
                Err(why) if out.samples.is_empty() && out.failed == 0 => {
                    out.refused.push(why);
                    break;
                }
                Err(_) => out.failed += 1,
            },
            Ok(Err(Run::NotStarted(why))) => {
                out.refused.push(why);
                break;
            }
            Ok(Err(Run::Failed)) | Err(_) => out.failed += 1,
        }
    }
    out
}

/// Why one run gave no output.
enum Run {
    /// The program could not be started (not installed): no point trying again.
    NotStarted(String),
    /// It failed, or took longer than the timeout.
    Failed,
}

/// One run of `program` with amd-smi's arguments; its standard output, read on a thread
/// of its own while the run is waited for (so a long output cannot block it).
fn once(program: &OsString) -> Result<String, Run> {
    let mut child = Command::new(program)
        .args(amd::ARGS)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| Run::NotStarted(format!("could not run `{AMD_SMI}`: {e}; no GPU samples")))?;
    let mut stdout = child.stdout.take().ok_or(Run::Failed)?;
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut text = String::new();
        let read = stdout.read_to_string(&mut text).map(|_| text);
        let _ = tx.send(read);
    });
    let deadline = Instant::now() + TIMEOUT;
    loop {
        match child.try_wait() {
            Ok(Some(status)) if status.success() => break,
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(5)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(Run::Failed);
            }
        }
    }
    let left = deadline.saturating_duration_since(Instant::now()) + Duration::from_millis(100);
    match rx.recv_timeout(left) {
        Ok(Ok(text)) => Ok(text),
        _ => Err(Run::Failed),
    }
}
