//! Endpoint base URLs: parsed and checked once, joined with API paths.

use http::Uri;

/// The ports a URL may name.
const PORTS: &str = "1 to 65535";

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
        let Some(authority) = uri.authority() else {
            return Err(format!("`{url}` has no host"));
        };
        check_port(url, authority.as_str())?;
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

/// The port of `authority`, if written, is a number from 1 to 65535: `http::Uri` accepts
/// `localhost:99999` (and `:80a`) and then reports no port, so the request would go to the
/// scheme's default port instead.
fn check_port(url: &str, authority: &str) -> Result<(), String> {
    let host_port = authority.rsplit('@').next().unwrap_or(authority);
    let after_host = match host_port.rfind(']') {
        Some(end) => &host_port[end + 1..],
        None => host_port,
    };
    let Some((_, port)) = after_host.rsplit_once(':') else {
        return Ok(());
    };
    if port.is_empty() {
        return Ok(());
    }
    if !port.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!(
            "`{url}`: port `{port}` is not a number; expected a port from {PORTS}"
        ));
    }
    match port.parse::<u16>() {
        Ok(n) if n >= 1 => Ok(()),
        _ => Err(format!(
            "`{url}`: port {port} is out of range; expected a port from {PORTS}"
        )),
    }
}
