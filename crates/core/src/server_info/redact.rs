//! Secrets out of a server's self-description: the value of every object key that names a
//! credential becomes [`REDACTED`], and every string holding one of the endpoint's secrets
//! (its API key, credential headers, URL credentials) is scrubbed as the rest of plateau
//! scrubs them ([`plateau_model::secret::scrub_json`]), or replaced whole when it is the secret.

use serde_json::Value;

use crate::plan::Endpoint;

/// What a redacted value becomes.
pub const REDACTED: &str = "<redacted>";

/// Name fragments that mark a key as a credential (lowercase, `_`/`-` removed):
/// `api_key`, `apiKey`, `x-api-key`, `client_secret`, `password`, `Authorization`.
const CREDENTIAL_PARTS: &[&str] = &["apikey", "secret", "password", "passwd", "authorization"];

/// `value` with credential-named keys' values and the endpoint's secrets redacted.
pub fn redact(endpoint: &Endpoint, value: &mut Value) {
    by_key(value);
    whole_secrets(endpoint, value);
    endpoint.scrub_json(value);
}

/// Whether an object key names a credential. `token` counts as a word of the key
/// (`hf_token`, `access_token`, `apiToken`), not as a part of one, so that the counts
/// every engine reports (`max_total_tokens`, `max_prefill_tokens`) stay readable.
pub fn is_secret_key(key: &str) -> bool {
    let flat: String = key
        .chars()
        .filter(|c| !matches!(c, '_' | '-' | '.' | ' '))
        .collect::<String>()
        .to_lowercase();
    CREDENTIAL_PARTS.iter().any(|p| flat.contains(p)) || words(key).iter().any(|w| w == "token")
}

/// The words of a key: split at `_`, `-`, `.`, spaces and lower-to-upper case changes,
/// lowercased.
fn words(key: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut prev_lower = false;
    for c in key.chars() {
        let boundary = matches!(c, '_' | '-' | '.' | ' ') || (c.is_uppercase() && prev_lower);
        if boundary && !word.is_empty() {
            out.push(std::mem::take(&mut word));
        }
        if c.is_alphanumeric() {
            word.extend(c.to_lowercase());
        }
        prev_lower = c.is_lowercase() || c.is_ascii_digit();
    }
    if !word.is_empty() {
        out.push(word);
    }
    out
}

fn by_key(value: &mut Value) {
    match value {
        Value::Object(map) => {
            for (key, v) in map.iter_mut() {
                if is_secret_key(key) && !v.is_null() {
                    *v = Value::String(REDACTED.into());
                } else {
                    by_key(v);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(by_key),
        _ => {}
    }
}

/// Strings that are one of the endpoint's secrets, whatever their length (the scrubber
/// leaves secrets under 4 characters alone inside text).
fn whole_secrets(endpoint: &Endpoint, value: &mut Value) {
    match value {
        Value::String(s) => {
            if !s.is_empty() && endpoint.secrets.iter().any(|secret| secret.expose() == s) {
                *s = REDACTED.into();
            }
        }
        Value::Object(map) => map.values_mut().for_each(|v| whole_secrets(endpoint, v)),
        Value::Array(items) => items.iter_mut().for_each(|v| whole_secrets(endpoint, v)),
        Value::Null | Value::Bool(_) | Value::Number(_) => {}
    }
}
