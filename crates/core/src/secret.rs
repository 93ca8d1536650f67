//! A secret (API key) that never prints: `Debug` and `Display` show `***`, and
//! [`Secret::scrub`] removes it from any text bound for a log, a result file or an error.

use std::fmt;

/// An API key or other credential.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    /// Wraps `value`.
    pub fn new(value: impl Into<String>) -> Self {
        Secret(value.into())
    }

    /// The value, for the one place that sends it (the Authorization header).
    pub fn expose(&self) -> &str {
        &self.0
    }

    /// `text` with every occurrence of the secret replaced by `***`.
    pub fn scrub(&self, text: &str) -> String {
        if self.0.is_empty() {
            text.to_owned()
        } else {
            text.replace(&self.0, "***")
        }
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(***)")
    }
}

impl fmt::Display for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("***")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn never_prints_and_scrubs() {
        let s = Secret::new("sk-live-123");
        assert_eq!(format!("{s:?} {s}"), "Secret(***) ***");
        assert_eq!(s.scrub("bad key sk-live-123!"), "bad key ***!");
        assert_eq!(s.expose(), "sk-live-123");
    }
}
