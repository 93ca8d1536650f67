//! A raw HTTP/1.1 peer for the client tests: reading one request as a scripted server
//! does, and sending one completion through plateau's client, bounded in time.

use std::time::Duration;

use plateau_core::client::{self, Client};
use plateau_core::clock::Clock;
use plateau_core::exchange::Exchange;
use plateau_core::wire::OpenAi;
use tokio::io::AsyncReadExt;
use tokio::net::{TcpListener, TcpStream};
use tokio_util::sync::CancellationToken;

/// A server on 127.0.0.1 whose k-th connection is served by `serve` with `scripts[k]`
/// (no delay on its writes); returns its port.
pub async fn server<S, F>(scripts: Vec<S>, serve: fn(TcpStream, S) -> F) -> u16
where
    S: Send + 'static,
    F: Future<Output = ()> + Send + 'static,
{
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move {
        for script in scripts {
            let Ok((sock, _)) = listener.accept().await else {
                return;
            };
            sock.set_nodelay(true).unwrap();
            tokio::spawn(serve(sock, script));
        }
    });
    port
}

/// Reads one request (head and its content-length body); false on EOF.
pub async fn read_request(sock: &mut TcpStream) -> bool {
    let mut buf = Vec::new();
    let mut byte = [0u8; 1024];
    loop {
        match sock.read(&mut byte).await {
            Ok(0) | Err(_) => return false,
            Ok(n) => buf.extend_from_slice(&byte[..n]),
        }
        let text = String::from_utf8_lossy(&buf);
        if let Some(end) = text.find("\r\n\r\n") {
            let len: usize = text[..end]
                .lines()
                .find_map(|l| {
                    l.to_ascii_lowercase()
                        .strip_prefix("content-length:")
                        .map(|v| v.trim().parse().unwrap_or(0))
                })
                .unwrap_or(0);
            if buf.len() >= end + 4 + len {
                return true;
            }
        }
    }
}

/// One chat completion (streamed or not) to 127.0.0.1:`port`, within 10 s.
pub async fn send(client: &Client, port: u16, stream: bool) -> Exchange {
    let uri = format!("http://127.0.0.1:{port}/v1/chat/completions")
        .parse()
        .unwrap();
    let req = client::post(&uri, Default::default(), stream, b"{}".to_vec()).unwrap();
    tokio::time::timeout(
        Duration::from_secs(10),
        client.exchange(
            req,
            &OpenAi,
            &Clock::start(),
            Duration::from_secs(5),
            &CancellationToken::new(),
        ),
    )
    .await
    .expect("bounded")
}
