//! Fixed-profile calibration over real sockets, and cancelled requests leaving the batch.

use std::time::Duration;

use plateau_sim::SimConfig;
use serde_json::json;
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::TcpStream;

use crate::client::*;

/// `streams` concurrent slots, started evenly over `fill` like plateau's Fill phase, each
/// sending `rounds` streaming requests back to back; returns the TTFT and TPOT of every
/// request in ms.
async fn measure(
    streams: usize,
    fill: Duration,
    rounds: usize,
    max_tokens: u32,
) -> (Vec<f64>, Vec<f64>) {
    let server = start(fixed(100.0, 20.0)).await;
    let addr = server.addr();
    let http = client();
    let body = json!({"model": "m", "messages": [{"role": "user", "content": "hi"}],
        "max_tokens": max_tokens, "stream": true, "ignore_eos": true});
    let mut slots = Vec::new();
    for slot in 0..streams {
        let (http, body) = (http.clone(), body.clone());
        let offset = fill * slot as u32 / streams as u32;
        slots.push(tokio::spawn(async move {
            tokio::time::sleep(offset).await;
            let mut out = Vec::new();
            for _ in 0..rounds {
                let reply = post(&http, addr, "/v1/chat/completions", body.clone()).await;
                let times = reply.content_times();
                assert_eq!(times.len(), max_tokens as usize);
                let ttft = ms(times[0] - reply.sent);
                let tpot = ms(times[times.len() - 1] - times[0]) / f64::from(max_tokens - 1);
                out.push((ttft, tpot));
            }
            out
        }));
    }
    let mut samples = Vec::new();
    for slot in slots {
        samples.extend(slot.await.unwrap());
    }
    server.shutdown().await;
    samples.into_iter().unzip()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fixed_profile_timing_at_16_streams() {
    let (ttft, tpot) = measure(16, Duration::ZERO, 2, 20).await;
    let (ttft_p50, tpot_p50) = (median(ttft.clone()), median(tpot.clone()));
    println!("16 streams: TTFT p50 {ttft_p50:.2} ms, TPOT p50 {tpot_p50:.3} ms");
    // Loopback, connection setup in the first round, timer-tick jitter: a little above 100.
    // A debug build serving and timing 16 streams on 2 cores measured 104.1-108.0 in 3 runs
    // of 8 (the code before and after the 2026-11-27 module split alike), so up to 110.
    assert!((99.5..110.0).contains(&ttft_p50), "TTFT p50 {ttft_p50}");
    assert!((19.8..20.2).contains(&tpot_p50), "TPOT p50 {tpot_p50}");
    assert!(ttft.iter().all(|t| (99.0..150.0).contains(t)), "{ttft:?}");
    assert!(tpot.iter().all(|t| (18.0..23.0).contains(t)), "{tpot:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fixed_profile_timing_at_256_streams() {
    let (ttft, tpot) = measure(256, Duration::from_millis(500), 2, 20).await;
    let (ttft_p50, tpot_p50) = (median(ttft), median(tpot));
    println!("256 streams: TTFT p50 {ttft_p50:.2} ms, TPOT p50 {tpot_p50:.3} ms");
    assert!((99.5..110.0).contains(&ttft_p50), "TTFT p50 {ttft_p50}");
    assert!((19.5..20.5).contains(&tpot_p50), "TPOT p50 {tpot_p50}");
}

/// Sends a streaming request on a raw socket, reads until content arrives, then hangs up.
async fn stream_then_hang_up(addr: std::net::SocketAddr) {
    let body = json!({"messages": [{"role": "user", "content": "hi"}], "max_tokens": 100000,
        "stream": true, "ignore_eos": true})
    .to_string();
    let mut socket = TcpStream::connect(addr).await.unwrap();
    let head = format!(
        "POST /v1/chat/completions HTTP/1.1\r\nhost: sim\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n",
        body.len()
    );
    socket.write_all((head + &body).as_bytes()).await.unwrap();
    let mut seen = Vec::new();
    let mut buf = [0u8; 4096];
    while !String::from_utf8_lossy(&seen).contains(r#""content":" "#) {
        let n = socket.read(&mut buf).await.unwrap();
        assert!(n > 0, "closed early: {}", String::from_utf8_lossy(&seen));
        seen.extend_from_slice(&buf[..n]);
    }
}

#[tokio::test]
async fn cancelled_requests_leave_the_batch() {
    for config in [SimConfig::default(), fixed(10.0, 5.0)] {
        let server = start(config).await;
        let http = client();
        let hold = {
            let addr = server.addr();
            tokio::spawn(async move {
                stream_then_hang_up(addr).await;
                tokio::time::sleep(Duration::from_millis(200)).await;
            })
        };
        wait_metric(&http, server.addr(), "vllm:num_requests_running", 1.0).await;
        hold.await.unwrap();
        wait_metric(&http, server.addr(), "vllm:num_requests_running", 0.0).await;
        // The slot is free: a new request completes.
        let body = json!({"prompt": "x", "max_tokens": 2, "ignore_eos": true});
        assert_eq!(
            post(&http, server.addr(), "/v1/completions", body)
                .await
                .status,
            200
        );
        server.shutdown().await;
    }
}

#[tokio::test]
async fn shutdown_ends_open_streams() {
    let server = start(fixed(10.0, 5.0)).await;
    let addr = server.addr();
    let open = tokio::spawn(async move {
        let body = json!({"prompt": "x", "max_tokens": 100000, "stream": true, "ignore_eos": true});
        post(&client(), addr, "/v1/completions", body).await
    });
    tokio::time::sleep(Duration::from_millis(100)).await;
    tokio::time::timeout(Duration::from_secs(5), server.shutdown())
        .await
        .unwrap();
    let reply = open.await.unwrap();
    assert!(reply.error.is_some());
    assert!(
        TcpStream::connect(addr).await.is_err(),
        "no longer listening"
    );
}
