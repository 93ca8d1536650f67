//! HTTP for downloads: the client (http and https, webpki roots), the hub's download URL, and
//! [`get`], a GET that follows redirects, sends the bearer token to the hub's own host only,
//! asks for a byte range, and keeps the hub's `X-Repo-Commit` and `X-Linked-Etag` headers.

use std::time::Duration;

use bytes::Bytes;
use http::header::{AUTHORIZATION, CONTENT_RANGE, HeaderValue, IF_RANGE, LOCATION, RANGE};
use http::{HeaderMap, Request, StatusCode, Uri};
use http_body_util::Empty;
use hyper::body::Incoming;
use hyper_rustls::HttpsConnector;
use hyper_util::client::legacy::Client as HyperClient;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use plateau_core::secret::Secret;

use super::FetchError;

/// Longest wait for response headers or for the next body frame.
pub const IDLE: Duration = Duration::from_secs(60);
const MAX_REDIRECTS: usize = 10;

/// An HTTP(S) client for downloads.
pub type Client = HyperClient<HttpsConnector<HttpConnector>, Empty<Bytes>>;

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

/// Headers of the first hop (the hub's own answer, before any redirect to a CDN).
#[derive(Default)]
pub struct FirstHop {
    /// `X-Repo-Commit`.
    pub repo_commit: Option<String>,
    /// `X-Linked-Etag`, unquoted.
    pub etag: Option<String>,
}

/// GET `url` following redirects; sends `Range` from `from` and `If-Range` on `etag`.
pub async fn get(
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

/// The error for an unexpected status.
pub fn status_error(url: &str, status: StatusCode, with_token: bool) -> FetchError {
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
pub fn content_range(h: &HeaderMap) -> Option<(u64, Option<u64>)> {
    let v = header(h, CONTENT_RANGE.as_str())?;
    let (range, total) = v.strip_prefix("bytes ")?.split_once('/')?;
    let start = range.split_once('-')?.0.trim().parse().ok()?;
    Some((start, total.trim().parse().ok()))
}

/// A header's value as text.
pub fn header(h: &HeaderMap, name: &str) -> Option<String> {
    h.get(name).and_then(|v| v.to_str().ok()).map(str::to_owned)
}

/// An ETag without quotes or `W/`.
pub fn clean_etag(v: String) -> String {
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
pub fn root_cause(e: &(dyn std::error::Error + 'static)) -> String {
    let mut cur = e;
    while let Some(next) = cur.source() {
        cur = next;
    }
    cur.to_string()
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
