//! A busy client stamps each frame when it arrived, not when it got round to reading it:
//! plain HTTP reads carry the kernel's receive time. The server runs on a thread of its
//! own and writes on a known schedule; the client's only runtime thread is held busy
//! while the first frame waits in the socket.

use std::io::{Read, Write};
use std::net::TcpListener;
use std::time::{Duration, Instant};

use plateau_http::Client;

use crate::raw::send;

/// TTFT the server keeps, and the gap to its second frame.
const TTFT: Duration = Duration::from_millis(60);
const GAP: Duration = Duration::from_millis(200);

fn event(text: &str) -> String {
    format!("data: {{\"choices\":[{{\"index\":0,\"delta\":{{\"content\":\"{text}\"}}}}]}}\n\n")
}

fn frame(text: &str) -> String {
    let event = event(text);
    format!("{:x}\r\n{event}\r\n", event.len())
}

/// Serves one streamed completion on a thread: the head at once, a frame `TTFT` after
/// the request arrived, another `GAP` after that with the end. Returns the port.
fn server() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        let (mut sock, _) = listener.accept().unwrap();
        sock.set_nodelay(true).unwrap();
        sock.set_read_timeout(Some(Duration::from_secs(10)))
            .unwrap();
        let mut request = Vec::new();
        let mut buf = [0u8; 1024];
        while !String::from_utf8_lossy(&request).contains("\r\n\r\n{}") {
            let n = sock.read(&mut buf).unwrap();
            assert!(n > 0, "the client closed before its request was whole");
            request.extend_from_slice(&buf[..n]);
        }
        let t0 = Instant::now();
        sock.write_all(
            b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n",
        )
        .unwrap();
        std::thread::sleep(TTFT.saturating_sub(t0.elapsed()));
        sock.write_all(frame("a").as_bytes()).unwrap();
        std::thread::sleep((TTFT + GAP).saturating_sub(t0.elapsed()));
        let end = frame("b") + &format!("{:x}\r\ndata: [DONE]\n\n\r\n0\r\n\r\n", 14);
        sock.write_all(end.as_bytes()).unwrap();
        std::thread::sleep(Duration::from_millis(500));
    });
    port
}

#[tokio::test]
async fn a_frame_that_waits_for_a_busy_client_keeps_its_arrival_time() {
    let port = server();
    // Hold the runtime's only thread from well before the first frame arrives until
    // well after: it waits in the socket for about 140 ms (from 60 to 200 ms).
    let busy = tokio::spawn(async {
        tokio::time::sleep(Duration::from_millis(20)).await;
        std::thread::sleep(Duration::from_millis(180));
    });
    let got = send(&Client::new(2).unwrap(), port, true).await;
    busy.await.unwrap();
    assert_eq!(got.failure, None);
    assert_eq!(got.text(), event("a") + &event("b") + "data: [DONE]\n\n");
    // Two reads brought body bytes: the first frame, then the second with the end.
    let reads = got.reads();
    assert_eq!(reads.len(), 2, "{reads:?}");
    let ms = |us: u64| us as f64 / 1e3;
    let ttft = ms(reads[0].0 - got.stamps.t_sent_us);
    let gap = ms(reads[1].0 - reads[0].0);
    // Stamped at its read, the first frame would show a TTFT of about 200 ms and a gap of
    // about 60 ms.
    assert!((60.0..90.0).contains(&ttft), "TTFT {ttft} ms, truth 60 ms");
    assert!((175.0..210.0).contains(&gap), "gap {gap} ms, truth 200 ms");
}
