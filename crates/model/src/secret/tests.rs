//! Scrubbing and the forms of each credential.

use super::forms::{self, is_credential_name, of_header, of_query_value, of_user_info};
use super::*;

fn exposed(secrets: &[Secret]) -> Vec<&str> {
    secrets.iter().map(Secret::expose).collect()
}

#[test]
fn never_prints_and_scrubs() {
    let s = Secret::new("sk-live-123");
    assert_eq!(format!("{s:?} {s}"), "Secret(***) ***");
    assert_eq!(s.scrub("bad key sk-live-123!"), "bad key ***!");
    assert_eq!(s.expose(), "sk-live-123");
}

#[test]
fn longest_secret_goes_first() {
    let secrets = [Secret::new("pass"), Secret::new("user:pass")];
    assert_eq!(
        scrub(&secrets, "login user:pass, pw pass"),
        "login ***, pw ***"
    );
}

#[test]
fn short_secrets_are_not_searched_for() {
    let secrets = [Secret::new("ab"), Secret::new("")];
    assert!(!secrets[0].is_scrubbable());
    assert!(matches!(
        scrub(&secrets, "abba ab"),
        Cow::Borrowed("abba ab")
    ));
}

#[test]
fn nothing_to_scrub_borrows() {
    let secrets = [Secret::new("sk-live-123")];
    assert!(matches!(scrub(&secrets, "all fine"), Cow::Borrowed(_)));
}

#[test]
fn a_secret_cut_by_truncation_is_masked() {
    let secrets = [Secret::new("sk-live-123456")];
    assert_eq!(
        scrub(&secrets, "invalid key sk-live-1..."),
        "invalid key ***..."
    );
    assert_eq!(scrub(&secrets, "invalid key sk-li"), "invalid key ***");
    // Fewer than MIN_SCRUB_LEN characters left: kept.
    assert_eq!(scrub(&secrets, "a task"), "a task");
    assert_eq!(scrub(&secrets, "ends in sk-"), "ends in sk-");
}

#[test]
fn json_strings_and_keys_are_scrubbed() {
    let secrets = [Secret::new("tok-12345")];
    let mut v = serde_json::json!({"data": [{"id": "m", "owned_by": "Bearer tok-12345"}],
        "tok-12345": 1, "n": 2});
    scrub_json(&secrets, &mut v);
    assert_eq!(
        v,
        serde_json::json!({"data": [{"id": "m", "owned_by": "Bearer ***"}], "***": 1, "n": 2})
    );
}

#[test]
fn credential_names() {
    for name in [
        "Authorization",
        "Proxy-Authorization",
        "X-Api-Key",
        "api-key",
        "api_key",
        "apikey",
        "key",
        "token",
        "access_token",
        "auth",
        "sig",
        "signature",
        "code",
        "secret",
        "password",
        "Cookie",
        "X-Session-Id",
        "X-Amz-Credential",
        "Ocp-Apim-Subscription-Key",
    ] {
        assert!(is_credential_name(name), "{name}");
    }
    for name in [
        "api-version",
        "X-Org",
        "OpenAI-Organization",
        "Content-Type",
        "model",
    ] {
        assert!(!is_credential_name(name), "{name}");
    }
}

#[test]
fn a_bearer_header_yields_the_bare_token() {
    assert_eq!(
        exposed(&of_header("Authorization", " Bearer  tok-123 ")),
        ["Bearer  tok-123", "tok-123"]
    );
    assert_eq!(exposed(&of_header("X-Api-Key", "k-123")), ["k-123"]);
    // A value with spaces that is no scheme is kept whole.
    assert_eq!(exposed(&of_header("X-Auth", "a=b c")), ["a=b c"]);
}

#[test]
fn a_basic_header_yields_user_pass_and_password() {
    let value = format!("Basic {}", forms::basic("alice:pw-42"));
    assert_eq!(
        exposed(&of_header("Authorization", &value)),
        [value.as_str(), "YWxpY2U6cHctNDI=", "pw-42", "alice:pw-42"]
    );
    // Not base64: the credential as written only.
    assert_eq!(exposed(&of_header("Authorization", "Basic !!")).len(), 2);
}

#[test]
fn cookie_values_are_secrets() {
    assert_eq!(
        exposed(&of_header("Cookie", "sid=abc123; theme=dark")),
        ["sid=abc123; theme=dark", "abc123", "dark"]
    );
}

#[test]
fn user_info_yields_every_form() {
    assert_eq!(
        exposed(&of_user_info("alice:p%40ss-99")),
        [
            "alice:p%40ss-99",
            forms::basic("alice:p@ss-99").as_str(),
            "p@ss-99",
            "alice:p@ss-99"
        ]
    );
    // A lone name is the credential.
    assert_eq!(
        exposed(&of_user_info("tok-999")),
        ["tok-999", forms::basic("tok-999:").as_str(), "tok-999:"]
    );
}

#[test]
fn query_values_as_written_and_decoded() {
    assert_eq!(exposed(&of_query_value("a%2Fb%2B")), ["a%2Fb%2B", "a/b+"]);
    assert_eq!(exposed(&of_query_value("plain")), ["plain"]);
}

#[test]
fn percent_decoding_keeps_what_is_not_an_escape() {
    assert_eq!(forms::percent_decode("%41%zz%+1%4"), "A%zz%+1%4");
    assert_eq!(forms::percent_decode("%E2%82%AC"), "€");
}
