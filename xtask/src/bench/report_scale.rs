//! `cargo xtask bench report`: how `plateau report` scales with a run's size. Builds a
//! results directory of `--cells` cells from one real cell of the report's fixtures (each
//! copy's summary rewritten to its own endpoint, scenario and concurrency, so that it lies
//! where it says it is; its records hard-linked, not copied), runs the release
//! `plateau report` on it and prints the wall time, the peak resident memory (the kernel's
//! `ru_maxrss` of the reaped child), the size of report.html and of the largest of the
//! per-cell pages a large run's report.html links.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use anyhow::Context;
use plateau_testkit::tree::{Copies, cell_copies};

/// The fixture cell every copy comes from.
const FIXTURE: &str = "crates/report/tests/fixtures/clean/vllm/llama-8b/A1/c4";

/// Scenarios and concurrencies per endpoint: each endpoint holds 100 cells.
const SCENARIOS: usize = 10;
const LOADS: u32 = 10;

/// `bench report` options.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Cells in the generated run (rounded up to a multiple of 100).
    #[arg(long, default_value_t = 10_000)]
    pub cells: usize,
    /// A `plateau` binary to measure instead of building this checkout's.
    #[arg(long)]
    pub plateau: Option<PathBuf>,
}

pub fn run(args: &Args) -> anyhow::Result<()> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let plateau = match &args.plateau {
        Some(p) => p.clone(),
        None => super::release_plateau()?,
    };
    let scratch = std::env::temp_dir().join(format!("plateau-report-scale-{}", std::process::id()));
    let results = scratch.join("results");
    let shape = Copies {
        endpoints: args.cells.div_ceil(SCENARIOS * LOADS as usize),
        scenarios: SCENARIOS,
        loads: LOADS,
    };
    cell_copies(&root.join(FIXTURE), &results, shape).with_context(|| {
        format!(
            "writing {} cells under {}",
            shape.cells(),
            results.display()
        )
    })?;
    let started = Instant::now();
    let child = Command::new(&plateau)
        .args(["report", "--quiet", "--results-dir"])
        .arg(&results)
        .spawn()
        .with_context(|| format!("running {}", plateau.display()))?;
    let (code, rss_kb) =
        wait_with_peak_rss(&child).with_context(|| format!("waiting for {}", plateau.display()))?;
    let wall = started.elapsed();
    let rss_mb = rss_kb as f64 / 1024.0;
    let html = std::fs::metadata(results.join("report.html")).map_or(0, |m| m.len());
    let pages: Vec<u64> = std::fs::read_dir(results.join("cells"))
        .map(|dir| {
            dir.filter_map(|e| Some(e.ok()?.metadata().ok()?.len()))
                .collect()
        })
        .unwrap_or_default();
    println!(
        "plateau report, {} cells: exit {}, {:.1} s, peak RSS {rss_mb:.0} MB, report.html {:.1} MB, \
         {} cell pages (largest {:.2} MB)",
        shape.cells(),
        code,
        wall.as_secs_f64(),
        html as f64 / 1e6,
        pages.len(),
        pages.iter().max().copied().unwrap_or(0) as f64 / 1e6
    );
    let _ = std::fs::remove_dir_all(&scratch);
    Ok(())
}

/// Reaps `child` and returns its exit code (-1 when a signal ended it) and its own peak
/// resident set in KB, from wait4(2). Not `RUSAGE_CHILDREN`: cargo execs `xtask`, so that
/// also holds the rustc processes that had just built it (350 and 675 MB were printed for a
/// report of 91 MB).
#[allow(unsafe_code)]
fn wait_with_peak_rss(child: &std::process::Child) -> std::io::Result<(i32, i64)> {
    let pid = libc::pid_t::try_from(child.id()).map_err(std::io::Error::other)?;
    let mut status = 0;
    // SAFETY: an all-zero `rusage` is a valid value of the plain C struct.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    loop {
        // SAFETY: wait4 writes one int and one `rusage` through pointers to values we own;
        // `pid` is our own unreaped child, which `std` never waits for after this.
        let rc = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
        if rc == pid {
            break;
        }
        let e = std::io::Error::last_os_error();
        if e.kind() != std::io::ErrorKind::Interrupted {
            return Err(e);
        }
    }
    let code = if libc::WIFEXITED(status) {
        libc::WEXITSTATUS(status)
    } else {
        -1
    };
    Ok((code, usage.ru_maxrss))
}
