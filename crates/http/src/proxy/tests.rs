//! Proxy URLs and the environment's proxies, as curl reads them.

use super::*;

fn env(vars: &[(&'static str, &'static str)]) -> impl Fn(&str) -> Option<String> {
    let vars = vars.to_vec();
    move |name| {
        vars.iter()
            .find(|(k, _)| *k == name)
            .map(|(_, v)| (*v).to_owned())
    }
}

#[test]
fn a_proxy_url_gives_its_kind_place_and_credentials_kept_secret() {
    let p = Proxy::parse("http://corp%5Cuser:p%40ss@proxy.corp:3128", false).unwrap();
    assert_eq!(p.kind, Kind::Http);
    assert_eq!((p.host.as_str(), p.port), ("proxy.corp", 3128));
    assert_eq!(p.auth, Some(("corp\\user".into(), "p@ss".into())));
    assert_eq!(p.shown(), "http://***@proxy.corp:3128");
    assert_eq!(format!("{p:?}"), "http://***@proxy.corp:3128");
    assert!(p.secrets().contains(&"p@ss".to_owned()));
    assert_eq!(
        p.authorization().unwrap().to_str().unwrap(),
        "Basic Y29ycFx1c2VyOnBAc3M="
    );
    assert_eq!(
        Proxy::parse("proxy:8080", false).unwrap().shown(),
        "http://proxy:8080"
    );
    assert_eq!(Proxy::parse("http://proxy", false).unwrap().port, 80);
    let s = Proxy::parse("socks5h://[::1]", false).unwrap();
    assert_eq!(s.kind, Kind::Socks5 { remote_dns: true });
    assert_eq!(s.shown(), "socks5h://[::1]:1080");
    let err = Proxy::parse("https://u:secret@proxy:443", false)
        .unwrap_err()
        .to_string();
    assert!(
        err.starts_with("`https://***@proxy:443`: a proxy spoken to over TLS"),
        "{err}"
    );
    assert!(!err.contains("secret"));
    let err = Proxy::parse("ftp://proxy", false).unwrap_err().to_string();
    assert_eq!(
        err,
        "`ftp://proxy`: unknown proxy scheme `ftp`; expected http, socks5 or socks5h"
    );
}

#[test]
fn https_tunnels_and_plain_http_only_when_asked() {
    let p = Proxy::parse("http://proxy:3128", false).unwrap();
    assert!(p.tunnels(true));
    assert!(!p.tunnels(false));
    assert!(
        Proxy::parse("http://proxy:3128", true)
            .unwrap()
            .tunnels(false)
    );
    assert!(!Proxy::parse("socks5://proxy", true).unwrap().tunnels(true));
}

#[test]
fn the_environment_is_read_as_curl_reads_it() {
    let p = Proxies::from_env(&env(&[
        ("HTTPS_PROXY", "http://secure:3128"),
        ("http_proxy", "http://lower:3128"),
        ("HTTP_PROXY", "http://upper:3128"),
        ("NO_PROXY", "localhost,.corp.internal,10.0.0.0/8"),
    ]))
    .unwrap();
    let host = |https, h: &str, port| p.for_origin(https, h, port).map(|p| p.host.clone());
    assert_eq!(
        host(true, "api.example.com", 443).as_deref(),
        Some("secure")
    );
    assert_eq!(host(false, "api.example.com", 80).as_deref(), Some("lower"));
    assert_eq!(host(false, "llm.corp.internal", 8000), None);
    assert_eq!(host(true, "10.2.3.4", 443), None);
    assert_eq!(host(false, "localhost", 8000), None);

    let all = Proxies::from_env(&env(&[("ALL_PROXY", "socks5h://s:1080")])).unwrap();
    assert_eq!(
        all.for_origin(false, "a", 80).map(|p| p.kind),
        Some(Kind::Socks5 { remote_dns: true })
    );
    assert_eq!(all.for_origin(true, "a", 443).map(|p| p.port), Some(1080));

    // Under CGI a request header can set HTTP_PROXY: only the lower-case one counts.
    let cgi = Proxies::from_env(&env(&[
        ("REQUEST_METHOD", "GET"),
        ("HTTP_PROXY", "http://evil:1"),
    ]))
    .unwrap();
    assert_eq!(cgi.for_origin(false, "a", 80), None);

    let err = Proxies::from_env(&env(&[("HTTPS_PROXY", "ftp://u:pw@x")]))
        .unwrap_err()
        .to_string();
    assert!(
        err.starts_with("HTTPS_PROXY: `ftp://***@x`: unknown proxy scheme"),
        "{err}"
    );
    assert_eq!(Proxies::from_env(&env(&[])).unwrap(), Proxies::none());
}

#[test]
fn credentials_are_redacted_from_any_url() {
    assert_eq!(redact("http://u:p@h:1/x@y"), "http://***@h:1/x@y");
    assert_eq!(redact("u:p@h:1"), "***@h:1");
    assert_eq!(redact("http://h:1"), "http://h:1");
}
