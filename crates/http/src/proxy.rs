//! Proxies as curl and its peers take them ([`Proxies::from_env`]): `https_proxy` /
//! `HTTPS_PROXY` for https origins, `http_proxy` / `HTTP_PROXY` for http ones (the
//! upper-case `HTTP_PROXY` is ignored under CGI, where a request header can set it),
//! `ALL_PROXY` / `all_proxy` for either, and `NO_PROXY` / `no_proxy` ([`NoProxy`]); an
//! endpoint's own proxy wins over all of them. A [`Proxy`] is an HTTP proxy (`http://`:
//! a CONNECT tunnel for https, and for plain http when `tunnel` is set; else plain http
//! goes to it in absolute form) or SOCKS5 (`socks5://`, names resolved here;
//! `socks5h://`, by the proxy). Credentials in its URL are kept as secrets: never shown
//! ([`Proxy::shown`]), sent only to the proxy. Connecting through it ([`connect`]) is
//! part of opening a connection, so it is timed with it and never reaches TTFT.

mod connect;
mod no_proxy;

pub use connect::connect;
pub use no_proxy::NoProxy;

use std::fmt;

use http::HeaderValue;

/// What speaks to the proxy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// An HTTP proxy (`http://`).
    Http,
    /// SOCKS5, host names resolved by plateau (`socks5://`) or by the proxy
    /// (`socks5h://`).
    Socks5 {
        /// The proxy resolves names.
        remote_dns: bool,
    },
}

/// A proxy.
#[derive(Clone, PartialEq, Eq)]
pub struct Proxy {
    /// HTTP or SOCKS5.
    pub kind: Kind,
    /// Its host.
    pub host: String,
    /// Its port.
    pub port: u16,
    /// User and password from its URL, percent-decoded.
    pub auth: Option<(String, String)>,
    /// A CONNECT tunnel for plain http too (an HTTP proxy; https always tunnels).
    pub tunnel: bool,
}

/// Why a proxy setting cannot be used.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ProxyError(pub String);

impl Proxy {
    /// The proxy at `url` (`http://[user:password@]host[:port]`, `socks5://...`,
    /// `socks5h://...`; a URL without a scheme is `http://`), tunnelling plain http too
    /// when `tunnel`.
    pub fn parse(url: &str, tunnel: bool) -> Result<Proxy, ProxyError> {
        let with_scheme = if url.contains("://") {
            url.to_owned()
        } else {
            format!("http://{url}")
        };
        let bad = |why: &str| ProxyError(format!("`{}`: {why}", redact(url)));
        let parsed = url::Url::parse(&with_scheme).map_err(|e| bad(&e.to_string()))?;
        let (kind, default_port) = match parsed.scheme() {
            "http" => (Kind::Http, 80),
            "socks5" => (Kind::Socks5 { remote_dns: false }, 1080),
            "socks5h" => (Kind::Socks5 { remote_dns: true }, 1080),
            "https" => {
                return Err(bad(
                    "a proxy spoken to over TLS (https://) is not supported; use its http:// \
                     address (https requests still tunnel through it end to end)",
                ));
            }
            other => {
                return Err(bad(&format!(
                    "unknown proxy scheme `{other}`; expected http, socks5 or socks5h"
                )));
            }
        };
        let host = parsed
            .host_str()
            .filter(|h| !h.is_empty())
            .ok_or_else(|| bad("no host"))?
            .trim_start_matches('[')
            .trim_end_matches(']')
            .to_owned();
        let decode = |s: &str| {
            percent_encoding::percent_decode_str(s)
                .decode_utf8_lossy()
                .into_owned()
        };
        let auth = (!parsed.username().is_empty()).then(|| {
            (
                decode(parsed.username()),
                decode(parsed.password().unwrap_or("")),
            )
        });
        Ok(Proxy {
            kind,
            host,
            port: parsed.port().unwrap_or(default_port),
            auth,
            tunnel,
        })
    }

    /// The proxy's URL without its credentials (`***` in their place), for messages and
    /// result files.
    pub fn shown(&self) -> String {
        let scheme = match self.kind {
            Kind::Http => "http",
            Kind::Socks5 { remote_dns: false } => "socks5",
            Kind::Socks5 { remote_dns: true } => "socks5h",
        };
        let auth = if self.auth.is_some() { "***@" } else { "" };
        let host = if self.host.contains(':') {
            format!("[{}]", self.host)
        } else {
            self.host.clone()
        };
        format!("{scheme}://{auth}{host}:{}", self.port)
    }

    /// The secrets in its URL: the password, and the `Proxy-Authorization` value sent.
    pub fn secrets(&self) -> Vec<String> {
        let Some((user, password)) = &self.auth else {
            return Vec::new();
        };
        let mut out = vec![basic(user, password)];
        if !password.is_empty() {
            out.push(password.clone());
        }
        out
    }

    /// The `Proxy-Authorization` header its credentials make (HTTP proxies).
    pub(crate) fn authorization(&self) -> Option<HeaderValue> {
        let (user, password) = self.auth.as_ref()?;
        let mut value = HeaderValue::from_str(&format!("Basic {}", basic(user, password))).ok()?;
        value.set_sensitive(true);
        Some(value)
    }

    /// Whether a request to an origin (`https` or not) goes through a CONNECT tunnel.
    pub(crate) fn tunnels(&self, https: bool) -> bool {
        self.kind == Kind::Http && (https || self.tunnel)
    }
}

impl fmt::Debug for Proxy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.shown())
    }
}

/// `user:password` in base64 (Basic authentication).
fn basic(user: &str, password: &str) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.encode(format!("{user}:{password}"))
}

/// `url` with any user info replaced by `***`.
pub fn redact(url: &str) -> String {
    let (scheme, rest) = url.split_once("://").unwrap_or(("", url));
    let authority_end = rest.find('/').unwrap_or(rest.len());
    match rest[..authority_end].rfind('@') {
        Some(at) => {
            let lead = if scheme.is_empty() {
                String::new()
            } else {
                format!("{scheme}://")
            };
            format!("{lead}***@{}", &rest[at + 1..])
        }
        None => url.to_owned(),
    }
}

/// Which proxy each origin goes through, as the environment says.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Proxies {
    http: Option<Proxy>,
    https: Option<Proxy>,
    no: NoProxy,
}

impl Proxies {
    /// No proxy for anything.
    pub fn none() -> Proxies {
        Proxies::default()
    }

    /// The proxies of the environment as `env` reads it; an error names the variable that
    /// cannot be used.
    pub fn from_env(env: &dyn Fn(&str) -> Option<String>) -> Result<Proxies, ProxyError> {
        let first = |names: &[&'static str]| {
            names
                .iter()
                .find_map(|n| env(n).filter(|v| !v.trim().is_empty()).map(|v| (*n, v)))
        };
        let cgi = env("REQUEST_METHOD").is_some();
        let http_names: &[&str] = if cgi {
            &["http_proxy"]
        } else {
            &["http_proxy", "HTTP_PROXY"]
        };
        let parse = |found: Option<(&str, String)>| -> Result<Option<Proxy>, ProxyError> {
            found
                .map(|(name, v)| {
                    Proxy::parse(v.trim(), false).map_err(|e| ProxyError(format!("{name}: {e}")))
                })
                .transpose()
        };
        let all = parse(first(&["all_proxy", "ALL_PROXY"]))?;
        Ok(Proxies {
            http: parse(first(http_names))?.or_else(|| all.clone()),
            https: parse(first(&["https_proxy", "HTTPS_PROXY"]))?.or(all),
            no: first(&["no_proxy", "NO_PROXY"])
                .map_or_else(NoProxy::default, |(_, v)| NoProxy::parse(&v)),
        })
    }

    /// The proxy for `host:port` (`https` or not), unless `NO_PROXY` lets it go direct.
    pub fn for_origin(&self, https: bool, host: &str, port: u16) -> Option<&Proxy> {
        let proxy = if https { &self.https } else { &self.http };
        proxy.as_ref().filter(|_| !self.no.matches(host, port))
    }

    /// Every proxy named, for its secrets.
    pub fn all(&self) -> impl Iterator<Item = &Proxy> {
        self.http.iter().chain(self.https.iter())
    }
}

#[cfg(test)]
mod tests;
