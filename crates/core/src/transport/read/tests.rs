//! Answers plateau did not ask for, said in words: a redirect with where it points, and a
//! compressed body although no `Accept-Encoding` was sent.

use std::time::Duration;

use plateau_testkit::raw::{read_request, server};
use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;

use super::*;

/// The exchange of one POST to a server that answers with `reply`.
async fn answered(reply: &'static [u8]) -> Exchange {
    let port = server(vec![reply], |mut sock: TcpStream, reply| async move {
        if read_request(&mut sock).await {
            let _ = sock.write_all(reply).await;
        }
    })
    .await;
    let uri = format!("http://127.0.0.1:{port}/v1/chat/completions")
        .parse()
        .unwrap();
    let req = plateau_http::post(&uri, Default::default(), true, b"{}".to_vec()).unwrap();
    let client = Client::new(1).unwrap();
    exchange(
        &client,
        req,
        &crate::wire::openai::OpenAi,
        &Clock::start(),
        Duration::from_secs(5),
        &CancellationToken::new(),
    )
    .await
}

#[tokio::test]
async fn a_redirect_names_where_it_points_and_what_to_do() {
    let ex = answered(
        b"HTTP/1.1 301 Moved Permanently\r\nlocation: https://llm.example.com/api/v1/chat/completions\r\ncontent-length: 0\r\n\r\n",
    )
    .await;
    assert_eq!(ex.outcome, Outcome::HttpStatus { status: 301 });
    assert_eq!(
        ex.error.as_deref(),
        Some(
            "HTTP 301 Moved Permanently to https://llm.example.com/api/v1/chat/completions: \
             plateau does not follow redirects; point the endpoint at \
             https://llm.example.com/api/v1"
        )
    );
}

#[tokio::test]
async fn a_compressed_stream_is_named_not_called_cut_short() {
    let ex = answered(
        b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncontent-encoding: gzip\r\ncontent-length: 4\r\n\r\n\x1f\x8b\x08\x00",
    )
    .await;
    assert_eq!(ex.outcome, Outcome::Decode);
    assert_eq!(
        ex.error.as_deref(),
        Some(
            "the server sent Content-Encoding: gzip although plateau did not ask for it (it \
             sends no Accept-Encoding): turn compression off on the server, or on the proxy in \
             front of it, for this API"
        )
    );
}

#[test]
fn a_redirect_elsewhere_suggests_its_base() {
    assert_eq!(
        redirect_base("https://h/v2/completions?x=1", "/v1/completions"),
        "https://h/v2"
    );
    assert_eq!(
        redirect_base("/login", "/v1/chat/completions"),
        "the URL /login names (without the API's path)"
    );
}
