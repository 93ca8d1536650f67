//! A tokenizer named by a Hugging Face model id, against the local hub of [`crate::hub`]:
//! downloaded into a fresh hub cache then counting exactly, served from the cache with the
//! hub gone, a gated model refused without `HF_TOKEN` (the token never in the error) and
//! loaded with it, offline mode, a pinned revision, a cached branch checked for a newer
//! commit, and errors naming the id.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use plateau_core::tokens::TokenCounter;
use plateau_hub::{Event, Hub};
use plateau_scenarios::Tokenizer;
use plateau_scenarios::tokenizer::TokenizerError;

use crate::common::temp_dir;
use crate::hub::{Behaviour, COMMIT, TOKEN, git_blob_id, serve, tokenizer_json, word_level};

/// Loads `id` on a blocking thread (it blocks while downloading, and the fixture hub runs
/// on this test's runtime) with the given environment.
async fn load(id: &str, vars: &[(&'static str, String)]) -> Result<Tokenizer, TokenizerError> {
    let (id, vars) = (PathBuf::from(id), vars.to_vec());
    tokio::task::spawn_blocking(move || {
        let env = |k: &str| vars.iter().find(|(n, _)| *n == k).map(|(_, v)| v.clone());
        Tokenizer::load(Some(&id), &env)
    })
    .await
    .unwrap()
}

fn env(endpoint: &str, cache: &Path) -> Vec<(&'static str, String)> {
    vec![
        ("HF_ENDPOINT", endpoint.to_owned()),
        ("HF_HUB_CACHE", cache.to_string_lossy().into_owned()),
        // No token file is read from the developer's own home.
        ("HF_HOME", cache.join("home").to_string_lossy().into_owned()),
    ]
}

fn dead_endpoint() -> String {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    format!("http://127.0.0.1:{}", l.local_addr().unwrap().port())
}

/// A hub that takes every connection and never answers (for at most 30 s).
async fn silent_hub() -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let endpoint = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move {
        let mut held = Vec::new();
        let until = tokio::time::Instant::now() + std::time::Duration::from_secs(30);
        while let Ok(Ok((sock, _))) = tokio::time::timeout_at(until, listener.accept()).await {
            held.push(sock);
        }
    });
    endpoint
}

fn fixture() -> HashMap<String, Vec<u8>> {
    HashMap::from([("tokenizer.json".to_owned(), tokenizer_json())])
}

#[tokio::test]
async fn a_model_id_downloads_counts_exactly_and_is_served_from_the_cache() {
    let (base, hub) = serve(fixture(), Behaviour::default()).await;
    let tmp = temp_dir("tok-hub");
    let cache = tmp.path().join("hf");
    let t = load("open/tiny", &env(&base, &cache)).await.unwrap();
    assert_eq!(t.name(), format!("open/tiny@{COMMIT}"));
    // Whitespace splits `hello world, the fox jumps` into 6 words; `,` and `jumps` are
    // not in the vocabulary.
    assert_eq!(t.encode("hello world, the fox jumps"), [1, 2, 0, 3, 4, 0]);
    assert_eq!(t.count("hello world, the fox jumps"), 6);
    let snapshot = cache.join("models--open--tiny/snapshots").join(COMMIT);
    assert_eq!(
        std::fs::read(snapshot.join("tokenizer.json")).unwrap(),
        tokenizer_json()
    );
    let blob = cache
        .join("models--open--tiny/blobs")
        .join(git_blob_id(&tokenizer_json()));
    assert!(blob.is_file(), "the blob is named by the hub's ETag");
    let asked: Vec<_> = hub
        .seen
        .lock()
        .unwrap()
        .iter()
        .map(|s| s.path.clone())
        .collect();
    assert!(
        asked
            .iter()
            .all(|p| p == "/open/tiny/resolve/main/tokenizer.json"),
        "{asked:?}"
    );

    // The hub gone: the cache answers, without a request.
    let n = hub.seen.lock().unwrap().len();
    let again = load("open/tiny", &env(&dead_endpoint(), &cache))
        .await
        .unwrap();
    assert_eq!(again.name(), t.name());
    assert_eq!(again.count("the fox"), 2);
    assert_eq!(hub.seen.lock().unwrap().len(), n);

    // A pinned revision asks for that revision and records the commit it resolved to.
    let pinned = load("open/tiny@v1.0", &env(&base, &cache)).await.unwrap();
    assert_eq!(pinned.name(), format!("open/tiny@{COMMIT}"));
    assert!(
        hub.seen.lock().unwrap()[n..]
            .iter()
            .all(|s| s.path == "/open/tiny/resolve/v1.0/tokenizer.json")
    );
}

#[tokio::test]
async fn a_gated_model_needs_hf_token_which_never_shows() {
    let (base, hub) = serve(fixture(), Behaviour::default()).await;
    let tmp = temp_dir("tok-gated");
    let cache = tmp.path().join("hf");
    let err = load("gated/tiny", &env(&base, &cache))
        .await
        .unwrap_err()
        .to_string();
    assert_eq!(
        err,
        format!(
            "tokenizer gated/tiny: read as a Hugging Face model id (no file of that name exists): \
             {base}/gated/tiny/resolve/main/tokenizer.json answered HTTP 401: the model is gated: \
             accept its terms on its hub page and set HF_TOKEN (or log in with `hf auth login`)"
        )
    );

    let mut wrong = env(&base, &cache);
    wrong.push(("HF_TOKEN", "hf_wrong_token_456".into()));
    let err = load("gated/tiny", &wrong).await.unwrap_err().to_string();
    assert!(
        err.contains("HTTP 401") && err.contains("has no access"),
        "{err}"
    );
    assert!(
        !err.contains("hf_wrong_token_456") && !err.contains(TOKEN),
        "{err}"
    );

    let mut with_token = env(&base, &cache);
    with_token.push(("HF_TOKEN", TOKEN.into()));
    let t = load("gated/tiny", &with_token).await.unwrap();
    assert_eq!(t.count("hello world"), 2);
    assert!(hub.seen.lock().unwrap().iter().any(|s| s.authorized));

    // The token file `hf auth login` writes works as well as HF_TOKEN.
    let home_tmp = temp_dir("tok-home");
    let home = home_tmp.path();
    std::fs::write(home.join("token"), format!("{TOKEN}\n")).unwrap();
    let file_tmp = temp_dir("tok-gated-file");
    let mut from_file = env(&base, &file_tmp.path().join("hf"));
    from_file.retain(|(k, _)| *k != "HF_HOME");
    from_file.push(("HF_HOME", home.to_string_lossy().into_owned()));
    assert_eq!(
        load("gated/tiny", &from_file).await.unwrap().count("fox"),
        1
    );
}

#[tokio::test]
async fn offline_mode_reads_only_the_cache() {
    let (base, hub) = serve(fixture(), Behaviour::default()).await;
    let tmp = temp_dir("tok-offline");
    let cache = tmp.path().join("hf");
    let mut offline = env(&base, &cache);
    offline.push(("HF_HUB_OFFLINE", "1".into()));
    let err = load("open/tiny", &offline).await.unwrap_err().to_string();
    assert!(
        err.contains(&format!(
            "{base}/open/tiny/resolve/main/tokenizer.json is not in the hub cache ({})",
            cache.display()
        )) && err.contains("HF_HUB_OFFLINE is set"),
        "{err}"
    );
    assert!(hub.seen.lock().unwrap().is_empty(), "offline asks nothing");
    load("open/tiny", &env(&base, &cache)).await.unwrap();
    let n = hub.seen.lock().unwrap().len();
    assert_eq!(load("open/tiny", &offline).await.unwrap().count("the"), 1);
    assert_eq!(hub.seen.lock().unwrap().len(), n);
}

#[tokio::test]
async fn a_missing_tokenizer_or_an_unreachable_hub_says_what_to_do() {
    let (base, _) = serve(HashMap::new(), Behaviour::default()).await;
    let tmp = temp_dir("tok-missing");
    let cache = tmp.path().join("hf");
    let err = load("open/no-tokenizer", &env(&base, &cache))
        .await
        .unwrap_err()
        .to_string();
    assert!(
        err.ends_with(
            "answered HTTP 404: open/no-tokenizer has no tokenizer.json at revision main"
        ),
        "{err}"
    );
    let dead = dead_endpoint();
    let err = load("open/tiny", &env(&dead, &cache))
        .await
        .unwrap_err()
        .to_string();
    assert!(
        err.starts_with(&format!(
            "tokenizer open/tiny: read as a Hugging Face model id (no file of that name exists): could not reach {dead}/open/tiny/resolve/main/tokenizer.json: "
        )) && err.ends_with("set HF_HUB_OFFLINE=1"),
        "{err}"
    );
}

/// A hub that takes the request and never answers: the download is given up after
/// `HF_HUB_DOWNLOAD_TIMEOUT` without progress, instead of hanging the run's start.
#[tokio::test]
async fn a_hub_that_never_answers_is_given_up_after_the_download_timeout() {
    let endpoint = silent_hub().await;
    let tmp = temp_dir("tok-stall");
    let cache = tmp.path().join("hf");
    let mut vars = env(&endpoint, &cache);
    vars.push(("HF_HUB_DOWNLOAD_TIMEOUT", "1".into()));
    let started = std::time::Instant::now();
    let err = load("open/tiny", &vars).await.unwrap_err().to_string();
    let took = started.elapsed();
    assert!(err.contains("no progress for 1 s"), "{err}");
    assert!(err.contains("open/tiny"), "{err}");
    // One second of silence, not an unbounded wait (allowance for a busy machine).
    assert!(took < std::time::Duration::from_secs(10), "{took:?}");
}

/// What [`Tokenizer::from_hub`] reported, with the tokenizer (run on a blocking thread).
async fn load_hearing(
    repo: &'static str,
    revision: Option<&'static str>,
    vars: &[(&'static str, String)],
) -> (Result<Tokenizer, String>, Vec<String>) {
    let vars = vars.to_vec();
    tokio::task::spawn_blocking(move || {
        let env = |k: &str| vars.iter().find(|(n, _)| *n == k).map(|(_, v)| v.clone());
        let heard = std::sync::Mutex::new(Vec::new());
        let t = Tokenizer::from_hub(repo, revision, &Hub::from_env(&env), &|e| {
            if let Event::Message(m) = e {
                heard.lock().unwrap().push(m);
            }
        });
        (t, heard.into_inner().unwrap())
    })
    .await
    .unwrap()
}

const MOVED: &str = "1111111111111111111111111111111111111111";
const REWRITTEN: &str = "2222222222222222222222222222222222222222";

/// A branch is asked for its commit on every load, one `bytes=0-0` request: unchanged, the
/// cache serves it; moved with the file unchanged, the new commit links the cached blob;
/// moved with a new file, that file is downloaded. A commit is never asked for.
#[tokio::test]
async fn a_cached_branch_follows_the_hub_when_it_moves() {
    let tmp = temp_dir("tok-moved");
    let cache = tmp.path().join("hf");
    let models = cache.join("models--open--tiny");
    let (base, hub) = serve(fixture(), Behaviour::default()).await;
    let (first, _) = load_hearing("open/tiny", None, &env(&base, &cache)).await;
    assert_eq!(first.unwrap().name(), format!("open/tiny@{COMMIT}"));

    let n = hub.seen.lock().unwrap().len();
    let (again, heard) = load_hearing("open/tiny", None, &env(&base, &cache)).await;
    assert_eq!(again.unwrap().name(), format!("open/tiny@{COMMIT}"));
    let asked: Vec<_> = hub.seen.lock().unwrap()[n..]
        .iter()
        .map(|s| s.range.clone())
        .collect();
    assert_eq!(
        asked,
        [Some("bytes=0-0".to_owned())],
        "one check, no download"
    );
    assert!(heard.is_empty(), "{heard:?}");

    // The branch moved; tokenizer.json did not change.
    let moved = Behaviour {
        commit: Some(MOVED),
        ..Behaviour::default()
    };
    let (base, hub) = serve(fixture(), moved).await;
    let (t, _) = load_hearing("open/tiny", Some("main"), &env(&base, &cache)).await;
    assert_eq!(t.unwrap().name(), format!("open/tiny@{MOVED}"));
    assert_eq!(hub.seen.lock().unwrap().len(), 1, "linked, not downloaded");
    assert_eq!(
        std::fs::read_to_string(models.join("refs/main")).unwrap(),
        MOVED
    );
    let blob = format!("../../blobs/{}", git_blob_id(&tokenizer_json()));
    for commit in [COMMIT, MOVED] {
        let link = models.join("snapshots").join(commit).join("tokenizer.json");
        assert_eq!(std::fs::read_link(link).unwrap().to_str(), Some(&*blob));
    }

    // The branch moved again, to a commit with another vocabulary.
    let words = word_level(&["fox", "the", "jumps"]);
    let rewritten = Behaviour {
        commit: Some(REWRITTEN),
        ..Behaviour::default()
    };
    let files = HashMap::from([("tokenizer.json".to_owned(), words.clone())]);
    let (base, hub) = serve(files, rewritten).await;
    let (t, _) = load_hearing("open/tiny", None, &env(&base, &cache)).await;
    let t = t.unwrap();
    assert_eq!(t.name(), format!("open/tiny@{REWRITTEN}"));
    assert_eq!(t.encode("the fox jumps hello"), [2, 1, 3, 0]);
    assert!(
        models.join("blobs").join(git_blob_id(&words)).is_file(),
        "downloaded under its own ETag"
    );
    assert_eq!(hub.seen.lock().unwrap().len(), 2, "a check, then the bytes");

    // A commit names fixed bytes: served from the cache without a request.
    let n = hub.seen.lock().unwrap().len();
    let (pinned, _) = load_hearing("open/tiny", Some(COMMIT), &env(&base, &cache)).await;
    let pinned = pinned.unwrap();
    assert_eq!(pinned.name(), format!("open/tiny@{COMMIT}"));
    assert_eq!(pinned.encode("hello fox"), [1, 4]);
    assert_eq!(hub.seen.lock().unwrap().len(), n);
}

/// A hub that cannot be asked (gone, or silent past `HF_HUB_ETAG_TIMEOUT`) leaves the cached
/// copy in use, with a message naming the commit; a hub that says the file is gone from
/// the revision is an error, as in `huggingface_hub`.
#[tokio::test]
async fn a_cached_branch_is_used_when_the_hub_cannot_say_and_refused_when_it_says_gone() {
    let tmp = temp_dir("tok-check");
    let cache = tmp.path().join("hf");
    let (base, _hub) = serve(fixture(), Behaviour::default()).await;
    load_hearing("open/tiny", None, &env(&base, &cache))
        .await
        .0
        .unwrap();

    let dead = dead_endpoint();
    let (t, heard) = load_hearing("open/tiny", None, &env(&dead, &cache)).await;
    assert_eq!(t.unwrap().name(), format!("open/tiny@{COMMIT}"));
    assert_eq!(heard.len(), 1, "{heard:?}");
    assert!(
        heard[0].starts_with(&format!(
            "could not ask {dead}/open/tiny/resolve/main/tokenizer.json whether `main` moved ("
        )) && heard[0].ends_with(&format!("); using the copy cached at commit {COMMIT}")),
        "{heard:?}"
    );

    let silent = silent_hub().await;
    let mut vars = env(&silent, &cache);
    vars.push(("HF_HUB_ETAG_TIMEOUT", "0.5".into()));
    let started = std::time::Instant::now();
    let (t, heard) = load_hearing("open/tiny", None, &vars).await;
    let took = started.elapsed();
    assert_eq!(t.unwrap().name(), format!("open/tiny@{COMMIT}"));
    assert!(
        heard.len() == 1 && heard[0].contains("using the copy cached at commit"),
        "{heard:?}"
    );
    // Half a second of silence, not the 60 s download limit (allowance for a busy machine).
    assert!(took < std::time::Duration::from_secs(10), "{took:?}");

    let (empty, _) = serve(HashMap::new(), Behaviour::default()).await;
    let (t, _) = load_hearing("open/tiny", None, &env(&empty, &cache)).await;
    let err = t.unwrap_err();
    assert!(
        err.ends_with("answered HTTP 404: open/tiny has no tokenizer.json at revision main"),
        "{err}"
    );
}
