//! The https path is real: a request to an https URL goes through rustls, so a server that
//! does not speak TLS fails the request as `connect` with the TLS error, not a hang or panic.

use std::time::Duration;

use plateau_core::client::{self, Client};
use plateau_core::clock::Clock;
use plateau_core::plan::{BaseUrl, Endpoint, Target};
use plateau_core::sample::Outcome;
use plateau_core::wire::{OpenAi, Wire};
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
    let base = BaseUrl::parse(&format!("https://127.0.0.1:{}/v1", addr.port())).unwrap();
    assert!(base.is_https());
    let endpoint = Endpoint {
        name: "tls".into(),
        engine: plateau_core::config::Engine::Openai,
        target: Target::Url(base.clone()),
        api: plateau_core::config::Api::Chat,
        api_key: None,
        headers: vec![],
        extra_body: Default::default(),
        ignore_eos: false,
        sim: None,
        secrets: vec![],
        labels: Default::default(),
        hardware: None,
    };
    let req = client::post(
        &base.join("chat/completions").unwrap(),
        OpenAi.auth_headers(&endpoint),
        true,
        b"{}".to_vec(),
    )
    .unwrap();
    let ex = Client::new(1)
        .unwrap()
        .exchange(
            req,
            &OpenAi,
            &Clock::start(),
            Duration::from_secs(10),
            &CancellationToken::new(),
        )
        .await;
    assert_eq!(ex.outcome, Outcome::Connect, "{:?}", ex.error);
    let error = ex.error.unwrap().to_lowercase();
    assert!(
        error.contains("tls")
            || error.contains("certificate")
            || error.contains("handshake")
            || error.contains("corrupt"),
        "{error}"
    );
}
