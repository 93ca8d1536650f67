//! tracing to stderr, written around the progress bars so the two never tear each other,
//! every line scrubbed of the run's secrets.

use std::io::{IsTerminal, Write};

use indicatif::MultiProgress;
use tracing_subscriber::EnvFilter;
use tracing_subscriber::fmt::MakeWriter;

use crate::progress::Display;
use crate::redact::Redactions;

/// Installs the subscriber: `RUST_LOG` if set, else info (warn with `--quiet`, debug with
/// `-v`, trace with `-vv`) for plateau's crates, with timestamps from `-v` on. Lines are
/// scrubbed of what the returned [`Redactions`] holds.
pub fn init(verbose: u8, quiet: bool, display: &Display) -> Redactions {
    let level = match (quiet, verbose) {
        (true, _) => "warn",
        (false, 0) => "info",
        (false, 1) => "debug",
        _ => "trace",
    };
    let filter = EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| EnvFilter::new(format!("warn,plateau={level},plateau_core={level},plateau_sim={level},plateau_scenarios={level},plateau_report={level}")));
    let redactions = Redactions::default();
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_target(false)
        .with_ansi(std::io::stderr().is_terminal())
        .with_writer(Suspending(display.bars(), redactions.clone()));
    // Timestamps only where someone is reading a trace (`-v`); the progress lines already
    // say when each cell ran.
    if verbose == 0 {
        builder.without_time().init();
    } else {
        builder.init();
    }
    redactions
}

/// Writes to stderr with the progress bars suspended, secrets scrubbed.
#[derive(Clone)]
struct Suspending(MultiProgress, Redactions);

impl<'a> MakeWriter<'a> for Suspending {
    type Writer = SuspendingWriter;

    fn make_writer(&'a self) -> Self::Writer {
        SuspendingWriter {
            bars: self.0.clone(),
            redactions: self.1.clone(),
            buf: Vec::new(),
        }
    }
}

/// Buffers one event and writes it whole when dropped.
struct SuspendingWriter {
    bars: MultiProgress,
    redactions: Redactions,
    buf: Vec<u8>,
}

impl Write for SuspendingWriter {
    fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
        self.buf.extend_from_slice(data);
        Ok(data.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Drop for SuspendingWriter {
    fn drop(&mut self) {
        let buf = std::mem::take(&mut self.buf);
        let line = String::from_utf8_lossy(&buf);
        let line = self.redactions.scrub(&line);
        self.bars.suspend(|| {
            let _ = std::io::stderr().write_all(line.as_bytes());
        });
    }
}
