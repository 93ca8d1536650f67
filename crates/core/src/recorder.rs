//! The recorder: a thread off the request path that finalises each [`Exchange`] into a
//! [`Sample`] (token counting happens here, not between requests), appends it to
//! `requests.jsonl.gz` as it arrives, keeps them where the runner can read them as the cell
//! runs ([`Recorder::so_far`]), and hands them all back when the channel closes.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;

use flate2::Compression;
use flate2::write::GzEncoder;
use tokio::sync::mpsc;

use crate::exchange::{Exchange, Meta, finalize};
use crate::live::Live;
use crate::tokens::TokenCounter;
use crate::workload::Prompt;
use plateau_model::sample::Sample;

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

/// The samples recorded so far, shared with the runner's adaptive phase rules.
pub type SoFar = Arc<Mutex<Vec<Sample>>>;

/// A running recorder.
#[derive(Debug)]
pub struct Recorder {
    tx: mpsc::UnboundedSender<Record>,
    handle: JoinHandle<Recorded>,
    so_far: SoFar,
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
        let so_far = SoFar::default();
        let samples = so_far.clone();
        let handle = std::thread::Builder::new()
            .name("plateau-recorder".into())
            .spawn(move || {
                yield_to_requests();
                record(rx, writer, counter.as_ref(), store_text, &live, &samples)
            })?;
        Ok(Recorder { tx, handle, so_far })
    }

    /// The samples recorded so far (finished requests, in completion order), for rules
    /// that judge the cell as it runs; emptied when the recorder finishes.
    pub fn so_far(&self) -> SoFar {
        self.so_far.clone()
    }

    /// A sender for the slots; the recorder ends when every sender is dropped.
    pub fn sender(&self) -> mpsc::UnboundedSender<Record> {
        self.tx.clone()
    }

    /// Closes this handle's sender and waits for the recorder to drain the channel.
    pub async fn finish(self) -> Recorded {
        let Recorder { tx, handle, .. } = self;
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
    so_far: &Mutex<Vec<Sample>>,
) -> Recorded {
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
        lock(so_far).push(sample);
    }
    let samples = std::mem::take(&mut *lock(so_far));
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

/// The samples, also after a panic while they were held (they are only ever pushed to).
pub(crate) fn lock(so_far: &Mutex<Vec<Sample>>) -> MutexGuard<'_, Vec<Sample>> {
    so_far.lock().unwrap_or_else(PoisonError::into_inner)
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

/// Lowers the calling thread's scheduling priority by ten nice steps, so that on a busy
/// core the request tasks run first and the recorder takes the time they leave: its bursts
/// (finalising a sample, compressing a block) then hold back fewer arrivals. Measured at
/// N = 1,000 on one client core (`cargo xtask bench overhead`), ITL p99 was lower in six
/// of seven alternated pairs, by up to 13 ms.
#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
fn yield_to_requests() {
    // SAFETY: `getpriority` and `setpriority` take plain integers; on Linux, PRIO_PROCESS
    // with `who` 0 is the calling thread alone.
    let rc = unsafe {
        let nice = libc::getpriority(libc::PRIO_PROCESS, 0);
        libc::setpriority(libc::PRIO_PROCESS, 0, nice.saturating_add(10))
    };
    if rc != 0 {
        tracing::debug!("the recorder thread keeps its priority: setpriority failed");
    }
}

/// Thread priorities are left alone on this platform.
#[cfg(not(target_os = "linux"))]
fn yield_to_requests() {}

#[cfg(test)]
mod tests {
    use std::io::{BufRead, BufReader};

    use flate2::read::GzDecoder;

    use super::*;
    use crate::exchange::RawChunk;
    use crate::tokens::Whitespace;
    use crate::workload::{Message, Role};

    fn record(seq: u64, words: &str) -> Record {
        let mut exchange = Exchange::new(100 * seq);
        exchange.text.all = words.into();
        exchange.text.answer = words.into();
        exchange.chunks = words
            .match_indices(' ')
            .map(|(i, _)| i)
            .chain([words.len()])
            .zip(1..)
            .map(|(end, read)| RawChunk {
                t_us: 100 * seq + 10 * read,
                read,
                end,
                completion_tokens: None,
                events: 1,
                text_events: 1,
            })
            .collect();
        exchange.t_end_us = 100 * seq + 90;
        Record {
            exchange,
            meta: crate::exchange::tests::measured(seq, 0),
            prompt: Prompt {
                messages: vec![Message::new(Role::User, "say three words")],
                ..Prompt::default()
            },
        }
    }

    #[tokio::test]
    async fn every_sample_is_one_line_of_the_gzipped_file() {
        let tmp = tempfile::Builder::new()
            .prefix("plateau-recorder-test-")
            .tempdir()
            .expect("a temp dir");
        let path = tmp.path().join("requests.jsonl.gz");
        let live = Arc::new(Live::default());
        let recorder = Recorder::spawn(
            Some(path.clone()),
            Arc::new(Whitespace),
            false,
            live.clone(),
        )
        .expect("a recorder");
        let tx = recorder.sender();
        for (seq, words) in [(1, "one two three"), (2, "four five"), (3, "six")] {
            tx.send(record(seq, words))
                .expect("the recorder is running");
        }
        drop(tx);
        let recorded = recorder.finish().await;
        let file = File::open(&path).expect("the records file");
        let lines: Vec<Sample> = BufReader::new(GzDecoder::new(file))
            .lines()
            .map(|l| serde_json::from_str(&l.expect("a line")).expect("a sample"))
            .collect();
        assert!(recorded.write_error.is_none());
        assert_eq!(recorded.samples.len(), 3);
        assert_eq!(
            lines, recorded.samples,
            "the file holds exactly the samples"
        );
        let tokens: Vec<Vec<u32>> = lines
            .iter()
            .map(|s| s.chunks.iter().map(|c| c.tokens).collect())
            .collect();
        assert_eq!(tokens, [vec![1, 1, 1], vec![1, 1], vec![1]]);
        assert_eq!(live.snapshot().output_tokens, 6);
    }

    #[cfg(target_os = "linux")]
    #[test]
    #[allow(unsafe_code)]
    fn the_recorder_thread_yields_to_the_request_tasks_and_only_it() {
        // SAFETY: `getpriority` takes plain integers; `who` 0 is the calling thread.
        let nice = || unsafe { libc::getpriority(libc::PRIO_PROCESS, 0) };
        let before = nice();
        let lowered = std::thread::spawn(move || {
            yield_to_requests();
            nice()
        })
        .join()
        .unwrap();
        assert_eq!(lowered, (before + 10).min(19));
        assert_eq!(nice(), before, "the calling thread keeps its priority");
    }
}
