//! Calibration check: N closed-loop streams against a profile, TTFT/TPOT/throughput printed.
//!
//! `cargo run -p plateau-sim --example calibrate --profile test -- [STREAMS] [SECONDS] [PROFILE]`
//! (defaults 256 streams, 10 s, `fixed`). Slots start evenly over the first second; requests
//! started in the first two seconds are not measured. With `fixed`, expect TTFT near 100 ms
//! and TPOT near 20 ms at any concurrency; with `realistic`, throughput that plateaus at 32.

use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt as _, Full};
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;
use plateau_sim::{Server, SimConfig, SimError};
use tokio::time::Instant;

#[tokio::main]
async fn main() -> Result<(), SimError> {
    let mut args = std::env::args().skip(1);
    let streams: u32 = args.next().and_then(|a| a.parse().ok()).unwrap_or(256);
    let seconds: u64 = args.next().and_then(|a| a.parse().ok()).unwrap_or(10);
    let profile = args.next().unwrap_or_else(|| "fixed".to_owned());
    let server = Server::start(
        ([127, 0, 0, 1], 0).into(),
        SimConfig::from_profile(&profile)?,
    )
    .await?;
    let url = format!("http://{}/v1/chat/completions", server.addr());
    let client = Client::builder(TokioExecutor::new())
        .pool_max_idle_per_host(usize::MAX)
        .build_http::<Full<Bytes>>();
    let body = Bytes::from(
        r#"{"model":"m","messages":[{"role":"user","content":"hi"}],"max_tokens":64,"stream":true,"ignore_eos":true}"#,
    );
    let start = Instant::now();
    let (measure_from, end) = (
        start + Duration::from_secs(2),
        start + Duration::from_secs(seconds),
    );
    let mut slots = Vec::new();
    for slot in 0..streams {
        let (client, url, body) = (client.clone(), url.clone(), body.clone());
        slots.push(tokio::spawn(async move {
            tokio::time::sleep(Duration::from_secs(1) * slot / streams).await;
            let (mut ttft, mut tpot, mut errors, mut tokens) = (Vec::new(), Vec::new(), 0u32, 0u64);
            while Instant::now() < end {
                let req = http::Request::post(url.as_str())
                    .header("content-type", "application/json")
                    .body(Full::new(body.clone()))
                    .expect("static request is valid");
                let sent = Instant::now();
                let Ok(res) = client.request(req).await else {
                    errors += 1;
                    continue;
                };
                let mut body = res.into_body();
                let mut times = Vec::new();
                while let Some(frame) = body.frame().await {
                    let now = Instant::now();
                    match frame.map(|f| f.into_data()) {
                        // Generated words start with a space; the role chunk's content is "".
                        Ok(Ok(data)) if data.windows(12).any(|w| w == b"\"content\":\" ") => {
                            times.push(now);
                        }
                        Ok(_) => {}
                        Err(_) => {
                            errors += 1;
                            break;
                        }
                    }
                }
                tokens += times
                    .iter()
                    .filter(|t| **t >= measure_from && **t < end)
                    .count() as u64;
                if sent >= measure_from && times.len() >= 2 {
                    ttft.push((times[0] - sent).as_secs_f64() * 1e3);
                    let span = (times[times.len() - 1] - times[0]).as_secs_f64() * 1e3;
                    tpot.push(span / (times.len() - 1) as f64);
                }
            }
            (ttft, tpot, errors, tokens)
        }));
    }
    let (mut ttft, mut tpot, mut errors, mut tokens) = (Vec::new(), Vec::new(), 0, 0);
    for slot in slots {
        let (a, b, e, t) = slot.await.expect("slot task panicked");
        ttft.extend(a);
        tpot.extend(b);
        errors += e;
        tokens += t;
    }
    let throughput = tokens as f64 / (end - measure_from).as_secs_f64();
    server.shutdown().await;
    let pct = |v: &mut Vec<f64>, p: f64| {
        v.sort_by(f64::total_cmp);
        v.get(((v.len() as f64 - 1.0) * p).round() as usize)
            .copied()
            .unwrap_or(f64::NAN)
    };
    println!(
        "{profile} {streams} streams, {} requests, {errors} errors: TTFT p50 {:.2} p99 {:.2} ms, \
         TPOT p50 {:.3} p99 {:.3} ms, {throughput:.0} tokens/s",
        ttft.len(),
        pct(&mut ttft, 0.5),
        pct(&mut ttft, 0.99),
        pct(&mut tpot, 0.5),
        pct(&mut tpot, 0.99),
    );
    Ok(())
}
