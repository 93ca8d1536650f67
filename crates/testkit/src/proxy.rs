//! Proxies on 127.0.0.1 for tests, each sending every connection on to one upstream port
//! whatever host it is asked for (so a test can name a host no resolver knows, as on a
//! corporate network), and recording what it was asked: an HTTP proxy ([`http_proxy`])
//! that opens CONNECT tunnels and forwards absolute-form requests, or refuses with a
//! status, and a SOCKS5 proxy ([`socks5_proxy`]). Bounded: at most [`MAX_CONNECTIONS`]
//! connections each.

use std::sync::{Arc, Mutex};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// Connections a test proxy accepts at most.
pub const MAX_CONNECTIONS: usize = 512;

/// How an HTTP proxy answers.
#[derive(Clone, Copy, Debug)]
pub enum Answer {
    /// Tunnels CONNECT and forwards other requests.
    Pass,
    /// Answers every request with this status line and extra header lines (each ending
    /// in `\r\n`), then closes.
    Refuse(&'static str, &'static str),
}

/// A running test proxy.
pub struct TestProxy {
    /// Its port on 127.0.0.1.
    pub port: u16,
    seen: Seen,
}

impl TestProxy {
    /// What it was asked, one entry a connection: the head of the first request (HTTP), or
    /// `host:port user` (SOCKS5).
    pub fn seen(&self) -> Vec<String> {
        self.seen.lock().unwrap().clone()
    }
}

/// An HTTP proxy answering as `answer` says, passing connections on to 127.0.0.1:`upstream`.
pub async fn http_proxy(upstream: u16, answer: Answer) -> TestProxy {
    serve(upstream, move |sock, seen, upstream| {
        Box::pin(http_connection(sock, seen, upstream, answer))
    })
    .await
}

/// A SOCKS5 proxy (no authentication, or user and password when offered), passing
/// connections on to 127.0.0.1:`upstream`.
pub async fn socks5_proxy(upstream: u16) -> TestProxy {
    serve(upstream, |sock, seen, upstream| {
        Box::pin(socks_connection(sock, seen, upstream))
    })
    .await
}

/// One connection being served.
type Serving = std::pin::Pin<Box<dyn Future<Output = Option<()>> + Send>>;

/// What a proxy records.
type Seen = Arc<Mutex<Vec<String>>>;

async fn serve(
    upstream: u16,
    handle: impl Fn(TcpStream, Seen, u16) -> Serving + Send + 'static,
) -> TestProxy {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let record = seen.clone();
    tokio::spawn(async move {
        for _ in 0..MAX_CONNECTIONS {
            let Ok((sock, _)) = listener.accept().await else {
                return;
            };
            tokio::spawn(handle(sock, record.clone(), upstream));
        }
    });
    TestProxy { port, seen }
}

/// One HTTP proxy connection.
async fn http_connection(
    mut sock: TcpStream,
    seen: Seen,
    upstream: u16,
    answer: Answer,
) -> Option<()> {
    let mut buf = Vec::new();
    let end = loop {
        let mut chunk = [0u8; 4096];
        let n = sock.read(&mut chunk).await.ok().filter(|n| *n > 0)?;
        buf.extend_from_slice(&chunk[..n]);
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
    };
    let head = String::from_utf8_lossy(&buf[..end]).into_owned();
    seen.lock().unwrap().push(head.clone());
    if let Answer::Refuse(status, headers) = answer {
        let reply =
            format!("HTTP/1.1 {status}\r\n{headers}content-length: 0\r\nconnection: close\r\n\r\n");
        sock.write_all(reply.as_bytes()).await.ok()?;
        return Some(());
    }
    let mut up = TcpStream::connect(("127.0.0.1", upstream)).await.ok()?;
    if head.starts_with("CONNECT ") {
        sock.write_all(b"HTTP/1.1 200 Connection established\r\n\r\n")
            .await
            .ok()?;
        up.write_all(&buf[end..]).await.ok()?;
    } else {
        up.write_all(&buf).await.ok()?;
    }
    tokio::io::copy_bidirectional(&mut sock, &mut up)
        .await
        .ok()?;
    Some(())
}

/// One SOCKS5 connection: greeting, optional user/password, CONNECT, then the pipe.
async fn socks_connection(mut sock: TcpStream, seen: Seen, upstream: u16) -> Option<()> {
    let mut head = [0u8; 2];
    sock.read_exact(&mut head).await.ok()?;
    let mut methods = vec![0u8; usize::from(head[1])];
    sock.read_exact(&mut methods).await.ok()?;
    let mut user = String::from("-");
    if methods.contains(&2) {
        sock.write_all(&[5, 2]).await.ok()?;
        let mut v = [0u8; 2];
        sock.read_exact(&mut v).await.ok()?;
        let mut name = vec![0u8; usize::from(v[1])];
        sock.read_exact(&mut name).await.ok()?;
        let mut len = [0u8; 1];
        sock.read_exact(&mut len).await.ok()?;
        let mut password = vec![0u8; usize::from(len[0])];
        sock.read_exact(&mut password).await.ok()?;
        user = String::from_utf8_lossy(&name).into_owned();
        sock.write_all(&[1, 0]).await.ok()?;
    } else {
        sock.write_all(&[5, 0]).await.ok()?;
    }
    let mut req = [0u8; 4];
    sock.read_exact(&mut req).await.ok()?;
    let host = match req[3] {
        1 => {
            let mut a = [0u8; 4];
            sock.read_exact(&mut a).await.ok()?;
            std::net::Ipv4Addr::from(a).to_string()
        }
        3 => {
            let mut len = [0u8; 1];
            sock.read_exact(&mut len).await.ok()?;
            let mut name = vec![0u8; usize::from(len[0])];
            sock.read_exact(&mut name).await.ok()?;
            String::from_utf8_lossy(&name).into_owned()
        }
        _ => {
            let mut a = [0u8; 16];
            sock.read_exact(&mut a).await.ok()?;
            std::net::Ipv6Addr::from(a).to_string()
        }
    };
    let mut port = [0u8; 2];
    sock.read_exact(&mut port).await.ok()?;
    seen.lock()
        .unwrap()
        .push(format!("{host}:{} {user}", u16::from_be_bytes(port)));
    let mut up = TcpStream::connect(("127.0.0.1", upstream)).await.ok()?;
    sock.write_all(&[5, 0, 0, 1, 127, 0, 0, 1, 0, 0])
        .await
        .ok()?;
    tokio::io::copy_bidirectional(&mut sock, &mut up)
        .await
        .ok()?;
    Some(())
}
