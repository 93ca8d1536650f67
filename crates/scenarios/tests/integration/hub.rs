//! A local stand-in for the Hugging Face hub on 127.0.0.1, answering what a hub client asks
//! the way the hub does: raw HTTP/1.1 over TCP, so a test can cut a body mid-way.
//!
//! - `/datasets/<repo>/resolve/<rev>/<file>` (a large LFS file) checks the bearer token and
//!   redirects with `X-Repo-Commit`, `X-Linked-Etag` (the sha256) and `X-Linked-Size` to
//!   `/cdn/<file>` on another host name (`localhost` for `127.0.0.1`), as the hub redirects
//!   to its CDN;
//! - `/<owner>/<model>/resolve/<rev>/<file>` (a small git file) answers itself, with `ETag`
//!   (the git blob id) and `X-Repo-Commit`; owner `gated` wants the token (401 with
//!   `X-Error-Code: GatedRepo` without it);
//! - file answers honour `Range: bytes=a-` and `bytes=a-b` with 206 and `Content-Range`
//!   (a client first asks for `bytes=0-0` to learn the size), unless told to ignore a resume;
//! - told to, the redirect leaves out `X-Linked-Size`, so the client must ask the CDN host
//!   for the size;
//! - told to, it says a revision resolved to another commit (a branch that moved);
//! - told to, each redirect's CDN URL is signed for one request (`?sig=<n>`), as a signed
//!   URL that has expired by the time a download is retried: asked again it answers 403.

use std::collections::HashMap;
use std::io::Write;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use flate2::Compression;
use flate2::write::GzEncoder;
use plateau_scenarios::rng::stream_rng;
use plateau_scenarios::text::words::{prose, sentence};
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

/// The token the hub accepts.
pub const TOKEN: &str = "hf_fixture_secret_123";
/// The commit the hub says a revision resolved to.
pub const COMMIT: &str = "0123456789abcdef0123456789abcdef01234567";

/// What the fixture server saw of one request.
#[derive(Clone, Debug)]
pub struct Seen {
    pub path: String,
    pub range: Option<String>,
    pub authorized: bool,
}

#[derive(Default)]
pub struct Behaviour {
    /// Cut this many file responses (of more than one byte) in the middle of the body.
    pub drop_bodies: AtomicUsize,
    /// Answer a resume (`Range: bytes=a-` with a > 0) with 200 and the whole file.
    pub ignore_range: bool,
    /// Announce a wrong checksum.
    pub wrong_etag: bool,
    /// Redirect without `X-Linked-Size`.
    pub no_linked_size: bool,
    /// The commit a revision resolved to, when not [`COMMIT`].
    pub commit: Option<&'static str>,
    /// Sign each CDN URL for one request.
    pub signed_once: bool,
}

pub struct Fixture {
    pub files: HashMap<String, Vec<u8>>,
    behaviour: Behaviour,
    pub seen: Mutex<Vec<Seen>>,
    /// Signatures issued, and those already used.
    signed: AtomicUsize,
    used: Mutex<Vec<String>>,
}

/// Serves `files` (keyed by file name) as described in the module doc.
pub async fn serve(
    files: HashMap<String, Vec<u8>>,
    behaviour: Behaviour,
) -> (String, Arc<Fixture>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let fixture = Arc::new(Fixture {
        files,
        behaviour,
        seen: Mutex::new(Vec::new()),
        signed: AtomicUsize::new(0),
        used: Mutex::new(Vec::new()),
    });
    let f = fixture.clone();
    tokio::spawn(async move {
        while let Ok((socket, _)) = listener.accept().await {
            tokio::spawn(answer(socket, f.clone()));
        }
    });
    (base, fixture)
}

/// `(first, last)` byte of `Range: bytes=a-` or `bytes=a-b`.
fn range(value: &str, len: usize) -> Option<(usize, usize)> {
    let (a, b) = value.strip_prefix("bytes=")?.split_once('-')?;
    let a: usize = a.trim().parse().ok()?;
    let b = match b.trim() {
        "" => len.checked_sub(1)?,
        b => b.parse::<usize>().ok()?.min(len.checked_sub(1)?),
    };
    (a <= b).then_some((a, b))
}

/// The request head, up to the blank line; `None` when the client went away first.
async fn read_head(socket: &mut tokio::net::TcpStream) -> Option<String> {
    let mut head = Vec::new();
    let mut buf = [0u8; 1024];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") {
        match socket.read(&mut buf).await {
            Ok(0) | Err(_) => return None,
            Ok(n) => head.extend_from_slice(&buf[..n]),
        }
    }
    Some(String::from_utf8_lossy(&head).to_string())
}

async fn answer(mut socket: tokio::net::TcpStream, f: Arc<Fixture>) {
    let Some(head) = read_head(&mut socket).await else {
        return;
    };
    let path = head.split_whitespace().nth(1).unwrap_or("/").to_owned();
    let header = |name: &str| {
        head.lines().find_map(|l| {
            l.split_once(':')
                .filter(|(k, _)| k.eq_ignore_ascii_case(name))
                .map(|(_, v)| v.trim().to_owned())
        })
    };
    let authorized = header("authorization").as_deref() == Some(&format!("Bearer {TOKEN}"));
    f.seen.lock().unwrap().push(Seen {
        path: path.clone(),
        range: header("range"),
        authorized,
    });
    let (route, query) = path.split_once('?').unwrap_or((&path, ""));
    let file = route.rsplit('/').next().unwrap_or_default().to_owned();
    let Some(body) = f.files.get(&file) else {
        let _ = socket
            .write_all(b"HTTP/1.1 404 Not Found\r\nx-error-code: EntryNotFound\r\ncontent-length: 0\r\nconnection: close\r\n\r\n")
            .await;
        return;
    };
    let is_dataset = path.starts_with("/datasets/");
    let is_cdn = path.starts_with("/cdn/");
    if let Some(refusal) = f.refusal(&path, query, authorized) {
        let _ = socket.write_all(refusal).await;
        return;
    }
    let etag = match (f.behaviour.wrong_etag, is_dataset || is_cdn) {
        (true, _) => "f".repeat(64),
        (false, true) => sha256(body),
        (false, false) => git_blob_id(body),
    };
    if is_dataset {
        let port = socket.local_addr().map(|a| a.port()).unwrap_or_default();
        let reply = f.redirect(port, &file, &etag, body.len());
        let _ = socket.write_all(reply.as_bytes()).await;
        return;
    }
    let commit = (!is_cdn).then(|| f.behaviour.commit.unwrap_or(COMMIT));
    f.send(&mut socket, body, header("range"), &etag, commit)
        .await;
}

impl Fixture {
    /// The refusal of a CDN URL already used (when signed once) or of a gated or dataset
    /// path without the token.
    fn refusal(&self, path: &str, query: &str, authorized: bool) -> Option<&'static [u8]> {
        if path.starts_with("/cdn/") && self.behaviour.signed_once {
            let mut used = self.used.lock().unwrap();
            let fresh = !query.is_empty() && !used.iter().any(|q| q == query);
            used.push(query.to_owned());
            if !fresh {
                return Some(
                    b"HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\nconnection: close\r\n\r\n",
                );
            }
        }
        let needs_token = path.starts_with("/datasets/") || path.starts_with("/gated/");
        (needs_token && !authorized).then_some(
            b"HTTP/1.1 401 Unauthorized\r\nx-error-code: GatedRepo\r\ncontent-length: 0\r\nconnection: close\r\n\r\n",
        )
    }

    /// The hub's redirect of a dataset file to the CDN host (`localhost:port`).
    fn redirect(&self, port: u16, file: &str, etag: &str, len: usize) -> String {
        let commit = self.behaviour.commit.unwrap_or(COMMIT);
        let size = if self.behaviour.no_linked_size {
            String::new()
        } else {
            format!("x-linked-size: {len}\r\n")
        };
        let sig = if self.behaviour.signed_once {
            format!("?sig={}", self.signed.fetch_add(1, Ordering::SeqCst))
        } else {
            String::new()
        };
        format!(
            "HTTP/1.1 302 Found\r\nlocation: http://localhost:{port}/cdn/{file}{sig}\r\nx-repo-commit: {commit}\r\nx-linked-etag: \"{etag}\"\r\n{size}content-length: 0\r\nconnection: close\r\n\r\n"
        )
    }

    /// The file, or the asked range of it, cut in the middle while `drop_bodies` lasts.
    async fn send(
        &self,
        socket: &mut tokio::net::TcpStream,
        body: &[u8],
        range_header: Option<String>,
        etag: &str,
        commit: Option<&str>,
    ) {
        let asked = range_header.and_then(|r| range(&r, body.len()));
        let (status, part) = match asked {
            Some((a, _)) if a > 0 && self.behaviour.ignore_range => ("200 OK".to_owned(), body),
            Some((a, b)) => (
                format!(
                    "206 Partial Content\r\ncontent-range: bytes {a}-{b}/{}",
                    body.len()
                ),
                &body[a..=b],
            ),
            None => ("200 OK".to_owned(), body),
        };
        let commit = commit.map_or(String::new(), |c| format!("x-repo-commit: {c}\r\n"));
        let reply = format!(
            "HTTP/1.1 {status}\r\ncontent-length: {}\r\netag: \"{etag}\"\r\n{commit}connection: close\r\n\r\n",
            part.len()
        );
        let _ = socket.write_all(reply.as_bytes()).await;
        let cut = part.len() > 1
            && self
                .behaviour
                .drop_bodies
                .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
                .is_ok();
        let _ = socket
            .write_all(if cut { &part[..part.len() / 2] } else { part })
            .await;
        let _ = socket.shutdown().await;
    }
}

/// git's blob id of `b` (the hub's ETag of a small file).
pub fn git_blob_id(b: &[u8]) -> String {
    let mut ctx = ring::digest::Context::new(&ring::digest::SHA1_FOR_LEGACY_USE_ONLY);
    ctx.update(format!("blob {}\0", b.len()).as_bytes());
    ctx.update(b);
    ctx.finish()
        .as_ref()
        .iter()
        .map(|x| format!("{x:02x}"))
        .collect()
}

pub fn sha256(b: &[u8]) -> String {
    ring::digest::digest(&ring::digest::SHA256, b)
        .as_ref()
        .iter()
        .map(|x| format!("{x:02x}"))
        .collect()
}

/// LongBench-v2's `data.json`: one JSON array of records with every upstream field.
pub fn longbench_json(records: u64) -> Vec<u8> {
    let records: Vec<_> = (0..records)
        .map(|i| {
            let mut rng = stream_rng(i, "upstream longbench");
            json!({
                "_id": format!("66f36490821e116aacb2cc{i:02}"), "domain": "Single-Document QA", "sub_domain": "Literary",
                "difficulty": "hard", "length": "short", "question": sentence(&mut rng),
                "choice_A": "a", "choice_B": "b", "choice_C": "c", "choice_D": "d", "answer": "B",
                "context": prose(&mut rng, 60_000),
            })
        })
        .collect();
    serde_json::to_vec_pretty(&records).unwrap()
}

/// oasst2's `*_ready.trees.jsonl.gz`: nested trees with upstream fields; one tree not ready,
/// one deleted reply.
pub fn oasst2_gz() -> Vec<u8> {
    let msg = |id: &str,
               parent: Option<&str>,
               role: &str,
               rank: Option<u32>,
               text: &str,
               replies: Vec<serde_json::Value>| {
        json!({"message_id": id, "parent_id": parent, "user_id": "u", "created_date": "2023-02-05T00:00:00+00:00",
               "text": text, "role": role, "lang": "en", "review_count": 3, "review_result": true, "deleted": false,
               "rank": rank, "synthetic": false, "model_name": null, "emojis": {"name": ["+1"], "count": [2]},
               "labels": {"name": ["spam"], "value": [0.0], "count": [3]}, "replies": replies})
    };
    let mut deleted = msg("d", Some("a1"), "prompter", None, "deleted", vec![]);
    deleted["deleted"] = json!(true);
    let tree = |id: &str, state: &str| {
        let a2 = msg(
            "a2",
            Some("p2"),
            "assistant",
            Some(0),
            "Bake it for forty minutes.",
            vec![],
        );
        let p2 = msg("p2", Some("a1"), "prompter", None, "And then?", vec![a2]);
        let a1 = msg(
            "a1",
            Some("p1"),
            "assistant",
            Some(0),
            "Knead the dough.",
            vec![p2, deleted.clone()],
        );
        let a1b = msg("a1b", Some("p1"), "assistant", Some(1), "Buy some.", vec![]);
        json!({"message_tree_id": id, "tree_state": state, "prompt": msg("p1", None, "prompter", None, "How do I make bread?", vec![a1, a1b])})
    };
    let mut gz = GzEncoder::new(Vec::new(), Compression::fast());
    for (id, state) in [
        ("t1", "ready_for_export"),
        ("t2", "aborted_low_grade"),
        ("t3", "ready_for_export"),
    ] {
        writeln!(gz, "{}", tree(id, state)).unwrap();
    }
    gz.finish().unwrap()
}

/// A small real `tokenizer.json`: a WordLevel vocabulary behind the `Whitespace`
/// pre-tokenizer (`\w+|[^\w\s]+`), unknown words as `[UNK]` (id 0).
pub fn tokenizer_json() -> Vec<u8> {
    word_level(&["hello", "world", "the", "fox"])
}

/// A WordLevel `tokenizer.json` of `words` (ids from 1; `[UNK]` is 0).
pub fn word_level(words: &[&str]) -> Vec<u8> {
    let mut vocab = serde_json::Map::from_iter([("[UNK]".to_owned(), json!(0))]);
    for (i, w) in words.iter().enumerate() {
        vocab.insert((*w).to_owned(), json!(i + 1));
    }
    serde_json::to_vec_pretty(&json!({
        "version": "1.0", "truncation": null, "padding": null, "added_tokens": [],
        "normalizer": null, "pre_tokenizer": {"type": "Whitespace"}, "post_processor": null,
        "decoder": null,
        "model": {"type": "WordLevel", "unk_token": "[UNK]", "vocab": vocab}
    }))
    .unwrap()
}
