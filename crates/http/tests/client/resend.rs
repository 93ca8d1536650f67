//! When plateau resends, exactly: only a request written to a **reused** connection that
//! ended before one byte of response came back, once, on a new connection. A small raw
//! HTTP/1.1 server on 127.0.0.1 scripts what each connection does.

use std::time::Duration;

use plateau_http::{Client, FailureKind};
use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;

use crate::raw::{self, read_request, send};

const BODY: &str = r#"{"choices":[{"message":{"content":"hello there"},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":2}}"#;

/// What a connection does with each request it reads, in order; after the script, it
/// closes.
#[derive(Clone, Copy, Debug)]
enum Step {
    /// A whole keep-alive response.
    Answer,
    /// Read the request, then close without a byte.
    CloseSilently,
    /// Read the request, send half a status line, close.
    CloseAfterBytes,
}

/// A server whose k-th connection follows `scripts[k]`; returns its port.
async fn server(scripts: Vec<Vec<Step>>) -> u16 {
    raw::server(scripts, serve).await
}

async fn serve(mut sock: TcpStream, script: Vec<Step>) {
    for step in script {
        if !read_request(&mut sock).await {
            return;
        }
        match step {
            Step::Answer => {
                let head = format!(
                    "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n",
                    BODY.len()
                );
                let _ = sock.write_all((head + BODY).as_bytes()).await;
            }
            Step::CloseSilently => return,
            Step::CloseAfterBytes => {
                let _ = sock.write_all(b"HTTP/1.").await;
                return;
            }
        }
    }
}

#[tokio::test]
async fn a_reused_connection_closed_before_any_byte_is_resent_once() {
    // Connection 1 answers, then reads the next request and closes without a byte;
    // connection 2 answers.
    let port = server(vec![
        vec![Step::Answer, Step::CloseSilently],
        vec![Step::Answer],
    ])
    .await;
    let client = Client::new(4).unwrap();
    let first = send(&client, port, false).await;
    assert_eq!(first.failure, None);
    assert!(
        first.stamps.connect_us.is_some(),
        "the first request opened a connection"
    );
    let second = send(&client, port, false).await;
    assert_eq!(second.failure, None);
    assert_eq!(second.stamps.resends, 1);
    assert!(
        second.stamps.connect_us.is_some(),
        "resent on a new connection"
    );
    assert_eq!(second.text(), BODY);
}

#[tokio::test]
async fn a_response_cut_after_some_bytes_is_never_resent() {
    let port = server(vec![
        vec![Step::Answer, Step::CloseAfterBytes],
        vec![Step::Answer],
    ])
    .await;
    let client = Client::new(4).unwrap();
    assert_eq!(send(&client, port, false).await.failure, None);
    let cut = send(&client, port, false).await;
    assert_eq!(
        (cut.failure.map(|f| f.kind), cut.stamps.resends),
        (Some(FailureKind::Stream), 0)
    );
}

#[tokio::test]
async fn a_fresh_connection_closed_without_an_answer_is_never_resent() {
    // The server reads the request on a new connection and closes: it may have acted on it.
    let port = server(vec![vec![Step::CloseSilently], vec![Step::Answer]]).await;
    let client = Client::new(4).unwrap();
    let got = send(&client, port, false).await;
    assert_eq!(
        (got.failure.map(|f| f.kind), got.stamps.resends),
        (Some(FailureKind::Stream), 0)
    );
}

#[tokio::test]
async fn a_connection_closed_while_idle_is_replaced_before_writing() {
    // Connection 1 answers once and closes (an idle timeout, or close after response):
    // the next request finds it closed and opens connection 2 without resending.
    let port = server(vec![vec![Step::Answer], vec![Step::Answer]]).await;
    let client = Client::new(4).unwrap();
    assert_eq!(send(&client, port, false).await.failure, None);
    // Give the FIN time to arrive, as an idle pause does.
    tokio::time::sleep(Duration::from_millis(200)).await;
    let got = send(&client, port, false).await;
    assert_eq!((got.failure, got.stamps.resends), (None, 0));
    assert!(got.stamps.connect_us.is_some());
}

/// A GET or a `/tokenize` POST (server description, token check) follows the same rule:
/// on a reused connection the server had closed without a byte, it is sent once more on
/// a new connection; a fresh connection closed without an answer is an error.
#[tokio::test]
async fn a_get_or_post_on_a_reused_connection_closed_before_any_byte_is_resent_once() {
    let port = server(vec![
        vec![Step::Answer, Step::CloseSilently],
        vec![Step::Answer, Step::CloseSilently],
        vec![Step::CloseSilently],
    ])
    .await;
    let client = Client::new(4).unwrap();
    let uri = |path: &str| format!("http://127.0.0.1:{port}{path}").parse().unwrap();
    let timeout = Duration::from_secs(5);
    let headers = Default::default();
    let (status, body) = client.get(uri("/props"), &headers, timeout).await.unwrap();
    assert_eq!((status.as_u16(), &body[..]), (200, BODY.as_bytes()));
    // Connection 1 reads this and closes: sent again on connection 2.
    let (status, body) = client
        .post_json(uri("/tokenize"), &headers, &serde_json::json!({}), timeout)
        .await
        .unwrap();
    assert_eq!((status.as_u16(), &body[..]), (200, BODY.as_bytes()));
    // Connection 2 reads this and closes; connection 3 (fresh) closes too: no third try.
    let err = client
        .get(uri("/props"), &headers, timeout)
        .await
        .unwrap_err();
    assert!(err.to_string().contains("closed"), "{err}");
}
