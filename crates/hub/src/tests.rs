//! The hub against its environment and cache, without a network.

use super::*;

use super::env::tests::env;

/// A model's tokenizer at a pull request's revision (a `/` to escape in URLs).
pub(crate) const PR_TOKENIZER: RepoFile<'static> = RepoFile {
    repo: "o/m",
    kind: Kind::Model,
    revision: "refs/pr/1",
    file: "tokenizer.json",
};

#[test]
fn urls_commits_and_hints() {
    let hub = Hub::from_env(&env(&[("HF_ENDPOINT", "http://127.0.0.1:9/")]));
    let f = RepoFile {
        repo: "THUDM/LongBench-v2",
        kind: Kind::Dataset,
        revision: "abc",
        file: "data.json",
    };
    assert_eq!(
        hub.url(&f),
        "http://127.0.0.1:9/datasets/THUDM/LongBench-v2/resolve/abc/data.json"
    );
    let m = PR_TOKENIZER;
    assert_eq!(
        hub.url(&m),
        "http://127.0.0.1:9/o/m/resolve/refs%2Fpr%2F1/tokenizer.json"
    );
    assert_eq!(
        commit_of(Path::new(
            "/c/models--o--m/snapshots/0123abc/sub/tokenizer.json"
        )),
        Some("0123abc".into())
    );
    assert_eq!(commit_of(Path::new("/c/tokenizer.json")), None);
}
