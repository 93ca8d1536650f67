//! Transfers that break off, against the local hub: an interrupted download resumes on the
//! next run, a retry asks for a fresh CDN URL, a server that ignores the range gets a clean
//! restart, and a download another process holds is not written twice.

use std::sync::atomic::AtomicUsize;

use plateau_scenarios::fetch::{Dataset, fetch};

use crate::common::temp_dir;
use crate::fetch::{Messages, blobs, files, longbench_once, options, with_suffix};
use crate::hub::{Behaviour, TOKEN, serve, sha256};

#[tokio::test]
async fn an_interrupted_transfer_resumes_on_the_next_run() {
    let behaviour = Behaviour {
        drop_bodies: AtomicUsize::new(1),
        ..Behaviour::default()
    };
    let (base, fixture) = serve(files(), behaviour).await;
    let tmp = temp_dir("fetch-resume");
    let dir = tmp.path();
    let log = Messages::default();
    let err = fetch(Dataset::Longbench, &options(dir, &base, 1), &log)
        .await
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("was interrupted after")
            && err.ends_with("run the command again to resume it"),
        "{err}"
    );
    let size = fixture.files["data.json"].len() as u64;
    let parts = with_suffix(&blobs(dir, Dataset::Longbench), ".part");
    assert_eq!(parts.len(), 1, "{parts:?}");
    let part = std::fs::metadata(&parts[0]).unwrap().len();
    assert_eq!(part, size / 2);
    assert!(
        err.contains(&format!("after {part} of {size} bytes")),
        "{err}"
    );

    let done = fetch(Dataset::Longbench, &options(dir, &base, 1), &log)
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

/// A retry asks the hub for the file's location again: the CDN URL of the first attempt is
/// signed for a while only, and here it is refused once used.
#[tokio::test]
async fn a_retry_asks_for_a_fresh_cdn_url() {
    let behaviour = Behaviour {
        drop_bodies: AtomicUsize::new(1),
        signed_once: true,
        ..Behaviour::default()
    };
    let (base, fixture) = serve(files(), behaviour).await;
    let tmp = temp_dir("fetch-signed");
    let dir = tmp.path();
    let log = Messages::default();
    let done = fetch(Dataset::Longbench, &options(dir, &base, 2), &log)
        .await
        .unwrap();
    let size = fixture.files["data.json"].len();
    assert_eq!(done.manifest.sha256, sha256(&fixture.files["data.json"]));
    assert_eq!(done.resumed_from, 0);
    let cdn: Vec<_> = fixture
        .seen
        .lock()
        .unwrap()
        .iter()
        .filter(|s| s.path.starts_with("/cdn/"))
        .map(|s| (s.path.clone(), s.range.clone()))
        .collect();
    assert_eq!(
        cdn,
        [
            (
                "/cdn/data.json?sig=0".to_owned(),
                Some("bytes=0-".to_owned())
            ),
            (
                "/cdn/data.json?sig=1".to_owned(),
                Some(format!("bytes={}-", size / 2))
            ),
        ],
        "{}",
        log.all()
    );

    // Here every URL is used up by the size probe (no `X-Linked-Size`): the CDN's refusal
    // is retried, then reported as the CDN's, not as a refused token.
    let behaviour = Behaviour {
        signed_once: true,
        no_linked_size: true,
        ..Behaviour::default()
    };
    let (base, _) = serve(files(), behaviour).await;
    let tmp = temp_dir("fetch-expired");
    let log = Messages::default();
    let err = fetch(Dataset::Longbench, &options(tmp.path(), &base, 2), &log)
        .await
        .unwrap_err()
        .to_string();
    assert!(
        err.ends_with(
            "data.json answered HTTP 403: that is the answer of localhost, where the hub sent \
             the download, not of the hub (no token goes there); run the command again for a \
             fresh URL"
        ),
        "{err}"
    );
    assert!(
        log.all()
            .contains("HTTP 403 from localhost; trying again in 0.3 s"),
        "{}",
        log.all()
    );
}

#[tokio::test]
async fn a_server_that_ignores_the_range_gets_a_clean_restart() {
    let behaviour = Behaviour {
        drop_bodies: AtomicUsize::new(1),
        ignore_range: true,
        ..Behaviour::default()
    };
    let (base, fixture) = serve(files(), behaviour).await;
    let tmp = temp_dir("fetch-restart");
    let dir = tmp.path();
    let log = Messages::default();
    let done = fetch(Dataset::Oasst2, &options(dir, &base, 2), &log)
        .await
        .unwrap();
    assert_eq!(
        done.manifest.sha256,
        sha256(&fixture.files[Dataset::Oasst2.file()])
    );
    // The whole file answering a resume is seen and the partial file emptied, not appended
    // to and caught later by the checksum.
    assert!(
        log.all()
            .contains("ignored the resume and sent the whole file; restarting from zero"),
        "{}",
        log.all()
    );
    assert!(!log.all().contains("checksum"), "{}", log.all());
    assert_eq!(done.manifest.records, 2);
}

/// A download another process holds the lock of is refused, naming the lock, and nothing
/// is written beside it.
#[tokio::test]
async fn a_download_another_process_holds_is_not_written_twice() {
    let (base, fixture) = serve(files(), Behaviour::default()).await;
    let tmp = temp_dir("fetch-locked");
    let dir = tmp.path();
    let blobs = blobs(dir, Dataset::Longbench);
    std::fs::create_dir_all(&blobs).unwrap();
    let lock = blobs.join(format!("{}.lock", sha256(&fixture.files["data.json"])));
    let held = std::fs::File::create(&lock).unwrap();
    held.try_lock().unwrap();
    let err = longbench_once(dir, &base).await.unwrap_err().to_string();
    assert!(
        err.contains("another process is downloading this file")
            && err.contains(&lock.display().to_string()),
        "{err}"
    );
    assert_eq!(
        std::fs::read_dir(&blobs).unwrap().count(),
        1,
        "only the lock"
    );
    drop(held);
    let done = longbench_once(dir, &base).await.unwrap();
    assert_eq!(done.manifest.sha256, sha256(&fixture.files["data.json"]));
}
