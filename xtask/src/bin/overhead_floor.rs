//! `overhead-floor`: the cheapest client that still reads each stream event when it
//! arrives, the floor `cargo xtask bench overhead --floor` holds plateau against. It keeps
//! `--n` streams in flight against `overhead-mock`, one connection each (TCP_NODELAY,
//! keep-alive), on a single-threaded runtime, and per socket read does only what any
//! benchmark must: stamp the read, count the content events in it, and see whether the
//! reply ended. No HTTP or SSE parsing, no JSON, no recording. Its connections open one at
//! a time over `--fill-ms`; after `--warm-ms` it measures for `--measure-ms` and prints one
//! JSON line: tokens, its own CPU (`/proc/self/stat`) per token and the kernel's share of it, the
//! TCP segments the machine sent per token (`/proc/net/snmp`: the mock's data and the
//! client's ACKs), and TTFT p50 and ITL p99 of the reads it stamped.

use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;

use clap::Parser;
use memchr::memmem::Finder;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::time::{Instant, sleep, sleep_until};

use xtask_support::histogram::Histogram;
use xtask_support::proc_stat::{TICKS_PER_S, cpu_ticks};

#[derive(Parser)]
#[command(about = "the floor client of `cargo xtask bench overhead --floor`")]
struct Args {
    /// The mock's address, host:port.
    #[arg(long)]
    addr: String,
    /// Streams in flight.
    #[arg(long)]
    n: u32,
    /// Tokens asked for per reply.
    #[arg(long, default_value_t = 100)]
    max_tokens: u32,
    /// Time over which the connections open, one after another, ms.
    #[arg(long, default_value_t = 1000)]
    fill_ms: u64,
    /// Start of the measure window after the first connection, ms.
    #[arg(long, default_value_t = 3000)]
    warm_ms: u64,
    /// Length of the measure window, ms.
    #[arg(long, default_value_t = 5000)]
    measure_ms: u64,
    /// Ask the kernel to delay ACKs (`TCP_QUICKACK` off, set again after every read), to
    /// show what the per-event ACK costs. Not for measuring a server: one that writes
    /// without TCP_NODELAY would hold each token until the delayed ACK.
    #[arg(long)]
    delayed_acks: bool,
}

/// Buckets of the TTFT and ITL histograms (up to 2 s; the last holds more).
const BUCKETS: usize = 40_000;

/// What the streams count while the window is open.
struct Tally {
    measuring: bool,
    tokens: u64,
    reads: u64,
    ttft: Histogram,
    itl: Histogram,
}

/// The upper edge of the bucket holding quantile `q`, ms (none when empty).
fn quantile_ms(h: &Histogram, q: f64) -> Option<f64> {
    (h.count() > 0).then(|| h.quantile_us(q, 1.0) as f64 / 1e3)
}

/// TCP segments sent by the whole machine so far (`Tcp: OutSegs`).
fn out_segments() -> Option<u64> {
    let snmp = std::fs::read_to_string("/proc/net/snmp").ok()?;
    let mut tcp = snmp.lines().filter(|l| l.starts_with("Tcp:"));
    let (names, values) = (tcp.next()?, tcp.next()?);
    let at = names.split_whitespace().position(|n| n == "OutSegs")?;
    values.split_whitespace().nth(at)?.parse().ok()
}

fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    if let Err(e) = rlimit::increase_nofile_limit(65_536) {
        eprintln!("overhead-floor: could not raise the open-file limit: {e}");
    }
    let body = format!(
        "{{\"model\":\"mock\",\"messages\":[{{\"role\":\"user\",\"content\":\"hi\"}}],\
         \"max_tokens\":{},\"stream\":true}}",
        args.max_tokens
    );
    let request: Rc<[u8]> = format!(
        "POST /v1/chat/completions HTTP/1.1\r\nhost: mock\r\ncontent-type: application/json\r\n\
         accept: text/event-stream\r\ncontent-length: {}\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
    .into();
    let tally = Rc::new(RefCell::new(Tally {
        measuring: false,
        tokens: 0,
        reads: 0,
        ttft: Histogram::new(BUCKETS),
        itl: Histogram::new(BUCKETS),
    }));
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let local = tokio::task::LocalSet::new();
    let report = local.block_on(&runtime, async {
        let start = Instant::now();
        let step = Duration::from_millis(args.fill_ms) / args.n.max(1);
        for i in 0..args.n {
            let (addr, request, tally) = (args.addr.clone(), request.clone(), tally.clone());
            let delayed_acks = args.delayed_acks;
            tokio::task::spawn_local(async move {
                sleep_until(start + step * i).await;
                if let Err(e) = stream(&addr, &request, &tally, delayed_acks).await {
                    eprintln!("overhead-floor: stream {i}: {e}");
                }
            });
        }
        sleep_until(start + Duration::from_millis(args.warm_ms)).await;
        let (cpu0, segs0) = (cpu_ticks("self").unwrap_or_default(), out_segments());
        tally.borrow_mut().measuring = true;
        sleep(Duration::from_millis(args.measure_ms)).await;
        tally.borrow_mut().measuring = false;
        let (cpu1, segs1) = (cpu_ticks("self").unwrap_or_default(), out_segments());
        let t = tally.borrow();
        let us = |ticks: u64| ticks as f64 * 1e6 / TICKS_PER_S;
        let (user, sys) = (us(cpu1.0 - cpu0.0), us(cpu1.1 - cpu0.1));
        let per_token = |x: f64| (t.tokens > 0).then(|| x / t.tokens as f64);
        serde_json::json!({
            "n": args.n,
            "tokens": t.tokens,
            "reads": t.reads,
            "cpu_us_per_token": per_token(user + sys),
            "kernel_share": (user + sys > 0.0).then(|| sys / (user + sys)),
            "cores": (user + sys) / (args.measure_ms as f64 * 1e3),
            "segments_per_token": segs0.zip(segs1).and_then(|(a, b)| per_token((b - a) as f64)),
            "ttft_p50_ms": quantile_ms(&t.ttft, 0.5),
            "itl_p99_ms": quantile_ms(&t.itl, 0.99),
        })
    });
    println!("{report}");
    Ok(())
}

/// One stream slot: a connection that sends the request again as soon as a reply ends.
async fn stream(
    addr: &str,
    request: &[u8],
    tally: &RefCell<Tally>,
    delayed_acks: bool,
) -> std::io::Result<()> {
    let content = Finder::new(b"\"content\"");
    let mut sock = TcpStream::connect(addr).await?;
    sock.set_nodelay(true)?;
    let mut buf = vec![0u8; 16 * 1024];
    loop {
        sock.write_all(request).await?;
        let sent = Instant::now();
        let mut last: Option<Instant> = None;
        loop {
            if delayed_acks {
                socket2::SockRef::from(&sock).set_tcp_quickack(false)?;
            }
            let n = sock.read(&mut buf).await?;
            let at = Instant::now();
            if n == 0 {
                return Err(std::io::ErrorKind::UnexpectedEof.into());
            }
            let data = &buf[..n];
            let tokens = content.find_iter(data).count() as u64;
            let mut t = tally.borrow_mut();
            if t.measuring {
                t.reads += 1;
                t.tokens += tokens;
                if tokens > 0 {
                    let gaps = if last.is_some() { &t.itl } else { &t.ttft };
                    gaps.add(at - last.unwrap_or(sent));
                }
            }
            if tokens > 0 {
                last = Some(at);
            }
            if data.ends_with(b"0\r\n\r\n") {
                break;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "tests")]

    use tokio::net::TcpListener;

    use super::*;

    fn tally() -> RefCell<Tally> {
        RefCell::new(Tally {
            measuring: true,
            tokens: 0,
            reads: 0,
            ttft: Histogram::new(BUCKETS),
            itl: Histogram::new(BUCKETS),
        })
    }

    /// A server that answers two requests with three content chunks 100 ms apart (far
    /// apart, so that no two share a read even on a busy machine) (the last
    /// with the body's end), then closes.
    async fn serve_twice(listener: TcpListener) {
        let (mut sock, _) = listener.accept().await.unwrap();
        sock.set_nodelay(true).unwrap();
        let event = |t: &str| {
            let e = format!("data: {{\"choices\":[{{\"delta\":{{\"content\":\"{t}\"}}}}]}}\n\n");
            format!("{:x}\r\n{e}\r\n", e.len())
        };
        for _ in 0..2 {
            let mut buf = [0u8; 4096];
            let _ = sock.read(&mut buf).await.unwrap();
            sock.write_all(b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n")
                .await
                .unwrap();
            for (i, t) in ["a", "b", "c"].iter().enumerate() {
                sleep(Duration::from_millis(100)).await;
                let mut frame = event(t);
                if i == 2 {
                    frame.push_str("0\r\n\r\n");
                }
                sock.write_all(frame.as_bytes()).await.unwrap();
            }
        }
    }

    #[tokio::test]
    async fn each_reply_counts_its_tokens_one_ttft_and_the_gaps_then_the_next_goes_out() {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap().to_string();
        let server = tokio::spawn(serve_twice(listener));
        let t = tally();
        let ended = tokio::time::timeout(
            Duration::from_secs(10),
            stream(&addr, b"POST / HTTP/1.1\r\n\r\n", &t, false),
        )
        .await
        .unwrap();
        server.await.unwrap();
        // The server closed after the second reply, while the third request waited.
        assert_eq!(ended.unwrap_err().kind(), std::io::ErrorKind::UnexpectedEof);
        let t = t.into_inner();
        assert_eq!(t.tokens, 6);
        assert_eq!(t.ttft.count(), 2);
        assert_eq!(t.itl.count(), 4);
        // Every gap is at least the server's 100 ms.
        assert!(
            t.itl.quantile_us(0.0, 0.0) >= 99_950,
            "{}",
            t.itl.quantile_us(0.0, 0.0)
        );
        assert!(quantile_ms(&t.itl, 0.99).unwrap() >= 100.0);
    }

    #[test]
    fn quantiles_are_bucket_upper_edges_in_ms_and_none_when_empty() {
        let h = Histogram::new(BUCKETS);
        assert_eq!(quantile_ms(&h, 0.5), None);
        h.add(Duration::from_micros(120));
        h.add(Duration::from_secs(9));
        assert_eq!(quantile_ms(&h, 0.5), Some(0.15));
        assert_eq!(quantile_ms(&h, 0.99), Some(BUCKETS as f64 * 0.05));
    }
}
