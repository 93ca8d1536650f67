//! Through proxies on loopback: a CONNECT tunnel, a forward proxy in absolute form, SOCKS5,
//! `NO_PROXY` going around them, and proxies that refuse, each in words and without the
//! credentials. The origin is named `llm.corp.internal`, which no resolver here knows: a
//! request that reaches it went through the proxy.

use std::sync::Arc;

use plateau_http::proxy::{Proxies, Proxy};
use plateau_http::tls::Roots;
use plateau_http::{Client, EndpointNet, FailureKind, Network, ProxyChoice};
use plateau_testkit::proxy::{Answer, http_proxy, socks5_proxy};

use crate::raw::send_to;

/// An origin answering `ok` to every request; its port.
async fn origin() -> u16 {
    plateau_testkit::raw::server(vec![(); 32], |mut sock, ()| async move {
        plateau_testkit::raw::answer_ok(&mut sock).await;
    })
    .await
}

/// A client whose endpoint `url` goes through `proxy`.
fn via(url: &str, proxy: Proxy) -> Client {
    let net = EndpointNet {
        proxy: ProxyChoice::Via(proxy),
        ..EndpointNet::default()
    };
    let network = Network::new(
        Proxies::none(),
        &Roots::web_only(),
        &[(url.parse().unwrap(), net)],
    );
    Client::with_network(4, Arc::new(network.unwrap()))
}

const URL: &str = "http://llm.corp.internal:8000/v1/chat/completions";

#[tokio::test]
async fn plain_http_goes_to_a_forward_proxy_in_absolute_form_with_credentials() {
    let proxy = http_proxy(origin().await, Answer::Pass).await;
    let p = Proxy::parse(
        &format!("http://corp:s3cret@127.0.0.1:{}", proxy.port),
        false,
    )
    .unwrap();
    let got = send_to(&via(URL, p), URL).await;
    assert_eq!(
        (got.status, got.text().as_str()),
        (Some(200), "ok"),
        "{:?}",
        got.failure
    );
    let seen = proxy.seen();
    assert_eq!(seen.len(), 1);
    assert!(
        seen[0].starts_with("POST http://llm.corp.internal:8000/v1/chat/completions HTTP/1.1\r\n"),
        "{}",
        seen[0]
    );
    assert!(
        seen[0].contains("proxy-authorization: Basic Y29ycDpzM2NyZXQ=\r\n"),
        "{}",
        seen[0]
    );
    assert!(
        got.stamps.connect_us.is_some(),
        "the connection to the proxy is timed"
    );
}

#[tokio::test]
async fn plain_http_tunnels_when_asked() {
    let proxy = http_proxy(origin().await, Answer::Pass).await;
    let p = Proxy::parse(&format!("127.0.0.1:{}", proxy.port), true).unwrap();
    let got = send_to(&via(URL, p), URL).await;
    assert_eq!(got.status, Some(200), "{:?}", got.failure);
    let seen = proxy.seen();
    assert!(
        seen[0].starts_with(
            "CONNECT llm.corp.internal:8000 HTTP/1.1\r\nHost: llm.corp.internal:8000\r\n"
        ),
        "{}",
        seen[0]
    );
    assert!(
        !seen[0].contains("roxy-Authorization"),
        "no credentials were given"
    );
}

#[tokio::test]
async fn socks5_with_names_resolved_by_the_proxy() {
    let proxy = socks5_proxy(origin().await).await;
    let p = Proxy::parse(
        &format!("socks5h://alice:pw@127.0.0.1:{}", proxy.port),
        false,
    )
    .unwrap();
    let got = send_to(&via(URL, p), URL).await;
    assert_eq!(got.status, Some(200), "{:?}", got.failure);
    assert_eq!(
        proxy.seen(),
        vec!["llm.corp.internal:8000 alice".to_owned()]
    );
}

#[tokio::test]
async fn no_proxy_goes_around_the_environments_proxy() {
    let up = origin().await;
    let proxy = http_proxy(up, Answer::Pass).await;
    let url = format!("http://127.0.0.1:{up}/v1/chat/completions");
    // (NO_PROXY, whether the request still goes through the proxy)
    let cases = [
        ("127.0.0.0/8".to_owned(), false),
        (format!("127.0.0.1:{up}"), false),
        ("*".to_owned(), false),
        ("localhost,.corp.internal".to_owned(), true),
        (format!("127.0.0.1:{}", up.wrapping_add(1)), true),
    ];
    for (no_proxy, through) in cases {
        let proxy_url = format!("http://127.0.0.1:{}", proxy.port);
        let bypass = no_proxy.clone();
        let env = move |name: &str| match name {
            "HTTP_PROXY" => Some(proxy_url.clone()),
            "NO_PROXY" => Some(bypass.clone()),
            _ => None,
        };
        let proxies = Proxies::from_env(&env).unwrap();
        let network = Network::new(proxies, &Roots::web_only(), &[]).unwrap();
        let client = Client::with_network(2, Arc::new(network));
        let before = proxy.seen().len();
        let got = send_to(&client, &url).await;
        assert_eq!(got.status, Some(200), "{no_proxy}: {:?}", got.failure);
        assert_eq!(
            proxy.seen().len() - before,
            usize::from(through),
            "NO_PROXY={no_proxy}"
        );
    }
}

#[tokio::test]
async fn a_proxy_that_refuses_says_so_in_words_without_the_credentials() {
    let https = "https://llm.corp.internal:8443/v1/chat/completions";
    let cases = [
        (
            Answer::Refuse(
                "407 Proxy Authentication Required",
                "proxy-authenticate: Basic realm=\"corp\"\r\n",
            ),
            "it refused the credentials in its URL (HTTP 407 Proxy Authentication Required, Proxy-Authenticate: Basic realm=\"corp\")",
        ),
        (
            Answer::Refuse("502 Bad Gateway", ""),
            "it answered CONNECT with HTTP 502 Bad Gateway",
        ),
    ];
    for (answer, says) in cases {
        let proxy = http_proxy(1, answer).await;
        let p = Proxy::parse(
            &format!("http://corp:s3cret@127.0.0.1:{}", proxy.port),
            false,
        )
        .unwrap();
        let got = send_to(&via(https, p), https).await;
        let failure = got.failure.expect("refused");
        assert_eq!(failure.kind, FailureKind::Connect);
        let message = failure.message.unwrap();
        assert_eq!(
            message,
            format!(
                "proxy http://***@127.0.0.1:{} would not tunnel to llm.corp.internal:8443: {says}",
                proxy.port
            )
        );
        assert!(!message.contains("s3cret"));
    }
    // Without credentials, a 407 asks for them.
    let proxy = http_proxy(1, cases[0].0).await;
    let p = Proxy::parse(&format!("127.0.0.1:{}", proxy.port), false).unwrap();
    let got = send_to(&via(https, p), https).await;
    let message = got.failure.unwrap().message.unwrap();
    assert!(
        message.ends_with("put them in the proxy URL, http://user:password@host:port"),
        "{message}"
    );
}
