//! An endpoint's credentials, from every place a user can put them: the key named by
//! `api_key_env` (sent as `Bearer`), header values, URL user info (sent as `Basic`) and
//! credential-named query parameters. Authorization comes from a header that names it,
//! else the API key, else the user info; the others are not sent, with a warning. Each
//! credential yields its secrets (see [`plateau_model::secret::forms`]) for scrubbing text.
//! The session-affinity header's name is checked here too, beside the other headers.

use http::header::AUTHORIZATION;
use http::{HeaderName, HeaderValue};

use super::Target;
use super::validator::Validator;
use plateau_model::config::EndpointConfig;
use plateau_model::secret::forms::{self, is_credential_name};
use plateau_model::secret::{MIN_SCRUB_LEN, Secret};

/// What an endpoint sends and what it must never show.
pub(super) struct Credentials {
    /// The key `api_key_env` names.
    pub(super) api_key: Option<Secret>,
    /// Extra headers, the Basic header from the user info among them; credential values
    /// marked sensitive.
    pub(super) headers: Vec<(HeaderName, HeaderValue)>,
    /// Every secret searched for in text: distinct, at least `MIN_SCRUB_LEN` long.
    pub(super) secrets: Vec<Secret>,
}

impl Validator {
    /// `endpoints[i].session_header`: a valid header name.
    pub(super) fn session_header(&mut self, i: usize, e: &EndpointConfig) -> Option<HeaderName> {
        let name = e.session_header.as_deref()?;
        match HeaderName::from_bytes(name.as_bytes()) {
            Ok(h) => Some(h),
            Err(_) => {
                self.problem(
                    format!("endpoints[{i}].session_header"),
                    format!(
                        "`{name}` is not a valid HTTP header name (letters, digits and \
                         !#$%&'*+-.^_`|~, no spaces), e.g. `X-Session-ID`"
                    ),
                );
                None
            }
        }
    }

    /// The credentials of endpoint `i`, whose URL parsed as `target`.
    pub(super) fn credentials(
        &mut self,
        i: usize,
        e: &EndpointConfig,
        target: &Target,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Credentials {
        let mut secrets = Vec::new();
        let api_key = self.api_key(i, e, env);
        secrets.extend(api_key.clone());
        let mut headers = self.headers(i, e, &mut secrets);
        let has_authorization = headers.iter().any(|(n, _)| n == AUTHORIZATION);
        if has_authorization && api_key.is_some() {
            self.warnings.push(format!(
                "endpoints[{i}]: headers set Authorization, so the api_key_env key is not sent"
            ));
        }
        if let Target::Url(base) = target {
            secrets.extend(base.secrets());
            if let Some(user_pass) = base.user_pass() {
                let by = if has_authorization {
                    Some("headers")
                } else {
                    api_key.as_ref().map(|_| "api_key_env")
                };
                match by {
                    Some(by) => self.warnings.push(format!(
                        "endpoints[{i}].url: the user info is not sent: Authorization comes from {by}"
                    )),
                    None => headers.push((AUTHORIZATION, basic(&user_pass))),
                }
            }
            if !secrets.is_empty() && !base.is_https() && !base.is_loopback() {
                self.warnings.push(format!(
                    "endpoints[{i}]: credentials would travel unencrypted over http"
                ));
            }
        }
        if secrets.iter().any(|s| !s.is_scrubbable()) {
            self.warnings.push(format!(
                "endpoints[{i}]: a credential (or a part of one, such as a password) is shorter \
                 than {MIN_SCRUB_LEN} characters: plateau masks it where it shows URLs and \
                 headers, but cannot remove it from text the server sends back"
            ));
        }
        Credentials {
            api_key,
            headers,
            secrets: scrubbable(secrets),
        }
    }

    fn api_key(
        &mut self,
        i: usize,
        e: &EndpointConfig,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Option<Secret> {
        let var = e.api_key_env.as_ref()?;
        match env(var) {
            Some(key) if !key.is_empty() => Some(Secret::new(key)),
            _ => {
                self.problem(
                    format!("endpoints[{i}].api_key_env"),
                    format!(
                        "environment variable `{var}` is not set; expected it to hold the API key"
                    ),
                );
                None
            }
        }
    }

    /// The extra headers, parsed; credential values marked sensitive, their secrets
    /// added to `secrets`.
    fn headers(
        &mut self,
        i: usize,
        e: &EndpointConfig,
        secrets: &mut Vec<Secret>,
    ) -> Vec<(HeaderName, HeaderValue)> {
        let mut headers = Vec::new();
        for (j, h) in e.headers.iter().enumerate() {
            let name = HeaderName::from_bytes(h.name.as_bytes());
            let value = HeaderValue::from_str(&h.value);
            match (name, value) {
                (Ok(name), Ok(mut value)) => {
                    if is_credential_name(&h.name) {
                        value.set_sensitive(true);
                        secrets.extend(forms::of_header(&h.name, &h.value));
                    }
                    headers.push((name, value));
                }
                (Err(_), _) => self.problem(
                    format!("endpoints[{i}].headers[{j}].name"),
                    format!("`{}` is not a valid HTTP header name", h.name),
                ),
                (_, Err(_)) => self.problem(
                    format!("endpoints[{i}].headers[{j}].value"),
                    "expected visible ASCII text",
                ),
            }
        }
        headers
    }
}

/// `Authorization: Basic base64(user:pass)`, marked sensitive.
fn basic(user_pass: &Secret) -> HeaderValue {
    let mut value = HeaderValue::from_str(&format!("Basic {}", forms::basic(user_pass.expose())))
        .unwrap_or_else(|_| HeaderValue::from_static("Basic"));
    value.set_sensitive(true);
    value
}

/// `secrets` without repeats and without those too short to search for.
fn scrubbable(secrets: Vec<Secret>) -> Vec<Secret> {
    let mut out: Vec<Secret> = Vec::with_capacity(secrets.len());
    for s in secrets {
        if s.is_scrubbable() && !out.contains(&s) {
            out.push(s);
        }
    }
    out
}

#[cfg(test)]
mod tests;
