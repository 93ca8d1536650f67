//! HTTP/1.1 as servers write it, read by plateau's own client: responses split at every
//! byte, interim `100 Continue`, chunk extensions and trailers, `Connection: close`, an
//! HTTP/1.0 body read to the close, and a body cut short. A raw server on 127.0.0.1
//! writes each connection's bytes as scripted.

use std::time::Duration;

use plateau_http::{Client, FailureKind};
use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;

use crate::raw::{self, read_request, send};

/// What one connection does: a raw response per request read, then how it ends.
#[derive(Clone)]
struct Script {
    responses: Vec<Vec<u8>>,
    /// Write one byte at a time, with a pause after each.
    bytewise: bool,
    /// After the last response, keep the connection open this long before closing.
    hold: Duration,
}

impl Script {
    fn answers(responses: Vec<Vec<u8>>) -> Script {
        Script {
            responses,
            bytewise: false,
            hold: Duration::from_secs(2),
        }
    }
}

/// A server whose k-th connection follows `scripts[k]`; returns its port.
async fn server(scripts: Vec<Script>) -> u16 {
    raw::server(scripts, serve).await
}

async fn serve(mut sock: TcpStream, script: Script) {
    for response in &script.responses {
        if !read_request(&mut sock).await {
            return;
        }
        if script.bytewise {
            for b in response {
                if sock.write_all(&[*b]).await.is_err() {
                    return;
                }
                tokio::time::sleep(Duration::from_micros(300)).await;
            }
        } else if sock.write_all(response).await.is_err() {
            return;
        }
    }
    tokio::time::sleep(script.hold).await;
}

fn event(text: &str) -> String {
    format!(
        "data: {{\"choices\":[{{\"index\":0,\"delta\":{{\"content\":\"{text}\"}},\"finish_reason\":null}}]}}\n\n"
    )
}

/// `body` as chunks of the given sizes (the rest in one last chunk), with an extension
/// on the first and a trailer after the last.
fn chunked(body: &str, sizes: &[usize]) -> String {
    let mut out = String::new();
    let mut rest = body;
    for (i, &size) in sizes.iter().chain([&usize::MAX]).enumerate() {
        if rest.is_empty() {
            break;
        }
        let (piece, tail) = rest.split_at(size.min(rest.len()));
        let ext = if i == 0 { ";note=\"x\"" } else { "" };
        out.push_str(&format!("{:x}{ext}\r\n{piece}\r\n", piece.len()));
        rest = tail;
    }
    out.push_str("0\r\nX-Checksum: none\r\n\r\n");
    out
}

fn sse_head() -> String {
    "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n"
        .to_owned()
}

#[tokio::test]
async fn a_stream_written_a_byte_at_a_time_is_read_exactly() {
    let body = format!("{}{}{}data: [DONE]\n\n", event("a"), event("b"), event("c"));
    let response = sse_head() + &chunked(&body, &[7, 100]);
    let port = server(vec![Script {
        bytewise: true,
        ..Script::answers(vec![response.into_bytes()])
    }])
    .await;
    let got = send(&Client::new(2).unwrap(), port, true).await;
    assert_eq!(got.failure, None);
    assert_eq!(got.text(), body);
    // Each byte came in a read of its own, and was handed on with it, in order.
    let reads = got.reads();
    assert_eq!(reads.len(), got.runs.len());
    assert!(reads.len() > 3 * event("a").len(), "{} reads", reads.len());
    assert!(
        reads
            .windows(2)
            .all(|w| w[0].1 < w[1].1 && w[0].0 <= w[1].0)
    );
}

#[tokio::test]
async fn interim_responses_chunk_extensions_and_trailers_are_read_through_and_the_connection_reused()
 {
    let body = format!("{}{}data: [DONE]\n\n", event("x"), event("y"));
    let response =
        "HTTP/1.1 100 Continue\r\n\r\n".to_owned() + &sse_head() + &chunked(&body, &[3, 50]);
    let port = server(vec![Script::answers(vec![
        response.clone().into_bytes(),
        response.into_bytes(),
    ])])
    .await;
    let client = Client::new(2).unwrap();
    let first = send(&client, port, true).await;
    assert_eq!(first.failure, None);
    assert_eq!((first.status, first.text()), (Some(200), body.clone()));
    assert!(first.stamps.connect_us.is_some());
    let second = send(&client, port, true).await;
    assert_eq!(second.failure, None);
    assert_eq!((second.status, second.text()), (Some(200), body));
    assert_eq!(
        (second.stamps.connect_us, second.stamps.resends),
        (None, 0),
        "the same connection served the second request"
    );
}

const JSON: &str = r#"{"choices":[{"message":{"content":"whole"},"finish_reason":"stop"}]}"#;

#[tokio::test]
async fn connection_close_is_honoured_and_the_next_request_opens_a_new_connection() {
    let closing = format!(
        "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nconnection: close\r\ncontent-length: {}\r\n\r\n{JSON}",
        JSON.len()
    );
    // The first connection says close but stays open: reusing it would hang, not fail.
    let port = server(vec![
        Script::answers(vec![closing.clone().into_bytes()]),
        Script::answers(vec![closing.into_bytes()]),
    ])
    .await;
    let client = Client::new(2).unwrap();
    for _ in 0..2 {
        let got = send(&client, port, false).await;
        assert_eq!(got.failure, None);
        assert_eq!(got.text(), JSON);
        assert!(
            got.stamps.connect_us.is_some(),
            "a new connection each time"
        );
        assert_eq!(got.stamps.resends, 0);
    }
}

#[tokio::test]
async fn an_http_1_0_body_is_read_to_the_close() {
    let response = format!("HTTP/1.0 200 OK\r\ncontent-type: application/json\r\n\r\n{JSON}");
    let port = server(vec![Script {
        hold: Duration::ZERO,
        ..Script::answers(vec![response.into_bytes()])
    }])
    .await;
    let got = send(&Client::new(2).unwrap(), port, false).await;
    assert_eq!(got.failure, None);
    assert_eq!(got.text(), JSON);
}

#[tokio::test]
async fn a_body_cut_short_of_its_length_or_last_chunk_is_a_stream_error() {
    let short = format!(
        "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{JSON}",
        JSON.len() + 10
    );
    let unfinished = sse_head() + &format!("{:x}\r\n{}\r\n", event("a").len(), event("a"));
    for (response, stream) in [(short, false), (unfinished, true)] {
        let port = server(vec![Script {
            hold: Duration::ZERO,
            ..Script::answers(vec![response.into_bytes()])
        }])
        .await;
        let got = send(&Client::new(2).unwrap(), port, stream).await;
        let failure = got.failure.unwrap();
        assert_eq!(failure.kind, FailureKind::Stream, "{failure}");
        let error = failure.message.unwrap_or_default();
        assert!(
            error.contains("closed before the response was complete"),
            "{error}"
        );
    }
}
