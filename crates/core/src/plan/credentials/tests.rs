//! Each place a credential can come from: what is sent, what is scrubbed, what is shown.

use http::header::AUTHORIZATION;

use crate::plan::{Endpoint, Plan};
use crate::wire::openai::auth_headers;
use plateau_model::config::RunConfig;
use plateau_model::secret::forms;

const KEY: &str = "sk-key-1111";

/// The plan's warnings but the one every `openai` endpoint gets (no `ignore_eos`).
fn credential_warnings(p: &Plan) -> Vec<&String> {
    p.warnings
        .iter()
        .filter(|w| !w.contains("ignore_eos"))
        .collect()
}

fn plan(endpoint: serde_json::Value) -> Plan {
    let config: RunConfig = serde_json::from_value(serde_json::json!({
        "endpoints": [endpoint],
        "models": [{"id": "m", "name": "m"}],
        "scenarios": ["A1"],
        "batch_sizes": [1],
    }))
    .expect("test config parses");
    let env = |name: &str| (name == "KEY").then(|| KEY.to_owned());
    Plan::build(&config, &env).expect("test plan builds")
}

fn secrets(e: &Endpoint) -> Vec<&str> {
    e.secrets.iter().map(|s| s.expose()).collect()
}

/// Everything that leaves the plan as text: the redacted config and the debug dump.
fn shown(p: &Plan) -> String {
    format!(
        "{} {p:?}",
        serde_json::to_string(&p.redacted_config).expect("config serializes")
    )
}

#[test]
fn url_user_info_is_sent_as_basic_and_never_shown() {
    let p = plan(serde_json::json!({"name": "e", "engine": "openai",
        "url": "http://alice:pw-2222@localhost:8000/v1"}));
    let e = &p.endpoints[0];
    let basic = forms::basic("alice:pw-2222");
    let sent = auth_headers(e);
    assert_eq!(sent.get_all(AUTHORIZATION).iter().count(), 1);
    assert_eq!(sent[AUTHORIZATION], format!("Basic {basic}").as_str());
    assert!(sent[AUTHORIZATION].is_sensitive());
    for s in ["pw-2222", "alice:pw-2222", basic.as_str()] {
        assert!(secrets(e).contains(&s), "{s}");
        assert!(!shown(&p).contains(s), "{s} shown");
    }
    assert!(shown(&p).contains("http://***@localhost:8000/v1"));
    assert!(credential_warnings(&p).is_empty(), "{:?}", p.warnings);
}

#[test]
fn the_bare_bearer_token_is_a_secret() {
    let p = plan(
        serde_json::json!({"name": "e", "engine": "openai", "url": "http://localhost/v1",
        "headers": [{"name": "Authorization", "value": "Bearer tok-3333"}]}),
    );
    let e = &p.endpoints[0];
    assert_eq!(e.scrub("invalid token tok-3333"), "invalid token ***");
    assert_eq!(e.scrub("got Bearer tok-3333"), "got ***");
    assert!(!shown(&p).contains("tok-3333"));
}

#[test]
fn query_credentials_are_secrets_and_masked() {
    let p = plan(serde_json::json!({"name": "e", "engine": "openai",
        "url": "https://gw.example.com/v1?api-version=2024-06-01&key=qk%2B4444"}));
    let e = &p.endpoints[0];
    assert_eq!(secrets(e), ["qk%2B4444", "qk+4444"]);
    let shown = shown(&p);
    assert!(!shown.contains("4444"), "{shown}");
    assert!(shown.contains("?api-version=2024-06-01&key=***"), "{shown}");
}

#[test]
fn an_authorization_header_wins_over_the_key_and_the_user_info() {
    let p = plan(serde_json::json!({"name": "e", "engine": "openai",
        "url": "http://bob:pw-5555@localhost/v1", "api_key_env": "KEY",
        "headers": [{"name": "Authorization", "value": "Token tok-6666"}]}));
    let e = &p.endpoints[0];
    let sent = auth_headers(e);
    let values: Vec<_> = sent.get_all(AUTHORIZATION).iter().collect();
    assert_eq!(values, ["Token tok-6666"]);
    assert_eq!(credential_warnings(&p).len(), 2, "{:?}", p.warnings);
    // Not sent, still never shown.
    for s in [KEY, "pw-5555", "tok-6666"] {
        assert!(secrets(e).contains(&s), "{s}");
    }
}

#[test]
fn the_key_wins_over_the_user_info() {
    let p = plan(serde_json::json!({"name": "e", "engine": "openai",
        "url": "http://bob:pw-5555@localhost/v1", "api_key_env": "KEY"}));
    let sent = auth_headers(&p.endpoints[0]);
    assert_eq!(sent[AUTHORIZATION], format!("Bearer {KEY}").as_str());
    assert!(
        p.warnings[0].contains("user info is not sent"),
        "{:?}",
        p.warnings
    );
}

#[test]
fn short_credentials_are_not_searched_for_but_warned_about() {
    let p = plan(serde_json::json!({"name": "e", "engine": "openai",
        "url": "http://u:pw@localhost/v1?key=k1"}));
    let e = &p.endpoints[0];
    assert!(
        secrets(e)
            .iter()
            .all(|s| s.len() >= plateau_model::secret::MIN_SCRUB_LEN)
    );
    assert_eq!(e.scrub("a pw in k1"), "a pw in k1");
    assert!(
        p.warnings.iter().any(|w| w.contains("shorter than 4")),
        "{:?}",
        p.warnings
    );
    assert!(!shown(&p).contains("u:pw") && !shown(&p).contains("k1"));
}

#[test]
fn credentials_over_plain_http_to_another_host_warn() {
    let p = plan(serde_json::json!({"name": "e", "engine": "openai",
        "url": "http://gw.example.com/v1?token=tk-7777"}));
    assert!(
        p.warnings.iter().any(|w| w.contains("unencrypted")),
        "{:?}",
        p.warnings
    );
}
