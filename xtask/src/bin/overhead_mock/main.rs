//! `overhead-mock`: the exact-timing OpenAI chat server of `cargo xtask bench overhead`.
//! One thread, one task per connection, nothing computed per event: every reply streams
//! `min(max_tokens, --tokens)` content chunks, the first `--ttft-ms` after the request was
//! read and one every `--itl-ms` after it, each due instant an absolute deadline (no drift).
//! Each chunk carries one token's text, drawn from `--words` words as natural text draws
//! them (`words`), so a client that remembers what it counted sees a real hit rate.
//! The last content chunk carries `finish_reason`, and goes out in one write with the usage
//! chunk and `[DONE]`, so the client sees exactly one observed chunk per token.
//!
//! The mock measures itself: how late each write went out against its due instant (tokio's
//! timer rounds up to the next millisecond), and, for the replies whose request it read in
//! the cell's Measure window (`--window-from-ms`, `--window-ms` after the cell's first
//! request), the TTFT and ITL it actually put on the wire (request read to first write
//! returned, write to write), in 50 us buckets: the truth the client's figures are held
//! against. `GET /stats` returns that and its counters as JSON. One mock serves one point of
//! the benchmark.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use clap::Parser;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::time::{Instant, sleep_until};

mod frames;
mod stats;
mod words;

use frames::Frames;
use stats::Stats;
use words::Words;

#[derive(Parser)]
#[command(about = "exact-timing OpenAI chat mock for `cargo xtask bench overhead`")]
struct Args {
    /// Time from a request read to its first content chunk, ms.
    #[arg(long, default_value_t = 50)]
    ttft_ms: u64,
    /// Time between content chunks, ms.
    #[arg(long, default_value_t = 10)]
    itl_ms: u64,
    /// Most content chunks per reply (one token each); fewer when the request's
    /// `max_tokens` asks for fewer.
    #[arg(long, default_value_t = 100)]
    tokens: u32,
    /// Start of the window whose replies are timed on the wire, ms after the first reply
    /// longer than one token (the cell's first request): its Fill and Stabilize.
    #[arg(long, default_value_t = 0)]
    window_from_ms: u64,
    /// Length of that window, ms (its Measure); replies whose request was read in it are
    /// timed.
    #[arg(long, default_value_t = u64::MAX)]
    window_ms: u64,
    /// Distinct token texts the replies draw from, Zipf-distributed (1: every token is
    /// ` hello`).
    #[arg(long, default_value_t = 20_000)]
    words: usize,
}

fn unix_us() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_micros()).unwrap_or(u64::MAX))
}

struct Mock {
    ttft: Duration,
    itl: Duration,
    tokens: u32,
    frames: Frames,
    stats: Stats,
    started: Instant,
    window_from: Duration,
    window: Duration,
}

impl Mock {
    /// Whether a reply whose request was read at `t0` falls in the timed window.
    fn in_window(&self, t0: Instant) -> bool {
        let first = self.stats.first_long_ns.load(Ordering::Relaxed);
        let Some(first) = first.checked_sub(1) else {
            return false;
        };
        let from = self.started + Duration::from_nanos(first) + self.window_from;
        t0 >= from && t0.saturating_duration_since(from) < self.window
    }
}

fn main() -> std::io::Result<()> {
    let args = Args::parse();
    if let Err(e) = rlimit::increase_nofile_limit(65_536) {
        eprintln!("overhead-mock: could not raise the open-file limit: {e}");
    }
    let mock = Arc::new(Mock {
        ttft: Duration::from_millis(args.ttft_ms),
        itl: Duration::from_millis(args.itl_ms),
        tokens: args.tokens,
        frames: Frames::new(args.tokens, Words::new(args.words)),
        stats: Stats::new(),
        started: Instant::now(),
        window_from: Duration::from_millis(args.window_from_ms),
        window: Duration::from_millis(args.window_ms),
    });
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?
        .block_on(async move {
            let listener = TcpListener::bind("127.0.0.1:0").await?;
            println!(
                "overhead-mock listening on http://{}/v1",
                listener.local_addr()?
            );
            loop {
                let (sock, _) = listener.accept().await?;
                let mock = mock.clone();
                tokio::spawn(async move {
                    // A connection that breaks is the client's business; nothing to report.
                    let _ = serve(sock, &mock).await;
                });
            }
        })
}

/// Decrements the active-stream count when a reply ends, however it ends.
struct Active<'a>(&'a AtomicU64);

impl Drop for Active<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

async fn serve(mut sock: TcpStream, mock: &Mock) -> std::io::Result<()> {
    sock.set_nodelay(true)?;
    let mut buf: Vec<u8> = Vec::with_capacity(4096);
    while let Some((head, body)) = read_request(&mut sock, &mut buf).await? {
        let t0 = Instant::now();
        let stats = &mock.stats;
        let mut words = head.split(' ');
        let (method, path) = (words.next(), words.next());
        if path != Some("/stats") {
            first(&stats.first_any_unix_us, unix_us());
        }
        match (method, path) {
            (Some("POST"), Some(p)) if p.ends_with("/completions") => {
                let tokens = max_tokens(&body).map_or(mock.tokens, |m| m.min(mock.tokens));
                stream(&mut sock, mock, t0, tokens).await?;
            }
            (Some("GET"), Some(p)) if p.ends_with("/models") => {
                respond(
                    &mut sock,
                    "{\"object\":\"list\",\"data\":[{\"id\":\"mock\",\"object\":\"model\",\"owned_by\":\"plateau\"}]}",
                )
                .await?;
            }
            (Some("GET"), Some("/stats")) => respond(&mut sock, &stats.json()).await?,
            _ => {
                sock.write_all(b"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n")
                    .await?;
            }
        }
    }
    Ok(())
}

/// Stores `value` in `slot` if nothing is there yet (0).
fn first(slot: &AtomicU64, value: u64) {
    let _ = slot.compare_exchange(0, value, Ordering::Relaxed, Ordering::Relaxed);
}

/// The next request's head and body; `None` when the client closed the connection.
async fn read_request(
    sock: &mut TcpStream,
    buf: &mut Vec<u8>,
) -> std::io::Result<Option<(String, Vec<u8>)>> {
    let head_end = loop {
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
        if read_more(sock, buf).await? == 0 {
            return Ok(None);
        }
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).into_owned();
    let length = head
        .lines()
        .filter_map(|l| l.split_once(':'))
        .find(|(name, _)| name.trim().eq_ignore_ascii_case("content-length"))
        .and_then(|(_, v)| v.trim().parse::<usize>().ok())
        .unwrap_or(0);
    while buf.len() < head_end + length {
        if read_more(sock, buf).await? == 0 {
            return Ok(None);
        }
    }
    let body = buf.drain(..head_end + length).skip(head_end).collect();
    Ok(Some((head, body)))
}

/// Streams a reply of `tokens` tokens to a request read at `t0`, each write at its due
/// instant, timing what went on the wire when the reply is in the window.
async fn stream(
    sock: &mut TcpStream,
    mock: &Mock,
    t0: Instant,
    tokens: u32,
) -> std::io::Result<()> {
    let (stats, frames) = (&mock.stats, &mock.frames);
    if tokens > 1 {
        first(&stats.first_long_unix_us, unix_us());
        let since_start = t0.saturating_duration_since(mock.started);
        let ns = u64::try_from(since_start.as_nanos()).unwrap_or(u64::MAX - 1);
        first(&stats.first_long_ns, ns + 1);
    }
    let timed = tokens > 1 && mock.in_window(t0);
    // Each reply reads the draws from its own place.
    let start = stats.posts.fetch_add(1, Ordering::Relaxed) as usize * 7_919;
    stats.active.fetch_add(1, Ordering::Relaxed);
    let _active = Active(&stats.active);
    sock.write_all(&frames.head).await?;
    let mut previous = t0;
    for i in 0..tokens {
        let due = t0 + mock.ttft + mock.itl * i;
        sleep_until(due).await;
        stats.late_by(Instant::now().saturating_duration_since(due));
        let frame = if i + 1 == tokens {
            &frames.last
        } else {
            frames.token(start, i)
        };
        sock.write_all(frame).await?;
        let written = Instant::now();
        if timed {
            let gap = written.saturating_duration_since(previous);
            if i == 0 {
                stats.wire_ttft.add(gap);
            } else {
                stats.wire_itl.add(gap);
            }
        }
        previous = written;
    }
    Ok(())
}

async fn read_more(sock: &mut TcpStream, buf: &mut Vec<u8>) -> std::io::Result<usize> {
    let mut chunk = [0u8; 4096];
    let n = sock.read(&mut chunk).await?;
    buf.extend_from_slice(&chunk[..n]);
    Ok(n)
}

async fn respond(sock: &mut TcpStream, json: &str) -> std::io::Result<()> {
    let reply = format!(
        "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{json}",
        json.len()
    );
    sock.write_all(reply.as_bytes()).await
}

/// The request body's `max_tokens`, found by a scan (the body is plateau's own JSON).
fn max_tokens(body: &[u8]) -> Option<u32> {
    let text = std::str::from_utf8(body).ok()?;
    let after = &text[text.find("\"max_tokens\"")? + "\"max_tokens\"".len()..];
    let digits: String = after
        .trim_start_matches([' ', ':'])
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse().ok()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "tests")]

    use plateau_core::sse;
    use plateau_core::wire::{OpenAi, Text, Wire};

    use super::*;

    /// The body of a reply of `tokens` tokens drawn from `words` words, starting at place
    /// `start` of the draws, as plateau reads it: HTTP chunk framing removed, SSE events
    /// decoded by plateau's own parser and wire.
    fn decoded(tokens: u32, words: usize, start: usize) -> (u32, Text, Option<u32>, bool) {
        let f = Frames::new(tokens, Words::new(words));
        let mut body = Vec::new();
        let content = (0..tokens - 1).map(|i| f.token(start, i));
        for frame in content.chain([&f.last[..]]) {
            // `{len:x}\r\n{payload}\r\n`, and the last frame ends the body with `0\r\n\r\n`.
            let mut rest = frame;
            while let Some(i) = rest.windows(2).position(|w| w == b"\r\n") {
                let len =
                    usize::from_str_radix(std::str::from_utf8(&rest[..i]).unwrap(), 16).unwrap();
                body.extend_from_slice(&rest[i + 2..i + 2 + len]);
                rest = &rest[i + 2 + len + 2..];
            }
        }
        let (mut content_events, mut text, mut usage, mut done) = (0, Text::default(), None, false);
        sse::Parser::new()
            .feed(&body, &mut |ev| {
                if OpenAi.is_end(ev) {
                    done = true;
                    return;
                }
                let d = OpenAi.decode(ev.data.as_bytes(), &mut text).unwrap();
                content_events += u32::from(d.content_len > 0);
                usage = d.usage.and_then(|u| u.completion_tokens).or(usage);
            })
            .unwrap();
        (content_events, text, usage, done)
    }

    #[test]
    fn a_reply_is_one_content_event_per_token_then_usage_and_done() {
        let (events, text, usage, done) = decoded(100, 1, 0);
        assert_eq!(events, 100);
        assert_eq!(text.answer, " hello".repeat(100));
        assert_eq!(usage, Some(100));
        assert!(done);
    }

    #[test]
    fn drawn_words_count_one_token_per_chunk_and_replies_differ() {
        let bpe = tiktoken_rs::cl100k_base_singleton();
        let (events, first, usage, done) = decoded(100, 20_000, 0);
        assert_eq!((events, usage, done), (100, Some(100), true));
        assert_eq!(bpe.encode_ordinary(&first.answer).len(), 100);
        let (_, second, _, _) = decoded(100, 20_000, 7_919);
        assert_ne!(first.answer, second.answer);
    }

    #[test]
    fn max_tokens_is_read_from_plateau_bodies() {
        assert_eq!(
            max_tokens(br#"{"model":"m","max_tokens":100,"stream":true}"#),
            Some(100)
        );
        assert_eq!(max_tokens(br#"{"max_tokens": 1}"#), Some(1));
        assert_eq!(max_tokens(br#"{"model":"m"}"#), None);
    }

    #[test]
    fn only_replies_read_in_the_window_after_the_first_long_request_are_timed() {
        let mock = Mock {
            ttft: Duration::from_millis(50),
            itl: Duration::from_millis(10),
            tokens: 100,
            frames: Frames::new(100, Words::new(1)),
            stats: Stats::new(),
            started: Instant::now(),
            window_from: Duration::from_secs(3),
            window: Duration::from_secs(5),
        };
        let at = |s: u64| mock.started + Duration::from_secs(s);
        assert!(!mock.in_window(at(4)), "no cell request yet");
        mock.stats
            .first_long_ns
            .store(1_000_000_000 + 1, Ordering::Relaxed);
        assert!(!mock.in_window(at(3)), "Fill and Stabilize");
        assert!(
            mock.in_window(at(4)),
            "Measure opens 3 s after the first request"
        );
        assert!(mock.in_window(at(8)));
        assert!(!mock.in_window(at(9)), "Measure is 5 s long");
    }
}
