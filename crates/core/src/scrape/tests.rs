//! Where the scraper looks; the parser, tables and summary are tested in the result model.

use super::*;

#[test]
fn the_metrics_url_is_at_the_server_root_under_any_proxy_prefix() {
    let at = |url: &str| {
        metrics_uri(&BaseUrl::parse(url).expect("url"))
            .expect("uri")
            .to_string()
    };
    assert_eq!(
        at("http://127.0.0.1:8000/v1"),
        "http://127.0.0.1:8000/metrics"
    );
    assert_eq!(
        at("https://h.example/a/v1?key=k"),
        "https://h.example/a/metrics?key=k"
    );
}
