//! The TCP stream under a connection to an origin: straight to it, through an HTTP proxy
//! (a CONNECT tunnel, or the proxy itself for plain http in absolute form), or through
//! SOCKS5 (hyper-util's handshake). A proxy that refuses is an error in words: what it
//! answered and what to do, never its credentials.

use std::io;

use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::client::legacy::connect::proxy::SocksV5;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tower_service::Service;

use super::{Kind, Proxy};
use crate::http1;

/// The stream to `host:port` (an `https` origin or not), through `proxy` when there is one.
pub async fn connect(
    proxy: Option<&Proxy>,
    https: bool,
    host: &str,
    port: u16,
) -> io::Result<TcpStream> {
    let Some(p) = proxy else {
        return TcpStream::connect((host, port)).await;
    };
    match p.kind {
        Kind::Http => {
            let tcp = TcpStream::connect((p.host.as_str(), p.port))
                .await
                .map_err(|e| reached(p, e))?;
            if p.tunnels(https) {
                tunnel(tcp, p, host, port).await
            } else {
                Ok(tcp)
            }
        }
        Kind::Socks5 { remote_dns } => socks5(p, remote_dns, host, port).await,
    }
}

/// `e`, saying it came from reaching the proxy `p`.
fn reached(p: &Proxy, e: io::Error) -> io::Error {
    io::Error::new(e.kind(), format!("proxy {}: {e}", p.shown()))
}

/// Opens a CONNECT tunnel to `host:port` through the HTTP proxy on `tcp`.
async fn tunnel(mut tcp: TcpStream, p: &Proxy, host: &str, port: u16) -> io::Result<TcpStream> {
    let authority = if host.contains(':') {
        format!("[{host}]:{port}")
    } else {
        format!("{host}:{port}")
    };
    let mut request = format!("CONNECT {authority} HTTP/1.1\r\nHost: {authority}\r\n").into_bytes();
    if let Some(auth) = p.authorization() {
        request.extend_from_slice(b"Proxy-Authorization: ");
        request.extend_from_slice(auth.as_bytes());
        request.extend_from_slice(b"\r\n");
    }
    request.extend_from_slice(b"\r\n");
    tcp.write_all(&request).await.map_err(|e| reached(p, e))?;
    let mut buf = Vec::new();
    let head = loop {
        let mut chunk = [0u8; 1024];
        let n = tcp.read(&mut chunk).await.map_err(|e| reached(p, e))?;
        if n == 0 {
            return Err(refused(
                p,
                &authority,
                "closed the connection without answering CONNECT",
            ));
        }
        buf.extend_from_slice(&chunk[..n]);
        match http1::parse_head(&buf) {
            Ok(Some((head, used))) => break (head, used),
            Ok(None) => {}
            Err(e) => {
                return Err(refused(
                    p,
                    &authority,
                    &format!("answered CONNECT with {e}"),
                ));
            }
        }
    };
    let (head, used) = head;
    if head.status.is_success() && used == buf.len() {
        return Ok(tcp);
    }
    let status = format!(
        "HTTP {} {}",
        head.status.as_u16(),
        head.status.canonical_reason().unwrap_or("")
    );
    let why = match head.status.as_u16() {
        407 => {
            let asks = head
                .headers
                .get(http::header::PROXY_AUTHENTICATE)
                .and_then(|v| v.to_str().ok())
                .map(|v| format!(", Proxy-Authenticate: {v}"))
                .unwrap_or_default();
            match p.auth {
                Some(_) => format!("refused the credentials in its URL ({status}{asks})"),
                None => format!(
                    "asks for credentials ({status}{asks}): put them in the proxy URL, \
                     http://user:password@host:port"
                ),
            }
        }
        s if (200..300).contains(&s) => format!("sent bytes after its {status} to CONNECT"),
        _ => format!("answered CONNECT with {status}"),
    };
    Err(refused(p, &authority, &why))
}

/// The error of a proxy that would not open a tunnel to `authority`.
fn refused(p: &Proxy, authority: &str, why: &str) -> io::Error {
    io::Error::new(
        io::ErrorKind::ConnectionRefused,
        format!(
            "proxy {} would not tunnel to {authority}: it {why}",
            p.shown()
        ),
    )
}

/// The stream to `host:port` through the SOCKS5 proxy `p`.
async fn socks5(p: &Proxy, remote_dns: bool, host: &str, port: u16) -> io::Result<TcpStream> {
    let mut inner = HttpConnector::new();
    inner.enforce_http(false);
    inner.set_nodelay(true);
    let proxy_uri: http::Uri = format!("socks5://{}:{}", bracket(&p.host), p.port)
        .parse()
        .map_err(io::Error::other)?;
    let mut socks = SocksV5::new(proxy_uri, inner).local_dns(!remote_dns);
    if let Some((user, password)) = &p.auth {
        socks = socks.with_auth(user.clone(), password.clone());
    }
    let dst: http::Uri = format!("http://{}:{port}", bracket(host))
        .parse()
        .map_err(io::Error::other)?;
    std::future::poll_fn(|cx| socks.poll_ready(cx))
        .await
        .map_err(|e| socks_error(p, &e))?;
    let io = socks.call(dst).await.map_err(|e| socks_error(p, &e))?;
    Ok(io.into_inner())
}

fn bracket(host: &str) -> String {
    if host.contains(':') {
        format!("[{host}]")
    } else {
        host.to_owned()
    }
}

fn socks_error(p: &Proxy, e: &dyn std::fmt::Display) -> io::Error {
    io::Error::new(
        io::ErrorKind::ConnectionRefused,
        format!("SOCKS5 proxy {}: {e}", p.shown()),
    )
}
