//! The https path is real: a request to an https URL goes through rustls, so a server that
//! does not speak TLS fails the request as `connect` with the TLS error, not a hang or panic.

use std::time::Duration;

use plateau_http::{Bounds, Client, Clock, FailureKind, Stamps};
use tokio::io::AsyncWriteExt;
use tokio_util::sync::CancellationToken;

#[tokio::test]
async fn https_to_a_plain_tcp_server_fails_the_handshake() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        while let Ok((mut sock, _)) = listener.accept().await {
            let _ = sock.write_all(b"HTTP/1.1 200 OK\r\n\r\nnot tls").await;
        }
    });
    let uri = format!("https://127.0.0.1:{}/v1/chat/completions", addr.port())
        .parse()
        .unwrap();
    let req = plateau_http::post(&uri, Default::default(), true, b"{}".to_vec()).unwrap();
    let cancel = CancellationToken::new();
    let bounds = Bounds::new(Duration::from_secs(10), &cancel);
    let client = Client::new(1).unwrap();
    let sent = tokio::time::timeout(
        Duration::from_secs(15),
        client.send(req, &Clock::start(), &bounds, &mut Stamps::default()),
    )
    .await
    .expect("bounded");
    let Err(failure) = sent else {
        panic!("a plain TCP server answered an https request");
    };
    assert_eq!(failure.kind, FailureKind::Connect, "{failure}");
    let error = failure.message.unwrap().to_lowercase();
    assert!(
        error.contains("tls")
            || error.contains("certificate")
            || error.contains("handshake")
            || error.contains("corrupt"),
        "{error}"
    );
}
