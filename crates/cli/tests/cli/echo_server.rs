//! A loopback HTTP/1.1 server that tells each client what it sent: the request line and
//! every header, plus the credential as a careless server would quote it (the bare token
//! after `Bearer`, the decoded `user:pass` of `Basic`). Its answers carry that echo where
//! plateau keeps server text: the `/models` listing, streamed reply content, error bodies.
//!
//! Bounded: at most [`MAX_CONNECTIONS`] connections and [`MAX_REQUESTS`] requests each,
//! idle connections dropped after [`IDLE`], and dropping the server stops it.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use base64::Engine as _;

const MAX_CONNECTIONS: usize = 256;
const MAX_REQUESTS: usize = 5_000;
const IDLE: Duration = Duration::from_secs(10);
/// Keeps the request rate of a closed loop modest on a loaded machine.
const REPLY_DELAY: Duration = Duration::from_millis(10);

/// How the server answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// `/models` lists the model; chat completions alternate a streamed 200 and an HTTP 500,
    /// both carrying the echo.
    Mixed,
    /// HTTP 401 with the echo for every request.
    Unauthorized,
}

/// A running echo server; stops when dropped.
pub struct EchoServer {
    addr: SocketAddr,
    heads: Arc<Mutex<Vec<String>>>,
    stop: Arc<AtomicBool>,
}

impl EchoServer {
    /// Starts a server on `127.0.0.1:0` serving `model`.
    pub fn start(mode: Mode, model: &str) -> EchoServer {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let heads = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let chats = Arc::new(AtomicU64::new(0));
        let (h, s, model) = (heads.clone(), stop.clone(), model.to_owned());
        std::thread::spawn(move || {
            for _ in 0..MAX_CONNECTIONS {
                let Ok((sock, _)) = listener.accept() else {
                    return;
                };
                if s.load(Ordering::Acquire) {
                    return;
                }
                let (h, chats, model) = (h.clone(), chats.clone(), model.clone());
                std::thread::spawn(move || serve(sock, mode, &model, &h, &chats));
            }
        });
        EchoServer { addr, heads, stop }
    }

    /// `http://[userinfo@]127.0.0.1:PORT/v1[?query]`.
    pub fn url(&self, userinfo: Option<&str>, query: Option<&str>) -> String {
        let user = userinfo.map(|u| format!("{u}@")).unwrap_or_default();
        let query = query.map(|q| format!("?{q}")).unwrap_or_default();
        format!("http://{user}{}/v1{query}", self.addr)
    }

    /// Every request line and header block received so far.
    pub fn received(&self) -> String {
        self.heads.lock().unwrap().join("\n")
    }
}

impl Drop for EchoServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Release);
        // Wakes the accept loop so it sees `stop`.
        let _ = TcpStream::connect(self.addr);
    }
}

fn serve(sock: TcpStream, mode: Mode, model: &str, heads: &Mutex<Vec<String>>, chats: &AtomicU64) {
    let _ = sock.set_read_timeout(Some(IDLE));
    let mut reader = BufReader::new(sock);
    for _ in 0..MAX_REQUESTS {
        let Some(head) = read_head(&mut reader) else {
            return;
        };
        let length = content_length(&head);
        if std::io::copy(&mut (&mut reader).take(length), &mut std::io::sink()).is_err() {
            return;
        }
        heads.lock().unwrap().push(head.clone());
        let echo = echo(&head);
        let is_models = head
            .split_whitespace()
            .nth(1)
            .is_some_and(|t| t.starts_with("/v1/models"));
        let (status, content_type, body) = match mode {
            Mode::Unauthorized => (401, "application/json", error_body(&echo)),
            Mode::Mixed if is_models => (200, "application/json", models_body(model, &echo)),
            Mode::Mixed => {
                std::thread::sleep(REPLY_DELAY);
                if chats.fetch_add(1, Ordering::Relaxed) % 2 == 1 {
                    (500, "application/json", error_body(&echo))
                } else {
                    (200, "text/event-stream", stream_body(&echo))
                }
            }
        };
        let reply = format!(
            "HTTP/1.1 {status} Echo\r\ncontent-type: {content_type}\r\ncontent-length: {}\r\n\r\n{body}",
            body.len()
        );
        if reader.get_mut().write_all(reply.as_bytes()).is_err() {
            return;
        }
    }
}

/// The request line and headers, or `None` at the end of the connection.
fn read_head(reader: &mut BufReader<TcpStream>) -> Option<String> {
    let mut head = String::new();
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).ok()? == 0 || head.len() > 64 * 1024 {
            return None;
        }
        let line = line.trim_end();
        if line.is_empty() {
            return Some(head);
        }
        head.push_str(line);
        head.push('\n');
    }
}

fn content_length(head: &str) -> u64 {
    head.lines()
        .filter_map(|l| l.split_once(':'))
        .find(|(name, _)| name.eq_ignore_ascii_case("content-length"))
        .and_then(|(_, v)| v.trim().parse().ok())
        .unwrap_or(0)
}

/// The head, and the credential as a server would quote it in "invalid key ...".
fn echo(head: &str) -> String {
    let mut out = head.to_owned();
    for (name, value) in head.lines().filter_map(|l| l.split_once(':')) {
        if !name.eq_ignore_ascii_case("authorization") {
            continue;
        }
        if let Some((scheme, cred)) = value.trim().split_once(' ') {
            out.push_str(&format!("invalid credential {cred}\n"));
            if scheme.eq_ignore_ascii_case("basic")
                && let Ok(plain) = base64::engine::general_purpose::STANDARD.decode(cred)
            {
                let plain = String::from_utf8_lossy(&plain).into_owned();
                let password = plain.split_once(':').map_or("", |(_, p)| p).to_owned();
                out.push_str(&format!("invalid login {plain} (password {password})\n"));
            }
        }
    }
    out
}

fn models_body(model: &str, echo: &str) -> String {
    serde_json::json!({"object": "list", "data": [{"id": model, "object": "model", "owned_by": echo}]})
        .to_string()
}

fn error_body(echo: &str) -> String {
    serde_json::json!({"error": {"message": format!("rejected: {echo}"), "type": "server_error"}})
        .to_string()
}

fn stream_body(echo: &str) -> String {
    let chunk = serde_json::json!({"object": "chat.completion.chunk",
        "choices": [{"index": 0, "delta": {"role": "assistant", "content": echo}}]});
    let end = serde_json::json!({"object": "chat.completion.chunk",
        "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]});
    format!("data: {chunk}\n\ndata: {end}\n\ndata: [DONE]\n\n")
}
