//! The fetch code against a local HTTP server on 127.0.0.1 serving fixtures in the exact
//! upstream formats (LongBench-v2 `data.json`, oasst2 `*.trees.jsonl.gz`) the way the hub
//! does (a redirect carrying `X-Repo-Commit` and `X-Linked-Etag`, then the file): download
//! and normalise, resume an interrupted transfer, restart when the range is ignored, a clear
//! error when unreachable, and `HF_TOKEN` never in any message.

use std::collections::HashMap;
use std::io::Write;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use flate2::Compression;
use flate2::write::GzEncoder;
use plateau_core::secret::Secret;
use plateau_scenarios::Catalog;
use plateau_scenarios::fetch::{Dataset, FetchOptions, Progress, fetch};
use plateau_scenarios::rng::stream_rng;
use plateau_scenarios::text::words::{prose, sentence};
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

use crate::common::{config, temp_dir, tokenizer};

const TOKEN: &str = "hf_fixture_secret_123";
const COMMIT: &str = "0123456789abcdef0123456789abcdef01234567";

/// What the fixture server saw of one request.
#[derive(Clone, Debug)]
struct Seen {
    path: String,
    range: Option<String>,
    authorized: bool,
}

#[derive(Default)]
struct Behaviour {
    /// Cut this many file responses in the middle of the body.
    drop_bodies: AtomicUsize,
    /// Answer 200 with the whole file even when asked for a range.
    ignore_range: bool,
    /// Announce a wrong checksum.
    wrong_etag: bool,
}

struct Fixture {
    files: HashMap<String, Vec<u8>>,
    behaviour: Behaviour,
    seen: Mutex<Vec<Seen>>,
}

/// Serves `files` (keyed by file name) at `/datasets/<repo>/resolve/<rev>/<file>`, which
/// redirects to `/cdn/<file>` on another host name (`localhost` for `127.0.0.1`), as the hub
/// redirects to its CDN.
async fn serve(files: HashMap<String, Vec<u8>>, behaviour: Behaviour) -> (String, Arc<Fixture>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let fixture = Arc::new(Fixture {
        files,
        behaviour,
        seen: Mutex::new(Vec::new()),
    });
    let f = fixture.clone();
    tokio::spawn(async move {
        while let Ok((socket, _)) = listener.accept().await {
            tokio::spawn(answer(socket, f.clone()));
        }
    });
    (base, fixture)
}

async fn answer(mut socket: tokio::net::TcpStream, f: Arc<Fixture>) {
    let mut head = Vec::new();
    let mut buf = [0u8; 1024];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") {
        match socket.read(&mut buf).await {
            Ok(0) | Err(_) => return,
            Ok(n) => head.extend_from_slice(&buf[..n]),
        }
    }
    let head = String::from_utf8_lossy(&head).to_string();
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
    let file = path.rsplit('/').next().unwrap_or_default().to_owned();
    let Some(body) = f.files.get(&file) else {
        let _ = socket
            .write_all(b"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n")
            .await;
        return;
    };
    let sha = if f.behaviour.wrong_etag {
        "f".repeat(64)
    } else {
        sha256(body)
    };
    if path.starts_with("/datasets/") {
        if !authorized {
            let _ = socket
                .write_all(
                    b"HTTP/1.1 401 Unauthorized\r\ncontent-length: 0\r\nconnection: close\r\n\r\n",
                )
                .await;
            return;
        }
        let port = socket.local_addr().map(|a| a.port()).unwrap_or_default();
        let reply = format!(
            "HTTP/1.1 302 Found\r\nlocation: http://localhost:{port}/cdn/{file}\r\nx-repo-commit: {COMMIT}\r\nx-linked-etag: \"{sha}\"\r\nx-linked-size: {}\r\ncontent-length: 0\r\nconnection: close\r\n\r\n",
            body.len()
        );
        let _ = socket.write_all(reply.as_bytes()).await;
        return;
    }
    let from: usize = header("range")
        .and_then(|r| r.strip_prefix("bytes=")?.strip_suffix('-')?.parse().ok())
        .unwrap_or(0);
    let (status, part) = if from > 0 && !f.behaviour.ignore_range {
        (
            format!(
                "206 Partial Content\r\ncontent-range: bytes {from}-{}/{}",
                body.len() - 1,
                body.len()
            ),
            &body[from..],
        )
    } else {
        ("200 OK".to_owned(), &body[..])
    };
    let reply = format!(
        "HTTP/1.1 {status}\r\ncontent-length: {}\r\netag: \"{sha}\"\r\nconnection: close\r\n\r\n",
        part.len()
    );
    let _ = socket.write_all(reply.as_bytes()).await;
    let cut = f
        .behaviour
        .drop_bodies
        .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
        .is_ok();
    let _ = socket
        .write_all(if cut { &part[..part.len() / 2] } else { part })
        .await;
    let _ = socket.shutdown().await;
}

fn sha256(b: &[u8]) -> String {
    ring::digest::digest(&ring::digest::SHA256, b)
        .as_ref()
        .iter()
        .map(|x| format!("{x:02x}"))
        .collect()
}

/// LongBench-v2's `data.json`: one JSON array of records with every upstream field.
fn longbench_json(records: u64) -> Vec<u8> {
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
fn oasst2_gz() -> Vec<u8> {
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

/// Records progress messages to check them for the token.
#[derive(Default)]
struct Messages(Mutex<Vec<String>>);

impl Progress for Messages {
    fn message(&self, text: &str) {
        self.0.lock().unwrap().push(text.to_owned());
    }
}

impl Messages {
    fn all(&self) -> String {
        self.0.lock().unwrap().join("\n")
    }
}

fn options(dir: &Path, endpoint: &str, attempts: u32) -> FetchOptions {
    let env = |k: &str| match k {
        "HF_ENDPOINT" => Some(endpoint.to_owned()),
        "HF_TOKEN" => Some(TOKEN.to_owned()),
        _ => None,
    };
    let mut o = FetchOptions::from_env(dir.to_owned(), &env);
    o.attempts = attempts;
    assert!(!format!("{o:?}").contains(TOKEN));
    o
}

fn files() -> HashMap<String, Vec<u8>> {
    HashMap::from([
        (Dataset::Longbench.file().to_owned(), longbench_json(5)),
        (Dataset::Oasst2.file().to_owned(), oasst2_gz()),
    ])
}

#[tokio::test]
async fn downloads_and_normalises_the_upstream_formats() {
    let (base, fixture) = serve(files(), Behaviour::default()).await;
    let dir = temp_dir("fetch-ok");
    let log = Messages::default();
    let lb = fetch(Dataset::Longbench, &options(&dir, &base, 3), &log)
        .await
        .unwrap();
    assert!(lb.downloaded);
    assert_eq!(lb.manifest.records, 5);
    assert_eq!(lb.manifest.sha256, sha256(&fixture.files["data.json"]));
    assert_eq!(lb.manifest.bytes, fixture.files["data.json"].len() as u64);
    assert_eq!(lb.manifest.repo_commit.as_deref(), Some(COMMIT));
    assert_eq!(
        lb.manifest.url,
        format!(
            "{base}/datasets/THUDM/LongBench-v2/resolve/{}/data.json",
            Dataset::Longbench.revision()
        )
    );
    let lines = std::fs::read_to_string(dir.join("longbench/contexts.jsonl")).unwrap();
    assert_eq!(lines.lines().count(), 5);
    assert!(
        lines.lines().all(|l| l.len() < 41_000),
        "contexts are trimmed"
    );
    assert!(dir.join("longbench/manifest.json").is_file());
    assert!(!dir.join("longbench/data.json.part").exists());

    let oa = fetch(Dataset::Oasst2, &options(&dir, &base, 3), &log)
        .await
        .unwrap();
    assert_eq!(oa.manifest.records, 2, "the aborted tree is left out");
    let trees = std::fs::read_to_string(dir.join("oasst2/trees.jsonl")).unwrap();
    assert!(!trees.contains("deleted"), "deleted messages are left out");
    assert_eq!(trees.lines().next().unwrap().matches("\"text\"").count(), 5);

    // The token went to the hub's host, not to the CDN; a second run downloads nothing.
    let seen = fixture.seen.lock().unwrap().clone();
    assert!(
        seen.iter()
            .all(|s| s.authorized == s.path.starts_with("/datasets/")),
        "{seen:?}"
    );
    let again = fetch(Dataset::Longbench, &options(&dir, &base, 3), &log)
        .await
        .unwrap();
    assert!(!again.downloaded);
    assert_eq!(fixture.seen.lock().unwrap().len(), seen.len());
    assert!(!log.all().contains(TOKEN));

    // The workloads read what was fetched.
    let cfg = config(
        &["B2", "D"],
        json!({"datasets_dir": dir, "scenario_options": {"D": {"min_turns": 1}}}),
    );
    let catalog = Catalog::load(&cfg, tokenizer()).unwrap();
    assert!(
        !catalog
            .warnings()
            .iter()
            .any(|w| w.contains("not found at")),
        "{:?}",
        catalog.warnings()
    );
}

#[tokio::test]
async fn an_interrupted_transfer_resumes_on_the_next_run() {
    let behaviour = Behaviour {
        drop_bodies: AtomicUsize::new(1),
        ..Behaviour::default()
    };
    let (base, fixture) = serve(files(), behaviour).await;
    let dir = temp_dir("fetch-resume");
    let log = Messages::default();
    let err = fetch(Dataset::Longbench, &options(&dir, &base, 1), &log)
        .await
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("was interrupted after")
            && err.ends_with("run the command again to resume it"),
        "{err}"
    );
    let size = fixture.files["data.json"].len() as u64;
    let part = std::fs::metadata(dir.join("longbench/data.json.part"))
        .unwrap()
        .len();
    assert_eq!(part, size / 2);

    let done = fetch(Dataset::Longbench, &options(&dir, &base, 1), &log)
        .await
        .unwrap();
    assert_eq!(done.resumed_from, part);
    assert_eq!(done.manifest.sha256, sha256(&fixture.files["data.json"]));
    let ranges: Vec<Option<String>> = fixture
        .seen
        .lock()
        .unwrap()
        .iter()
        .map(|s| s.range.clone())
        .collect();
    assert!(
        ranges.contains(&Some(format!("bytes={part}-"))),
        "{ranges:?}"
    );
    assert!(!format!("{err}{}", log.all()).contains(TOKEN));
}

#[tokio::test]
async fn a_server_that_ignores_the_range_gets_a_clean_restart() {
    let behaviour = Behaviour {
        drop_bodies: AtomicUsize::new(1),
        ignore_range: true,
        ..Behaviour::default()
    };
    let (base, fixture) = serve(files(), behaviour).await;
    let dir = temp_dir("fetch-restart");
    let log = Messages::default();
    let done = fetch(Dataset::Oasst2, &options(&dir, &base, 2), &log)
        .await
        .unwrap();
    assert_eq!(
        done.manifest.sha256,
        sha256(&fixture.files[Dataset::Oasst2.file()])
    );
    assert!(log.all().contains("restarting from zero"), "{}", log.all());
    assert_eq!(done.manifest.records, 2);
}

#[tokio::test]
async fn a_wrong_checksum_or_status_is_reported_without_the_token() {
    let (base, _) = serve(
        files(),
        Behaviour {
            wrong_etag: true,
            ..Behaviour::default()
        },
    )
    .await;
    let dir = temp_dir("fetch-sha");
    let err = fetch(
        Dataset::Longbench,
        &options(&dir, &base, 1),
        &Messages::default(),
    )
    .await
    .unwrap_err()
    .to_string();
    assert!(
        err.contains("sha256") && err.contains("is not the server's"),
        "{err}"
    );
    assert!(!dir.join("longbench/data.json.part").exists());

    let mut opts = options(&dir, &base, 1);
    opts.token = Some(Secret::new("hf_wrong_token_456"));
    let err = fetch(Dataset::Longbench, &opts, &Messages::default())
        .await
        .unwrap_err()
        .to_string();
    assert!(
        err.ends_with("answered HTTP 401: the token in HF_TOKEN was refused"),
        "{err}"
    );
    assert!(!err.contains("hf_wrong_token_456"));
}

#[tokio::test]
async fn an_unreachable_hub_names_the_url_and_what_to_check() {
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let base = format!("http://127.0.0.1:{port}");
    let dir = temp_dir("fetch-unreachable");
    let err = fetch(
        Dataset::Oasst2,
        &options(&dir, &base, 3),
        &Messages::default(),
    )
    .await
    .unwrap_err()
    .to_string();
    let url = format!("{base}/datasets/OpenAssistant/oasst2/resolve/");
    assert!(err.starts_with(&format!("could not reach {url}")), "{err}");
    assert!(
        err.ends_with("check the network connection, or set HF_ENDPOINT to a reachable hub mirror"),
        "{err}"
    );
    assert!(!err.contains(TOKEN));
}
