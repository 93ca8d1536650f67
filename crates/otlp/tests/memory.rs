//! The receiver's memory under 20 exporters posting 16 MiB bodies at once: bodies are read
//! by at most 4 readers, so the process's peak resident size grows by well under 20 × 16 MiB.
//! Its own test binary, so no other test's allocations move the peak.

#![allow(clippy::unwrap_used, missing_docs)]

use std::io::{Read as _, Write as _};
use std::net::TcpStream;
use std::sync::Arc;
use std::time::Duration;

use plateau_otlp::{Limits, Receiver, Span};

/// The process's peak resident set, KiB (`VmHWM`), where /proc is there.
fn peak_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

#[test]
fn twenty_parallel_16_mib_bodies_grow_the_peak_by_less_than_128_mib() {
    let Some(before) = peak_kib() else {
        eprintln!("no /proc/self/status here: skipped");
        return;
    };
    let limit = 16 << 20;
    let keep = Arc::new(|s: Span| Some(s.name));
    let r = Receiver::start(
        "127.0.0.1:0".parse().unwrap(),
        Limits {
            max_body_bytes: limit,
            body_timeout: Duration::from_secs(120),
            ..Limits::default()
        },
        keep,
    )
    .unwrap();
    let addr = r.addr();
    let chunk = Arc::new(vec![0u8; 1 << 20]);
    let posts: Vec<_> = (0..20)
        .map(|_| {
            let chunk = Arc::clone(&chunk);
            std::thread::spawn(move || {
                let mut s = TcpStream::connect(addr).unwrap();
                s.set_read_timeout(Some(Duration::from_secs(120))).unwrap();
                let head = format!(
                    "POST /v1/traces HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\
                     content-type: application/x-protobuf\r\ncontent-length: {limit}\r\n\r\n"
                );
                s.write_all(head.as_bytes()).unwrap();
                for _ in 0..16 {
                    s.write_all(&chunk).unwrap();
                }
                let mut out = Vec::new();
                let _ = s.read_to_end(&mut out);
                String::from_utf8_lossy(&out)
                    .get(9..12)
                    .unwrap_or("")
                    .to_owned()
            })
        })
        .collect();
    let statuses: Vec<String> = posts.into_iter().map(|t| t.join().unwrap()).collect();
    // Zeros are not an export request: every body was read whole and refused as such.
    assert!(statuses.iter().all(|s| s == "400"), "{statuses:?}");
    assert_eq!(r.counts().malformed, 20);
    let grown_mib = (peak_kib().unwrap() - before) / 1024;
    eprintln!("peak grew by {grown_mib} MiB");
    assert!(grown_mib < 128, "peak grew by {grown_mib} MiB");
}
