//! Raw HTTP/1.1 test servers on 127.0.0.1 (a port the OS picks): each connection is served
//! by the test's own function with the test's script for it, so a test can write any bytes
//! a real server might (split heads, odd framing, a close before the answer), and
//! [`read_request`] / [`read_head`] read one request as such a server does.

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// A server on 127.0.0.1 whose k-th connection is served by `serve` with `scripts[k]`
/// (TCP_NODELAY, so each write goes out as written); returns its port. Connections past
/// the last script are not accepted.
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
    read_head(sock).await.is_some()
}

/// Answers every request on `sock` with `HTTP/1.1 200 OK` and the body `ok`, until the
/// peer closes.
pub async fn answer_ok<S: AsyncRead + AsyncWrite + Unpin>(sock: &mut S) {
    while read_request_from(sock).await {
        let reply = b"HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: 2\r\n\r\nok";
        if sock.write_all(reply).await.is_err() {
            return;
        }
    }
}

/// [`read_request`] on any stream (TLS included).
pub async fn read_request_from<S: AsyncRead + Unpin>(sock: &mut S) -> bool {
    read_head(sock).await.is_some()
}

/// Reads one request (head and its content-length body) from any stream (TLS included) and
/// returns its head, the request line and header lines as sent; `None` on EOF.
pub async fn read_head<S: AsyncRead + Unpin>(sock: &mut S) -> Option<String> {
    let mut buf = Vec::new();
    let mut byte = [0u8; 1024];
    loop {
        match sock.read(&mut byte).await {
            Ok(0) | Err(_) => return None,
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
                return Some(text[..end].to_owned());
            }
        }
    }
}
