//! `nvidia-smi` as a sampler: started once per cell with `-lms`, its CSV lines read as they
//! come on a thread of its own (each stamped on the cell's clock as it is read), grouped
//! into one round of GPU lines per interval by [`Lines`]; a round is stamped when its first
//! line arrived. Killed when the cell ends.

use std::ffi::OsStr;
use std::io::{BufRead as _, BufReader};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::{NVIDIA_SMI, Sampled};
use plateau_http::clock::Clock;
use plateau_model::gpu::GpuSample;
use plateau_model::gpu::smi::{Lines, QUERY};

/// Runs `program` (`nvidia-smi`; a test's stand-in) sampling every `interval` until `stop`.
pub(super) async fn run(
    program: &OsStr,
    interval: Duration,
    clock: Clock,
    stop: CancellationToken,
) -> Sampled {
    let mut out = Sampled::default();
    let ms = interval.as_millis().max(1).to_string();
    let spawned = Command::new(program)
        .args([&format!("--query-gpu={QUERY}"), "--format=csv", "-lms", &ms])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .stdin(Stdio::null())
        .spawn();
    let mut child = match spawned {
        Ok(c) => c,
        Err(e) => {
            out.refused
                .push(format!("could not run `{NVIDIA_SMI}`: {e}; no GPU samples"));
            return out;
        }
    };
    let Some(stdout) = child.stdout.take() else {
        let _ = child.kill();
        out.refused.push(format!("`{NVIDIA_SMI}` gave no output"));
        return out;
    };
    let child = Arc::new(Mutex::new(child));
    let (tx, mut rx) = mpsc::unbounded_channel::<(u64, std::io::Result<String>)>();
    let reader = std::thread::Builder::new()
        .name("plateau-nvidia-smi".into())
        .spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let stop = line.is_err();
                if tx.send((clock.now_us(), line)).is_err() || stop {
                    break;
                }
            }
        });
    if let Err(e) = reader {
        out.refused
            .push(format!("no thread to read `{NVIDIA_SMI}`: {e}"));
    } else {
        read(&mut rx, &stop, &mut out).await;
    }
    if let Ok(mut c) = child.lock() {
        let _ = c.kill();
        let _ = c.wait();
    }
    out
}

/// Reads stamped lines into samples until `stop` or the end of the output.
async fn read(
    rx: &mut mpsc::UnboundedReceiver<(u64, std::io::Result<String>)>,
    stop: &CancellationToken,
    out: &mut Sampled,
) {
    let mut lines = Lines::default();
    let mut round_start = 0;
    loop {
        let got = tokio::select! {
            () = stop.cancelled() => return,
            got = rx.recv() => got,
        };
        let (t_us, line) = match got {
            Some((t, Ok(line))) => (t, line),
            Some((_, Err(e))) => {
                out.refused.push(format!("reading `{NVIDIA_SMI}`: {e}"));
                return;
            }
            None => {
                out.refused.push(format!("`{NVIDIA_SMI}` ended early"));
                return;
            }
        };
        match lines.feed(&line) {
            Ok(Some(gpus)) => out.samples.push(GpuSample {
                t_us: round_start,
                gpus,
            }),
            Ok(None) => {}
            Err(why) => {
                out.refused.push(why);
                return;
            }
        }
        if lines.starts_round() {
            round_start = t_us;
        }
    }
}
