//! Base URLs: credentials out of every shown form, the query on every request.

use super::*;

#[test]
fn user_info_is_masked_and_kept_out_of_the_request_uri() {
    let url = BaseUrl::parse("http://alice:p%40ss-99@h:8000/v1").unwrap();
    assert_eq!(url.as_str(), "http://***@h:8000/v1");
    assert_eq!(url.to_string(), "http://***@h:8000/v1");
    assert_eq!(format!("{url:?}"), "BaseUrl(\"http://***@h:8000/v1\")");
    let uri = url.join("models").unwrap();
    assert_eq!(uri.to_string(), "http://h:8000/v1/models");
    assert_eq!(uri.authority().unwrap().as_str(), "h:8000");
    assert_eq!(url.user_pass().unwrap().expose(), "alice:p@ss-99");
    let secrets: Vec<_> = url
        .secrets()
        .iter()
        .map(|s| s.expose().to_owned())
        .collect();
    for s in [
        "p@ss-99",
        "alice:p@ss-99",
        "alice:p%40ss-99",
        &forms::basic("alice:p@ss-99"),
    ] {
        assert!(secrets.iter().any(|x| x == s), "{s} in {secrets:?}");
    }
}

#[test]
fn the_query_goes_on_every_request_and_credential_values_are_masked() {
    let url =
        BaseUrl::parse("https://gw.example.com/openai?api-version=2024-06-01&api-key=k%2F123&flag")
            .unwrap();
    assert_eq!(
        url.as_str(),
        "https://gw.example.com/openai?api-version=2024-06-01&api-key=***&flag"
    );
    assert_eq!(
        url.join("chat/completions").unwrap().to_string(),
        "https://gw.example.com/openai/chat/completions?api-version=2024-06-01&api-key=k%2F123&flag"
    );
    assert_eq!(
        url.join("/models")
            .unwrap()
            .path_and_query()
            .unwrap()
            .as_str(),
        "/openai/models?api-version=2024-06-01&api-key=k%2F123&flag"
    );
    let secrets: Vec<_> = url
        .secrets()
        .iter()
        .map(|s| s.expose().to_owned())
        .collect();
    assert_eq!(secrets, ["k%2F123", "k/123"]);
    assert!(url.user_pass().is_none());
}

#[test]
fn no_path_gets_v1_before_the_query() {
    let url = BaseUrl::parse("http://h:8000?key=abcd").unwrap();
    assert_eq!(url.as_str(), "http://h:8000/v1?key=***");
    assert_eq!(
        url.join("models").unwrap().to_string(),
        "http://h:8000/v1/models?key=abcd"
    );
}

#[test]
fn loopback_and_https() {
    assert!(
        BaseUrl::parse("http://u:p@localhost:1/v1")
            .unwrap()
            .is_loopback()
    );
    assert!(BaseUrl::parse("http://127.0.0.1/v1").unwrap().is_loopback());
    assert!(BaseUrl::parse("http://[::1]:8000").unwrap().is_loopback());
    assert!(!BaseUrl::parse("https://api.x.com").unwrap().is_loopback());
    assert!(BaseUrl::parse("https://api.x.com").unwrap().is_https());
}

#[test]
fn errors_show_the_url_masked() {
    for bad in [
        "ftp://u:hunter22@h/v1?key=qk-9999",
        "http://u:hunter22@h/v1?key=qk-9999#frag",
        "http://u:hunter22@ h/v1?key=qk-9999",
        "u:hunter22@h/v1?key=qk-9999",
    ] {
        let e = BaseUrl::parse(bad).unwrap_err();
        assert!(!e.contains("hunter22") && !e.contains("qk-9999"), "{e}");
    }
}

#[test]
fn mask_works_on_any_text() {
    assert_eq!(
        mask("http://u:p@h:1/v1?key=k&x=1#token=t"),
        "http://***@h:1/v1?key=***&x=1#token=***"
    );
    assert_eq!(mask("http://h/v1"), "http://h/v1");
    assert_eq!(mask("http://u:p/w@h/v1"), "http://***@h/v1");
    assert_eq!(mask("not a url"), "not a url");
    assert_eq!(
        mask("x?Access_Token=t&API%2DKEY=k"),
        "x?Access_Token=***&API%2DKEY=***"
    );
}

#[test]
fn root_paths_drop_the_final_v1_and_keep_a_prefix_and_the_query() {
    let url = BaseUrl::parse("http://alice:pw12@h:8000/v1").unwrap();
    assert_eq!(
        url.join_root("/version").unwrap().to_string(),
        "http://h:8000/version"
    );
    let url = BaseUrl::parse("https://gw.example.com/vllm/v1/?key=k123").unwrap();
    assert_eq!(
        url.join_root("get_server_info").unwrap().to_string(),
        "https://gw.example.com/vllm/get_server_info?key=k123"
    );
    let url = BaseUrl::parse("http://h:8000/openai").unwrap();
    assert_eq!(
        url.join_root("/props").unwrap().to_string(),
        "http://h:8000/openai/props"
    );
}
