//! One resumable download: GET with redirects followed (the bearer token is sent to the hub's
//! host only), streamed frame by frame into `<file>.part`; an interrupted transfer is resumed
//! with `Range` (and `If-Range` on the ETag), restarted from zero when the server ignores the
//! range or the file changed; the size is checked against `Content-Length`, the sha256
//! against the hub's `X-Linked-Etag` when it is one, and the file renamed into place.

use std::io::{Read, Write};
use std::path::Path;

use http::StatusCode;
use http::header::{CONTENT_LENGTH, ETAG};
use http_body_util::BodyExt;
use hyper::body::Incoming;
use plateau_core::secret::Secret;
use serde::{Deserialize, Serialize};

use super::hub::{Client, IDLE, clean_etag, content_range, get, header, root_cause, status_error};
use super::{FetchError, Progress, part_path};

/// What a download produced.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Downloaded {
    /// File size.
    pub bytes: u64,
    /// sha256 of the file, lowercase hex.
    pub sha256: String,
    /// The hub's `X-Repo-Commit` header: the commit the revision resolved to.
    pub repo_commit: Option<String>,
    /// The file's ETag (`X-Linked-Etag` on the hub: its sha256 for large files).
    pub etag: Option<String>,
    /// Bytes reused from an earlier interrupted transfer.
    pub resumed_from: u64,
}

/// What is known about a `.part` file, kept beside it as `.part.json`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
struct PartInfo {
    url: String,
    etag: Option<String>,
    total: Option<u64>,
    repo_commit: Option<String>,
}

/// Downloads `url` to `dest`, resuming a `.part` left by an earlier run, with up to
/// `attempts` tries in this call.
pub async fn download(
    client: &Client,
    url: &str,
    dest: &Path,
    token: Option<&Secret>,
    attempts: u32,
    progress: &dyn Progress,
) -> Result<Downloaded, FetchError> {
    let part = part_path(dest);
    let info_path = {
        let mut s = part.as_os_str().to_owned();
        s.push(".json");
        std::path::PathBuf::from(s)
    };
    let mut info: PartInfo = std::fs::read(&info_path)
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .filter(|i: &PartInfo| i.url == url)
        .unwrap_or_else(|| PartInfo {
            url: url.to_owned(),
            ..PartInfo::default()
        });
    let mut have = if info.etag.is_some() || info.total.is_some() {
        file_len(&part)
    } else {
        0
    };
    if have == 0 {
        truncate(&part)?;
    }
    let resumed_from = have;
    let mut last_error = None;
    for attempt in 0..attempts {
        if attempt > 0 || have > 0 {
            progress.message(&format!("resuming {url} at {have} bytes"));
        }
        let (response, first) = get(client, url, token, have, info.etag.as_deref()).await?;
        let status = response.status();
        let headers = response.headers().clone();
        match status {
            StatusCode::PARTIAL_CONTENT => {
                let (start, total) =
                    content_range(&headers).ok_or_else(|| FetchError::Protocol {
                        url: url.into(),
                        message: "206 without a valid Content-Range".into(),
                    })?;
                if start != have || info.total.is_some_and(|t| Some(t) != total) {
                    progress.message(
                        "the server's range does not match the partial file; restarting from zero",
                    );
                    (have, info) = restart(url, &part)?;
                    continue;
                }
                info.total = total;
            }
            StatusCode::OK => {
                if have > 0 {
                    progress.message("the server sent the whole file (range ignored or file changed); restarting from zero");
                    have = 0;
                    truncate(&part)?;
                }
                info.total = header(&headers, CONTENT_LENGTH.as_str()).and_then(|v| v.parse().ok());
            }
            StatusCode::RANGE_NOT_SATISFIABLE if have > 0 && info.total == Some(have) => {
                return finish(url, dest, &part, &info_path, info, resumed_from, progress);
            }
            StatusCode::RANGE_NOT_SATISFIABLE => {
                (have, info) = restart(url, &part)?;
                continue;
            }
            s => return Err(status_error(url, s, token.is_some())),
        }
        info.etag = first
            .etag
            .or_else(|| header(&headers, ETAG.as_str()).map(clean_etag));
        info.repo_commit = first.repo_commit.or(info.repo_commit);
        write_info(&info_path, &info)?;
        progress.start(info.total, have);
        match receive(response, &part, &mut have, progress).await {
            Ok(()) if info.total.is_none_or(|t| t == have) => {
                progress.finish();
                return finish(url, dest, &part, &info_path, info, resumed_from, progress);
            }
            Ok(()) => last_error = Some(format!("the connection closed early at {have} bytes")),
            Err(reason) => last_error = Some(reason),
        }
        progress.finish();
    }
    Err(FetchError::Interrupted {
        url: url.into(),
        got: have,
        total: info.total,
        reason: last_error.unwrap_or_default(),
    })
}

/// Appends the body to `part`, counting into `have`; `Err` says why it broke off.
async fn receive(
    response: hyper::Response<Incoming>,
    part: &Path,
    have: &mut u64,
    progress: &dyn Progress,
) -> Result<(), String> {
    let file = std::fs::OpenOptions::new()
        .append(true)
        .create(true)
        .open(part)
        .map_err(|e| format!("{}: {e}", part.display()))?;
    let mut out = std::io::BufWriter::with_capacity(1 << 20, file);
    let mut body = response.into_body();
    let result = loop {
        match tokio::time::timeout(IDLE, body.frame()).await {
            Err(_) => break Err(format!("no data for {}s", IDLE.as_secs())),
            Ok(None) => break Ok(()),
            Ok(Some(Err(e))) => break Err(root_cause(&e)),
            Ok(Some(Ok(frame))) => {
                if let Some(data) = frame.data_ref() {
                    if let Err(e) = out.write_all(data) {
                        break Err(format!("{}: {e}", part.display()));
                    }
                    *have += data.len() as u64;
                    progress.advance(data.len() as u64);
                }
            }
        }
    };
    out.flush()
        .map_err(|e| format!("{}: {e}", part.display()))?;
    result
}

/// Checks the complete `.part` and renames it to `dest`.
fn finish(
    url: &str,
    dest: &Path,
    part: &Path,
    info_path: &Path,
    info: PartInfo,
    resumed_from: u64,
    progress: &dyn Progress,
) -> Result<Downloaded, FetchError> {
    progress.message(&format!("checking {}", part.display()));
    let bytes = file_len(part);
    if let Some(total) = info.total.filter(|&t| t != bytes) {
        return Err(FetchError::Interrupted {
            url: url.into(),
            got: bytes,
            total: Some(total),
            reason: "size differs from Content-Length".into(),
        });
    }
    let sha256 = sha256_file(part)?;
    if let Some(expected) = info
        .etag
        .as_ref()
        .filter(|e| e.len() == 64 && e.chars().all(|c| c.is_ascii_hexdigit()))
        && !expected.eq_ignore_ascii_case(&sha256)
    {
        let _ = std::fs::remove_file(part);
        let _ = std::fs::remove_file(info_path);
        return Err(FetchError::Checksum {
            url: url.into(),
            expected: expected.clone(),
            got: sha256,
        });
    }
    std::fs::File::open(part)
        .and_then(|f| f.sync_all())
        .map_err(|e| FetchError::io(part, e))?;
    std::fs::rename(part, dest).map_err(|e| FetchError::io(dest, e))?;
    let _ = std::fs::remove_file(info_path);
    Ok(Downloaded {
        bytes,
        sha256,
        repo_commit: info.repo_commit,
        etag: info.etag,
        resumed_from,
    })
}

fn sha256_file(path: &Path) -> Result<String, FetchError> {
    let mut f = std::fs::File::open(path).map_err(|e| FetchError::io(path, e))?;
    let mut ctx = ring::digest::Context::new(&ring::digest::SHA256);
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let n = f.read(&mut buf).map_err(|e| FetchError::io(path, e))?;
        if n == 0 {
            break;
        }
        ctx.update(&buf[..n]);
    }
    Ok(ctx
        .finish()
        .as_ref()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect())
}

fn file_len(p: &Path) -> u64 {
    std::fs::metadata(p).map_or(0, |m| m.len())
}

/// Empties the partial file and forgets what was known of it: the next request starts at 0.
fn restart(url: &str, part: &Path) -> Result<(u64, PartInfo), FetchError> {
    truncate(part)?;
    Ok((
        0,
        PartInfo {
            url: url.to_owned(),
            ..PartInfo::default()
        },
    ))
}

fn truncate(p: &Path) -> Result<(), FetchError> {
    std::fs::File::create(p)
        .map(drop)
        .map_err(|e| FetchError::io(p, e))
}

fn write_info(path: &Path, info: &PartInfo) -> Result<(), FetchError> {
    let json = serde_json::to_vec(info).map_err(|e| FetchError::io(path, e.into()))?;
    std::fs::write(path, json).map_err(|e| FetchError::io(path, e))
}
