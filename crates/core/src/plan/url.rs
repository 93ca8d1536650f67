//! Endpoint base URLs, parsed and checked once. A URL may carry credentials: user info
//! (`http://user:pass@host/v1`, sent as HTTP Basic, never in the request URI) and query
//! parameters (`?api-version=...&key=...`, appended to every request). Only
//! [`BaseUrl::join`] builds the real request URI; everything shown ([`BaseUrl::as_str`],
//! `Debug`, error messages, [`mask`]) has the user info and credential-named query values
//! replaced by `***`.

use std::fmt;

use http::Uri;

use plateau_model::secret::forms::{self, is_credential_name};
use plateau_model::secret::{MASK, Secret};

/// The ports a URL may name.
const PORTS: &str = "1 to 65535";

/// A parsed `http(s)://[user:pass@]host[:port]/prefix[?query]`, no trailing slash on the
/// prefix.
#[derive(Clone, PartialEq, Eq)]
pub struct BaseUrl {
    /// `scheme://host[:port]/prefix`: no user info, no query.
    base: String,
    /// The query string as written, without `?`.
    query: Option<String>,
    /// The user info as written (percent-encoded).
    user_info: Option<Secret>,
    /// The URL with its credentials masked.
    shown: String,
}

impl BaseUrl {
    /// Parses and checks an endpoint URL; a URL with no path gets `/v1`. Error messages
    /// show the URL masked.
    pub fn parse(url: &str) -> Result<BaseUrl, String> {
        let uri: Uri = url.parse().map_err(|e| {
            format!(
                "`{}` is not a URL ({e}); expected e.g. http://localhost:8000/v1",
                mask(url)
            )
        })?;
        let scheme = match uri.scheme_str() {
            Some(s @ ("http" | "https")) => s,
            _ => {
                return Err(format!(
                    "`{}` must start with http:// or https://",
                    mask(url)
                ));
            }
        };
        let Some(authority) = uri.authority().map(|a| a.as_str()) else {
            return Err(format!("`{}` has no host", mask(url)));
        };
        if url.contains('#') {
            return Err(format!("`{}` must not carry a #fragment", mask(url)));
        }
        let (user_info, host) = match authority.rsplit_once('@') {
            Some((user, host)) => (Some(user).filter(|u| !u.is_empty()), host),
            None => (None, authority),
        };
        if host.is_empty() {
            return Err(format!("`{}` has no host", mask(url)));
        }
        check_port(&mask(url), host)?;
        let path = match uri.path().trim_end_matches('/') {
            "" => "/v1",
            p => p,
        };
        let base = format!("{scheme}://{host}{path}");
        let query = uri.query().filter(|q| !q.is_empty()).map(str::to_owned);
        let shown = format!(
            "{scheme}://{}{host}{path}{}",
            if user_info.is_some() { "***@" } else { "" },
            query
                .as_deref()
                .map(|q| format!("?{}", mask_query(q)))
                .unwrap_or_default()
        );
        Ok(BaseUrl {
            base,
            query,
            user_info: user_info.map(Secret::new),
            shown,
        })
    }

    /// The URI of `path` (e.g. `chat/completions`) under this base, with the query
    /// string; never the user info.
    pub fn join(&self, path: &str) -> Result<Uri, http::uri::InvalidUri> {
        let path = path.trim_start_matches('/');
        match &self.query {
            Some(q) => format!("{}/{path}?{q}", self.base).parse(),
            None => format!("{}/{path}", self.base).parse(),
        }
    }

    /// The URI of `path` (e.g. `/version`) at the server's root: under this base with a
    /// final `/v1` taken off (`http://h:8000/v1` -> `http://h:8000/version`; a prefix
    /// before it, as a proxy adds, stays), with the query string; never the user info.
    pub fn join_root(&self, path: &str) -> Result<Uri, http::uri::InvalidUri> {
        let path = path.trim_start_matches('/');
        let root = self.base.strip_suffix("/v1").unwrap_or(&self.base);
        match &self.query {
            Some(q) => format!("{root}/{path}?{q}").parse(),
            None => format!("{root}/{path}").parse(),
        }
    }

    /// Whether the scheme is https.
    pub fn is_https(&self) -> bool {
        self.base.starts_with("https://")
    }

    /// Whether the host is this machine (`localhost`, `127.0.0.1`, `[::1]`).
    pub fn is_loopback(&self) -> bool {
        self.base
            .parse::<Uri>()
            .ok()
            .and_then(|u| {
                u.host()
                    .map(|h| matches!(h, "localhost" | "127.0.0.1" | "[::1]"))
            })
            .unwrap_or(false)
    }

    /// `user:password` from the user info, percent-decoded, for HTTP Basic.
    pub fn user_pass(&self) -> Option<Secret> {
        self.user_info
            .as_ref()
            .map(|u| Secret::new(forms::user_pass(u.expose())))
    }

    /// Every secret in the URL: the user info's forms and the values of query parameters
    /// named like credentials.
    pub fn secrets(&self) -> Vec<Secret> {
        let mut out = Vec::new();
        if let Some(u) = &self.user_info {
            out.extend(forms::of_user_info(u.expose()));
        }
        for (name, value) in self.query.iter().flat_map(|q| params(q)) {
            if let Some(value) = value
                && is_credential_name(&forms::percent_decode(name))
            {
                out.extend(forms::of_query_value(value));
            }
        }
        out
    }

    /// The URL as text, credentials masked (`http://***@host:8000/v1?key=***`): the form
    /// for files, logs and messages.
    pub fn as_str(&self) -> &str {
        &self.shown
    }
}

impl fmt::Debug for BaseUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("BaseUrl").field(&self.shown).finish()
    }
}

impl fmt::Display for BaseUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.shown)
    }
}

/// `url` as text with its credentials masked, whether or not it parses: everything
/// between `://` (or the start) and the last `@` before the query, and the values of
/// credential-named query (and fragment) parameters, become `***`.
pub fn mask(url: &str) -> String {
    let (rest, fragment) = match url.split_once('#') {
        Some((r, f)) => (r, Some(f)),
        None => (url, None),
    };
    let (before, query) = match rest.split_once('?') {
        Some((b, q)) => (b, Some(q)),
        None => (rest, None),
    };
    let (scheme, after) = match before.split_once("://") {
        Some((scheme, after)) => (format!("{scheme}://"), after),
        None => (String::new(), before),
    };
    let mut out = match after.rsplit_once('@') {
        Some((_, host)) => format!("{scheme}{MASK}@{host}"),
        None => before.to_owned(),
    };
    if let Some(q) = query {
        out.push('?');
        out.push_str(&mask_query(q));
    }
    if let Some(f) = fragment {
        out.push('#');
        out.push_str(&mask_query(f));
    }
    out
}

/// `name=value&...` with the values of credential-named parameters masked.
fn mask_query(query: &str) -> String {
    params(query)
        .map(|(name, value)| match value {
            Some(_) if is_credential_name(&forms::percent_decode(name)) => {
                format!("{name}={MASK}")
            }
            Some(v) => format!("{name}={v}"),
            None => name.to_owned(),
        })
        .collect::<Vec<_>>()
        .join("&")
}

/// The `name[=value]` pairs of a query string, as written.
fn params(query: &str) -> impl Iterator<Item = (&str, Option<&str>)> {
    query.split('&').map(|p| match p.split_once('=') {
        Some((n, v)) => (n, Some(v)),
        None => (p, None),
    })
}

/// The port of `host`, if written, is a number from 1 to 65535: `http::Uri` accepts
/// `localhost:99999` (and `:80a`) and then reports no port, so the request would go to the
/// scheme's default port instead. `shown` is the URL as errors may show it.
fn check_port(shown: &str, host: &str) -> Result<(), String> {
    let after_host = match host.rfind(']') {
        Some(end) => &host[end + 1..],
        None => host,
    };
    let Some((_, port)) = after_host.rsplit_once(':') else {
        return Ok(());
    };
    if port.is_empty() {
        return Ok(());
    }
    if !port.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!(
            "`{shown}`: port `{port}` is not a number; expected a port from {PORTS}"
        ));
    }
    match port.parse::<u16>() {
        Ok(n) if n >= 1 => Ok(()),
        _ => Err(format!(
            "`{shown}`: port {port} is out of range; expected a port from {PORTS}"
        )),
    }
}

#[cfg(test)]
mod tests;
