//! Endpoint base URLs: parsed and checked once, joined with API paths.

use http::Uri;

/// A parsed `http(s)://host[:port]/prefix` with no trailing slash.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BaseUrl(String);

impl BaseUrl {
    /// Parses and checks an endpoint URL; a URL with no path gets `/v1`.
    pub fn parse(url: &str) -> Result<BaseUrl, String> {
        let uri: Uri = url.parse().map_err(|e| {
            format!("`{url}` is not a URL ({e}); expected e.g. http://localhost:8000/v1")
        })?;
        match uri.scheme_str() {
            Some("http" | "https") => {}
            _ => return Err(format!("`{url}` must start with http:// or https://")),
        }
        if uri.authority().is_none() {
            return Err(format!("`{url}` has no host"));
        }
        if uri.query().is_some() {
            return Err(format!("`{url}` must not carry a query string"));
        }
        let trimmed = url.trim_end_matches('/');
        let path = uri.path().trim_end_matches('/');
        Ok(BaseUrl(if path.is_empty() {
            format!("{trimmed}/v1")
        } else {
            trimmed.to_owned()
        }))
    }

    /// The URI of `path` (e.g. `chat/completions`) under this base.
    pub fn join(&self, path: &str) -> Result<Uri, http::uri::InvalidUri> {
        format!("{}/{}", self.0, path.trim_start_matches('/')).parse()
    }

    /// Whether the scheme is https.
    pub fn is_https(&self) -> bool {
        self.0.starts_with("https://")
    }

    /// The URL as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}
