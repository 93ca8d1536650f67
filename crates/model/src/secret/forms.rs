//! Which names carry credentials and which strings of a credential are secrets: the whole
//! header value and the credential after its auth scheme (`Bearer X`, `Token X`, any
//! `<scheme> <credential>`); for `Basic`, also the decoded `user:pass` and the password;
//! for cookies, each cookie's value; for URL user info, the text as written, `user:pass`
//! decoded, the password and the base64 sent; for a query value, the value as written and
//! percent-decoded.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;

use super::Secret;

/// Name fragments that mark a header or query parameter as a credential
/// (case-insensitive): `Authorization`, `X-Api-Key`, `api_key`, `access_token`, `sig`, ...
const CREDENTIAL_PARTS: &[&str] = &[
    "auth",
    "key",
    "token",
    "secret",
    "passw",
    "pwd",
    "cookie",
    "session",
    "credential",
    "sig",
];

/// Whole names that are credentials too (OAuth's `code`, `pass`, `jwt`).
const CREDENTIAL_NAMES: &[&str] = &["code", "pass", "jwt"];

/// Whether a header or query parameter named `name` carries a credential. Errs towards
/// yes: a false alarm only hides a value.
pub fn is_credential_name(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    CREDENTIAL_PARTS.iter().any(|p| n.contains(p)) || CREDENTIAL_NAMES.contains(&n.as_str())
}

/// The secrets of the value of header `name` (a credential header).
pub fn of_header(name: &str, value: &str) -> Vec<Secret> {
    let value = value.trim();
    let mut out = vec![Secret::new(value)];
    if let Some((scheme, credential)) = value.split_once(char::is_whitespace)
        && is_scheme(scheme)
    {
        let credential = credential.trim();
        out.push(Secret::new(credential));
        if scheme.eq_ignore_ascii_case("basic")
            && let Ok(plain) = STANDARD.decode(credential)
            && let Ok(plain) = String::from_utf8(plain)
        {
            if let Some((_, password)) = plain.split_once(':') {
                out.push(Secret::new(password));
            }
            out.push(Secret::new(plain));
        }
    }
    if name.to_ascii_lowercase().contains("cookie") {
        for (_, v) in value.split(';').filter_map(|c| c.split_once('=')) {
            out.push(Secret::new(v.trim()));
        }
    }
    without_empty(out)
}

/// The secrets of URL user info as written in the URL (`user:pa%40ss`).
pub fn of_user_info(raw: &str) -> Vec<Secret> {
    let plain = user_pass(raw);
    let credential = match raw.split_once(':') {
        Some((_, password)) => percent_decode(password),
        // A lone name is a token (`https://TOKEN@host`).
        None => percent_decode(raw),
    };
    without_empty(vec![
        Secret::new(raw),
        Secret::new(basic(&plain)),
        Secret::new(credential),
        Secret::new(plain),
    ])
}

/// The secrets of a query value as written in the URL.
pub fn of_query_value(raw: &str) -> Vec<Secret> {
    without_empty(vec![Secret::new(raw), Secret::new(percent_decode(raw))])
}

/// The `user:password` of user info as written in a URL, percent-decoded (a lone name
/// gets the `:` curl gives it).
pub fn user_pass(raw: &str) -> String {
    match raw.split_once(':') {
        Some((user, password)) => format!("{}:{}", percent_decode(user), percent_decode(password)),
        None => format!("{}:", percent_decode(raw)),
    }
}

/// The base64 of `user:password`, as HTTP Basic sends it.
pub fn basic(user_pass: &str) -> String {
    STANDARD.encode(user_pass)
}

/// `%XX` escapes decoded; an invalid escape is kept as written; invalid UTF-8 is replaced.
pub fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .filter(|h| h.iter().all(u8::is_ascii_hexdigit))
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (bytes[i], hex) {
            (b'%', Some(b)) => {
                out.push(b);
                i += 3;
            }
            (b, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// An auth scheme: one token of letters, digits and `-` (`Bearer`, `Basic`, `Token`).
fn is_scheme(s: &str) -> bool {
    !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
}

/// `secrets` without empty strings and repeats.
fn without_empty(secrets: Vec<Secret>) -> Vec<Secret> {
    let mut out: Vec<Secret> = Vec::with_capacity(secrets.len());
    for s in secrets {
        if !s.expose().is_empty() && !out.contains(&s) {
            out.push(s);
        }
    }
    out
}
