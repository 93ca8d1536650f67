//! The fetch code against a local hub on 127.0.0.1 serving fixtures in the
//! exact upstream formats (LongBench-v2 `data.json`, oasst2 `*.trees.jsonl.gz`) the way the
//! hub does (a redirect carrying `X-Repo-Commit` and `X-Linked-Etag`, then the file from a
//! CDN host): download into a fresh hub cache and normalise, serve the cache again and
//! offline, a clear error when unreachable, and `HF_TOKEN` never in any message. Transfers
//! that break off are in `fetch_resume`.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use plateau_model::secret::Secret;
use plateau_scenarios::Catalog;
use plateau_scenarios::fetch::{Dataset, FetchError, FetchOptions, Fetched, Progress, fetch};
use serde_json::json;

use crate::common::{config, temp_dir, tokenizer};
use crate::hub::{Behaviour, COMMIT, TOKEN, longbench_json, oasst2_gz, serve, sha256};

/// Records progress messages to check them for the token.
#[derive(Default)]
pub struct Messages(Mutex<Vec<String>>);

impl Progress for Messages {
    fn message(&self, text: &str) {
        self.0.lock().unwrap().push(text.to_owned());
    }
}

impl Messages {
    pub fn all(&self) -> String {
        self.0.lock().unwrap().join("\n")
    }
}

/// Options with the hub cache in `dir/hf`.
pub fn options(dir: &Path, endpoint: &str, attempts: u32) -> FetchOptions {
    let cache = dir.join("hf").to_string_lossy().into_owned();
    let env = |k: &str| match k {
        "HF_ENDPOINT" => Some(endpoint.to_owned()),
        "HF_TOKEN" => Some(TOKEN.to_owned()),
        "HF_HUB_CACHE" => Some(cache.clone()),
        _ => None,
    };
    let mut o = FetchOptions::from_env(dir.to_owned(), &env);
    o.attempts = attempts;
    assert!(!format!("{o:?}").contains(TOKEN));
    o
}

/// The blobs folder of `dataset` in the hub cache of `options`.
pub fn blobs(dir: &Path, dataset: Dataset) -> PathBuf {
    dir.join("hf")
        .join(format!("datasets--{}", dataset.repo().replace('/', "--")))
        .join("blobs")
}

/// Files in `dir` whose name ends with `suffix`.
pub fn with_suffix(dir: &Path, suffix: &str) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .map(|d| {
            d.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.to_string_lossy().ends_with(suffix))
                .collect()
        })
        .unwrap_or_default()
}

/// A port nothing listens on.
fn dead_endpoint() -> String {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    format!("http://127.0.0.1:{}", l.local_addr().unwrap().port())
}

/// LongBench fetched with one attempt and no progress display.
pub async fn longbench_once(dir: &Path, base: &str) -> Result<Fetched, FetchError> {
    fetch(
        Dataset::Longbench,
        &options(dir, base, 1),
        &Messages::default(),
    )
    .await
}

pub fn files() -> HashMap<String, Vec<u8>> {
    HashMap::from([
        (Dataset::Longbench.file().to_owned(), longbench_json(5)),
        (Dataset::Oasst2.file().to_owned(), oasst2_gz()),
    ])
}

#[tokio::test]
async fn downloads_and_normalises_the_upstream_formats() {
    let (base, fixture) = serve(files(), Behaviour::default()).await;
    let tmp = temp_dir("fetch-ok");
    let dir = tmp.path();
    let log = Messages::default();
    let lb = fetch(Dataset::Longbench, &options(dir, &base, 3), &log)
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
    assert!(with_suffix(&blobs(dir, Dataset::Longbench), ".part").is_empty());
    assert_eq!(
        std::fs::read(
            dir.join("hf/datasets--THUDM--LongBench-v2/snapshots")
                .join(COMMIT)
                .join("data.json")
        )
        .unwrap(),
        fixture.files["data.json"],
        "the file is in the standard cache layout under the commit the hub named"
    );

    let oa = fetch(Dataset::Oasst2, &options(dir, &base, 3), &log)
        .await
        .unwrap();
    assert_eq!(oa.manifest.records, 2, "the aborted tree is left out");
    let trees = std::fs::read_to_string(dir.join("oasst2/trees.jsonl")).unwrap();
    assert!(!trees.contains("deleted"), "deleted messages are left out");
    assert_eq!(trees.lines().next().unwrap().matches("\"text\"").count(), 5);

    // The token went to the hub's host and never to the CDN host. A second run downloads
    // nothing, and works offline with the hub gone.
    let seen = fixture.seen.lock().unwrap().clone();
    assert!(
        seen.iter()
            .all(|s| s.authorized == s.path.starts_with("/datasets/")),
        "{seen:?}"
    );
    let again = fetch(Dataset::Longbench, &options(dir, &base, 3), &log)
        .await
        .unwrap();
    assert!(!again.downloaded);
    assert_eq!(again.manifest.sha256, lb.manifest.sha256);
    assert_eq!(fixture.seen.lock().unwrap().len(), seen.len());
    let mut offline = options(dir, &dead_endpoint(), 1);
    offline.hub.offline = true;
    let cached = fetch(Dataset::Oasst2, &offline, &log).await.unwrap();
    assert_eq!((cached.downloaded, cached.manifest.records), (false, 2));
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

/// Without `X-Linked-Size` the client asks the CDN host for the size (`bytes=0-0`): that
/// probe, like the transfer, goes without the token. (hf-hub 0.4 sent it there.)
#[tokio::test]
async fn the_size_probe_of_the_cdn_host_goes_without_the_token() {
    let behaviour = Behaviour {
        no_linked_size: true,
        ..Behaviour::default()
    };
    let (base, fixture) = serve(files(), behaviour).await;
    let tmp = temp_dir("fetch-probe");
    let dir = tmp.path();
    let done = longbench_once(dir, &base).await.unwrap();
    assert_eq!(done.manifest.sha256, sha256(&fixture.files["data.json"]));
    let seen = fixture.seen.lock().unwrap().clone();
    let cdn: Vec<_> = seen
        .iter()
        .filter(|s| s.path.starts_with("/cdn/"))
        .collect();
    assert_eq!(
        cdn.iter().map(|s| s.range.as_deref()).collect::<Vec<_>>(),
        [Some("bytes=0-0"), Some("bytes=0-")],
        "{seen:?}"
    );
    assert!(cdn.iter().all(|s| !s.authorized), "{seen:?}");
    assert!(
        seen.iter()
            .filter(|s| s.path.starts_with("/datasets/"))
            .all(|s| s.authorized),
        "{seen:?}"
    );
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
    let tmp = temp_dir("fetch-sha");
    let dir = tmp.path();
    let err = longbench_once(dir, &base).await.unwrap_err().to_string();
    assert!(
        err.contains("twice did not match the hub's ETag") && err.contains(&"f".repeat(64)),
        "{err}"
    );
    assert!(
        std::fs::read_dir(blobs(dir, Dataset::Longbench))
            .unwrap()
            .all(|e| e.unwrap().path().extension().is_some_and(|x| x == "lock")),
        "the damaged copy is removed"
    );

    let mut opts = options(dir, &base, 1);
    opts.hub.token = Some(Secret::new("hf_wrong_token_456"));
    let err = fetch(Dataset::Longbench, &opts, &Messages::default())
        .await
        .unwrap_err()
        .to_string();
    assert!(
        err.ends_with(
            "answered HTTP 401: the dataset is gated and the token in HF_TOKEN has no access: accept its terms on its hub page"
        ),
        "{err}"
    );
    assert!(!err.contains("hf_wrong_token_456"));
}

#[tokio::test]
async fn an_unreachable_hub_names_the_url_and_what_to_check() {
    let base = dead_endpoint();
    let tmp = temp_dir("fetch-unreachable");
    let dir = tmp.path();
    let err = fetch(
        Dataset::Oasst2,
        &options(dir, &base, 3),
        &Messages::default(),
    )
    .await
    .unwrap_err()
    .to_string();
    let url = format!("{base}/datasets/OpenAssistant/oasst2/resolve/");
    assert!(err.starts_with(&format!("could not reach {url}")), "{err}");
    assert!(
        err.contains("check the network connection or set HF_ENDPOINT to a reachable hub mirror")
            && err.ends_with("set HF_HUB_OFFLINE=1"),
        "{err}"
    );
    assert!(!err.contains(TOKEN));

    let mut offline = options(dir, &base, 1);
    offline.hub.offline = true;
    let err = fetch(Dataset::Oasst2, &offline, &Messages::default())
        .await
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("is not in the hub cache") && err.contains("HF_HUB_OFFLINE is set"),
        "{err}"
    );
}
