//! The recorder: a thread off the request path that finalises each [`Exchange`] into a
//! [`Sample`] (token counting happens here, not between requests), appends it to
//! `requests.jsonl.gz` as it arrives, and hands all samples back when the channel closes.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::PathBuf;
use std::sync::Arc;
use std::thread::JoinHandle;

use flate2::Compression;
use flate2::write::GzEncoder;
use tokio::sync::mpsc;

use crate::exchange::{Exchange, Meta, finalize};
use crate::live::Live;
use crate::sample::Sample;
use crate::tokens::TokenCounter;
use crate::workload::Prompt;

/// One finished request on its way to the recorder.
#[derive(Debug)]
pub struct Record {
    /// What the client saw.
    pub exchange: Exchange,
    /// Where it sat in the cell.
    pub meta: Meta,
    /// What was asked.
    pub prompt: Prompt,
}

/// What the recorder hands back: every sample, and the first write error if the file
/// could not be written (the samples are kept regardless).
#[derive(Debug)]
pub struct Recorded {
    /// All samples, in completion order.
    pub samples: Vec<Sample>,
    /// The first error writing the file, if any.
    pub write_error: Option<io::Error>,
}

/// A running recorder.
#[derive(Debug)]
pub struct Recorder {
    tx: mpsc::UnboundedSender<Record>,
    handle: JoinHandle<Recorded>,
}

impl Recorder {
    /// Starts a recorder writing gzipped JSON lines to `path` (none: keep in memory only).
    pub fn spawn(
        path: Option<PathBuf>,
        counter: Arc<dyn TokenCounter>,
        store_text: bool,
        live: Arc<Live>,
    ) -> io::Result<Recorder> {
        let writer = match path {
            Some(p) => Some(GzEncoder::new(
                BufWriter::new(File::create(p)?),
                Compression::fast(),
            )),
            None => None,
        };
        let (tx, rx) = mpsc::unbounded_channel();
        let handle = std::thread::Builder::new()
            .name("plateau-recorder".into())
            .spawn(move || record(rx, writer, counter.as_ref(), store_text, &live))?;
        Ok(Recorder { tx, handle })
    }

    /// A sender for the slots; the recorder ends when every sender is dropped.
    pub fn sender(&self) -> mpsc::UnboundedSender<Record> {
        self.tx.clone()
    }

    /// Closes this handle's sender and waits for the recorder to drain the channel.
    pub async fn finish(self) -> Recorded {
        let Recorder { tx, handle } = self;
        drop(tx);
        match tokio::task::spawn_blocking(move || handle.join()).await {
            Ok(Ok(recorded)) => recorded,
            _ => Recorded {
                samples: Vec::new(),
                write_error: Some(io::Error::other("the recorder thread panicked")),
            },
        }
    }
}

fn record(
    mut rx: mpsc::UnboundedReceiver<Record>,
    mut writer: Option<GzEncoder<BufWriter<File>>>,
    counter: &dyn TokenCounter,
    store_text: bool,
    live: &Live,
) -> Recorded {
    let mut samples = Vec::new();
    let mut write_error = None;
    let mut line = Vec::new();
    while let Some(r) = rx.blocking_recv() {
        let sample = finalize(r.exchange, r.meta, &r.prompt, counter, store_text);
        live.add_tokens(sample.chunks.iter().map(|c| u64::from(c.tokens)).sum());
        if let (Some(w), None) = (&mut writer, &write_error)
            && let Err(e) = write_line(w, &sample, &mut line)
        {
            write_error = Some(e);
        }
        samples.push(sample);
    }
    if let (Some(w), None) = (writer, &write_error) {
        let closed = w.finish().and_then(|mut b| {
            b.flush()?;
            b.get_ref().sync_all()
        });
        if let Err(e) = closed {
            write_error = Some(e);
        }
    }
    Recorded {
        samples,
        write_error,
    }
}

/// Writes `sample` as one JSON line, serialized into `line` first: the gzip encoder costs
/// a pass over its 32 KiB output buffer per write, so serde_json's many small writes
/// straight into it were 9% of the client's CPU at N = 1,000.
fn write_line(w: &mut impl Write, sample: &Sample, line: &mut Vec<u8>) -> io::Result<()> {
    line.clear();
    serde_json::to_writer(&mut *line, sample)?;
    line.push(b'\n');
    w.write_all(line)
}
