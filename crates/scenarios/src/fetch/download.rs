//! One resumable download: GET with redirects followed (the bearer token is sent to the hub's
//! host only), streamed frame by frame into `<file>.part`; an interrupted transfer is resumed
//! with `Range` (and `If-Range` on the ETag), restarted from zero when the server ignores the
//! range or the file changed; the size is checked against `Content-Length`, the sha256
//! against the hub's `X-Linked-Etag` when it is one, and the file renamed into place.

use std::io::{Read, Write};
use std::path::Path;
use std::time::Duration;

use bytes::Bytes;
use http::header::{
    AUTHORIZATION, CONTENT_LENGTH, CONTENT_RANGE, ETAG, HeaderValue, IF_RANGE, LOCATION, RANGE,
};
use http::{HeaderMap, Request, StatusCode, Uri};
use http_body_util::{BodyExt, Empty};
use hyper::body::Incoming;
use hyper_rustls::HttpsConnector;
use hyper_util::client::legacy::Client as HyperClient;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use plateau_core::secret::Secret;
use serde::{Deserialize, Serialize};

use super::{FetchError, Progress, part_path};

/// An HTTP(S) client for downloads.
pub type Client = HyperClient<HttpsConnector<HttpConnector>, Empty<Bytes>>;

/// Longest wait for response headers or for the next body frame.
const IDLE: Duration = Duration::from_secs(60);
const MAX_REDIRECTS: usize = 10;

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

/// The download URL of `file` in dataset `repo` at `revision` on the hub at `endpoint`.
pub fn resolve_url(endpoint: &str, repo: &str, revision: &str, file: &str) -> String {
    format!(
        "{}/datasets/{repo}/resolve/{}/{file}",
        endpoint.trim_end_matches('/'),
        revision.replace('/', "%2F")
    )
}

/// A client for http and https URLs (webpki roots).
pub fn client() -> Result<Client, FetchError> {
    let mut http = HttpConnector::new();
    http.enforce_http(false);
    http.set_connect_timeout(Some(Duration::from_secs(30)));
    let https = hyper_rustls::HttpsConnectorBuilder::new()
        .with_provider_and_webpki_roots(rustls::crypto::ring::default_provider())
        .map_err(|e| FetchError::Protocol {
            url: String::new(),
            message: format!("TLS setup failed: {e}"),
        })?
        .https_or_http()
        .enable_http1()
        .wrap_connector(http);
    Ok(HyperClient::builder(TokioExecutor::new()).build(https))
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
                    (have, info) = (
                        0,
                        PartInfo {
                            url: url.to_owned(),
                            ..PartInfo::default()
                        },
                    );
                    truncate(&part)?;
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
                (have, info) = (
                    0,
                    PartInfo {
                        url: url.to_owned(),
                        ..PartInfo::default()
                    },
                );
                truncate(&part)?;
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

/// Headers of the first hop (the hub's own answer, before any redirect to a CDN).
#[derive(Default)]
struct FirstHop {
    repo_commit: Option<String>,
    etag: Option<String>,
}

/// GET `url` following redirects; sends `Range` from `from` and `If-Range` on `etag`.
async fn get(
    client: &Client,
    url: &str,
    token: Option<&Secret>,
    from: u64,
    etag: Option<&str>,
) -> Result<(hyper::Response<Incoming>, FirstHop), FetchError> {
    let mut uri: Uri = url.parse().map_err(|e| FetchError::Protocol {
        url: url.into(),
        message: format!("not a valid URL: {e}"),
    })?;
    let origin = uri.authority().cloned();
    let mut first = FirstHop::default();
    for _ in 0..MAX_REDIRECTS {
        let mut req = Request::get(uri.clone())
            .header("user-agent", concat!("plateau/", env!("CARGO_PKG_VERSION")));
        if let Some(t) = token.filter(|_| uri.authority() == origin.as_ref()) {
            let mut v = HeaderValue::try_from(format!("Bearer {}", t.expose())).map_err(|_| {
                FetchError::Protocol {
                    url: url.into(),
                    message: "HF_TOKEN is not a valid header value".into(),
                }
            })?;
            v.set_sensitive(true);
            req = req.header(AUTHORIZATION, v);
        }
        if from > 0 {
            req = req.header(RANGE, format!("bytes={from}-"));
            if let Some(e) = etag {
                req = req.header(IF_RANGE, format!("\"{e}\""));
            }
        }
        let req = req.body(Empty::new()).map_err(|e| FetchError::Protocol {
            url: url.into(),
            message: e.to_string(),
        })?;
        let res = match tokio::time::timeout(IDLE, client.request(req)).await {
            Err(_) => {
                return Err(FetchError::Unreachable {
                    url: url.into(),
                    reason: format!("no answer within {}s", IDLE.as_secs()),
                });
            }
            Ok(Err(e)) => {
                return Err(FetchError::Unreachable {
                    url: url.into(),
                    reason: root_cause(&e),
                });
            }
            Ok(Ok(res)) => res,
        };
        let h = res.headers();
        first.repo_commit = first.repo_commit.or_else(|| header(h, "x-repo-commit"));
        first.etag = first
            .etag
            .or_else(|| header(h, "x-linked-etag").map(clean_etag));
        if !res.status().is_redirection() {
            return Ok((res, first));
        }
        let location = header(h, LOCATION.as_str()).ok_or_else(|| FetchError::Protocol {
            url: url.into(),
            message: format!("{} without a Location", res.status()),
        })?;
        uri = join(&uri, &location).ok_or_else(|| FetchError::Protocol {
            url: url.into(),
            message: "a redirect to an invalid URL".into(),
        })?;
    }
    Err(FetchError::Protocol {
        url: url.into(),
        message: format!("more than {MAX_REDIRECTS} redirects"),
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

fn status_error(url: &str, status: StatusCode, with_token: bool) -> FetchError {
    let hint = match status.as_u16() {
        401 | 403 if with_token => ": the token in HF_TOKEN was refused".to_owned(),
        401 | 403 => ": the hub wants a token; set HF_TOKEN".to_owned(),
        404 => ": no such file at this revision (check --revision and HF_ENDPOINT)".to_owned(),
        429 => ": rate limited; wait and run the command again".to_owned(),
        s if s >= 500 => ": the server failed; run the command again later".to_owned(),
        _ => String::new(),
    };
    FetchError::Status {
        url: url.into(),
        status: status.as_u16(),
        hint,
    }
}

/// `(first byte, total)` of `Content-Range: bytes a-b/total`.
fn content_range(h: &HeaderMap) -> Option<(u64, Option<u64>)> {
    let v = header(h, CONTENT_RANGE.as_str())?;
    let (range, total) = v.strip_prefix("bytes ")?.split_once('/')?;
    let start = range.split_once('-')?.0.trim().parse().ok()?;
    Some((start, total.trim().parse().ok()))
}

fn header(h: &HeaderMap, name: &str) -> Option<String> {
    h.get(name).and_then(|v| v.to_str().ok()).map(str::to_owned)
}

fn clean_etag(v: String) -> String {
    v.trim()
        .trim_start_matches("W/")
        .trim_matches('"')
        .to_owned()
}

/// `location` resolved against `base` (absolute, or a path on the same host).
fn join(base: &Uri, location: &str) -> Option<Uri> {
    if location.starts_with("http://") || location.starts_with("https://") {
        return location.parse().ok();
    }
    let scheme = base.scheme_str()?;
    let authority = base.authority()?;
    if location.starts_with('/') {
        format!("{scheme}://{authority}{location}").parse().ok()
    } else {
        let dir = base.path().rsplit_once('/').map_or("", |(d, _)| d);
        format!("{scheme}://{authority}{dir}/{location}")
            .parse()
            .ok()
    }
}

/// The innermost error's message (`Connection refused (os error 111)`).
fn root_cause(e: &(dyn std::error::Error + 'static)) -> String {
    let mut cur = e;
    while let Some(next) = cur.source() {
        cur = next;
    }
    cur.to_string()
}

fn file_len(p: &Path) -> u64 {
    std::fs::metadata(p).map_or(0, |m| m.len())
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_and_headers() {
        assert_eq!(
            resolve_url(
                "http://127.0.0.1:9/",
                "THUDM/LongBench-v2",
                "abc",
                "data.json"
            ),
            "http://127.0.0.1:9/datasets/THUDM/LongBench-v2/resolve/abc/data.json"
        );
        assert_eq!(
            resolve_url("https://h", "o/r", "refs/pr/1", "f"),
            "https://h/datasets/o/r/resolve/refs%2Fpr%2F1/f"
        );
        let mut h = HeaderMap::new();
        h.insert(CONTENT_RANGE, HeaderValue::from_static("bytes 100-199/200"));
        assert_eq!(content_range(&h), Some((100, Some(200))));
        assert_eq!(clean_etag("W/\"abc\"".into()), "abc");
        let base: Uri = "https://hub.example/datasets/a/resolve/r/f"
            .parse()
            .unwrap();
        assert_eq!(
            join(&base, "/api/x").unwrap().to_string(),
            "https://hub.example/api/x"
        );
        assert_eq!(
            join(&base, "https://cdn.example/y?sig=1")
                .unwrap()
                .to_string(),
            "https://cdn.example/y?sig=1"
        );
    }
}
