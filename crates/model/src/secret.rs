//! Credentials that never print: a [`Secret`] shows `***` in `Debug` and `Display`, and
//! [`scrub`] removes every known secret from text bound for a log, a result file or an
//! error. [`forms`] says which strings of a credential count as secrets (the bare token
//! inside `Bearer ...`, the decoded `user:pass` of Basic, a query value as sent and
//! decoded).
//!
//! The length rule: a secret shorter than [`MIN_SCRUB_LEN`] characters is still never
//! printed by plateau (URLs and headers are masked by their structure, not by searching),
//! but it is not searched for in server text: replacing every `ab` would wreck the text.
//! The plan warns about such credentials.

use std::borrow::Cow;
use std::fmt;

pub mod forms;

/// The shortest secret searched for in text.
pub const MIN_SCRUB_LEN: usize = 4;

/// What a secret is replaced with.
pub const MASK: &str = "***";

/// An API key or other credential.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    /// Wraps `value`.
    pub fn new(value: impl Into<String>) -> Self {
        Secret(value.into())
    }

    /// The value, for the one place that sends it (a request header or URI).
    pub fn expose(&self) -> &str {
        &self.0
    }

    /// Whether it is long enough to be searched for in text ([`MIN_SCRUB_LEN`]).
    pub fn is_scrubbable(&self) -> bool {
        self.0.chars().count() >= MIN_SCRUB_LEN
    }

    /// `text` with every occurrence of the secret replaced by `***` (see [`scrub`]).
    pub fn scrub(&self, text: &str) -> String {
        scrub(std::slice::from_ref(self), text).into_owned()
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(***)")
    }
}

impl fmt::Display for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(MASK)
    }
}

/// `text` with every occurrence of each of `secrets` replaced by `***`. Longest secrets go
/// first, so a short secret inside a longer one (a password inside `user:password`) cannot
/// leave pieces of the longer one behind. A secret cut off at the end of the text (a
/// message truncated at its length limit, with or without a trailing `...`) is masked too
/// when at least [`MIN_SCRUB_LEN`] of its characters remain. Secrets shorter than that are
/// left alone (see the module documentation). Borrows `text` when nothing matched.
pub fn scrub<'a>(secrets: &[Secret], text: &'a str) -> Cow<'a, str> {
    let mut ordered: Vec<&str> = secrets
        .iter()
        .filter(|s| s.is_scrubbable())
        .map(Secret::expose)
        .collect();
    ordered.sort_by_key(|s| std::cmp::Reverse(s.len()));
    let mut out = Cow::Borrowed(text);
    for s in &ordered {
        if out.contains(s) {
            out = Cow::Owned(out.replace(s, MASK));
        }
    }
    for s in &ordered {
        if let Some(cut) = cut_tail(&out, s) {
            let mut owned = out.into_owned();
            owned.replace_range(cut, MASK);
            out = Cow::Owned(owned);
        }
    }
    out
}

/// Every string in `value` (and every object key) scrubbed of `secrets`.
pub fn scrub_json(secrets: &[Secret], value: &mut serde_json::Value) {
    use serde_json::Value;
    match value {
        Value::String(s) => {
            if let Cow::Owned(clean) = scrub(secrets, s) {
                *s = clean;
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|v| scrub_json(secrets, v)),
        Value::Object(map) => {
            let entries = std::mem::take(map);
            for (key, mut v) in entries {
                scrub_json(secrets, &mut v);
                map.insert(scrub(secrets, &key).into_owned(), v);
            }
        }
        Value::Null | Value::Bool(_) | Value::Number(_) => {}
    }
}

/// The byte range of a proper prefix of `secret`, at least [`MIN_SCRUB_LEN`] characters
/// long, that ends `text` (before a trailing `...` or `…`), if any.
fn cut_tail(text: &str, secret: &str) -> Option<std::ops::Range<usize>> {
    let body = text
        .strip_suffix("...")
        .or_else(|| text.strip_suffix('…'))
        .unwrap_or(text);
    secret
        .char_indices()
        .map(|(i, _)| i)
        .skip(MIN_SCRUB_LEN)
        .filter(|&i| body.ends_with(&secret[..i]))
        .last()
        .map(|i| body.len() - i..body.len())
}

#[cfg(test)]
mod tests;
