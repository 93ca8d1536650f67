//! TLS against servers whose certificates are made here (rcgen): a private CA trusted
//! through `tls.ca_file`, a server that requires a client certificate, expired and
//! wrong-name certificates, `insecure_skip_verify`, and https through a CONNECT tunnel;
//! every refusal in words, naming the setting that fixes it.

use std::sync::Arc;

use plateau_http::proxy::{Proxies, Proxy};
use plateau_http::tls::{Roots, TlsSettings};
use plateau_http::{Client, EndpointNet, FailureKind, Network, ProxyChoice};
use plateau_testkit::proxy::{Answer, http_proxy};
use plateau_testkit::tls::{Behind, Ca, Validity, https_server};

use crate::raw::{Got, send_to};

fn client(url: &str, tls: TlsSettings, proxy: ProxyChoice) -> Client {
    let net = EndpointNet { proxy, tls };
    let network = Network::new(
        Proxies::none(),
        &Roots::web_only(),
        &[(url.parse().unwrap(), net)],
    );
    Client::with_network(2, Arc::new(network.unwrap()))
}

async fn get(url: &str, tls: TlsSettings) -> Got {
    send_to(&client(url, tls, ProxyChoice::Environment), url).await
}

/// The failure's message, checking it is a connection failure.
fn refused(got: Got) -> String {
    let f = got.failure.expect("the request failed");
    assert_eq!(f.kind, FailureKind::Connect, "{f}");
    f.message.unwrap()
}

#[tokio::test]
async fn a_private_ca_is_trusted_through_ca_file_and_named_when_it_is_not() {
    let tmp = plateau_testkit::scratch("tls-ca");
    let ca = Ca::new("plateau test CA");
    let port = https_server(&ca.leaf(&["localhost"], Validity::Now), None, Behind::Ok).await;
    let url = format!("https://localhost:{port}/v1/chat/completions");
    assert_eq!(
        refused(get(&url, TlsSettings::default()).await),
        "the server's certificate is signed by an unknown authority (issuer CN=plateau test \
         CA, O=plateau tests); trust its CA with tls.ca_file (or SSL_CERT_FILE / SSL_CERT_DIR)"
    );
    let trusted = TlsSettings {
        ca_file: Some(ca.write(tmp.path(), "ca.pem")),
        ..TlsSettings::default()
    };
    let got = get(&url, trusted).await;
    assert_eq!(
        (got.status, got.text().as_str()),
        (Some(200), "ok"),
        "{:?}",
        got.failure
    );
    let loose = TlsSettings {
        insecure_skip_verify: true,
        ..TlsSettings::default()
    };
    assert_eq!(get(&url, loose).await.status, Some(200));
}

#[tokio::test]
async fn mutual_tls_needs_a_client_certificate_the_server_trusts() {
    let tmp = plateau_testkit::scratch("tls-mtls");
    let ca = Ca::new("plateau test CA");
    let port = https_server(
        &ca.leaf(&["localhost"], Validity::Now),
        Some(&ca),
        Behind::Ok,
    )
    .await;
    let url = format!("https://localhost:{port}/v1/chat/completions");
    let base = TlsSettings {
        ca_file: Some(ca.write(tmp.path(), "ca.pem")),
        ..TlsSettings::default()
    };
    assert_eq!(
        refused(get(&url, base.clone()).await),
        "the server requires a client certificate (mutual TLS): set tls.client_cert and \
         tls.client_key"
    );
    let (cert, key) = ca
        .leaf(&["plateau-client"], Validity::Now)
        .write(tmp.path(), "client");
    let with = TlsSettings {
        client_cert: Some(cert),
        client_key: Some(key),
        ..base.clone()
    };
    let got = get(&url, with).await;
    assert_eq!(got.status, Some(200), "{:?}", got.failure);
    let stranger = Ca::new("another CA");
    let (cert, key) = stranger
        .leaf(&["plateau-client"], Validity::Now)
        .write(tmp.path(), "stranger");
    let wrong = TlsSettings {
        client_cert: Some(cert),
        client_key: Some(key),
        ..base
    };
    let message = refused(get(&url, wrong).await);
    assert!(
        message.starts_with("the server refused plateau's client certificate (TLS alert "),
        "{message}"
    );
}

#[tokio::test]
async fn expired_and_wrong_name_certificates_are_said_in_words() {
    let tmp = plateau_testkit::scratch("tls-bad");
    let ca = Ca::new("plateau test CA");
    let trusted = TlsSettings {
        ca_file: Some(ca.write(tmp.path(), "ca.pem")),
        ..TlsSettings::default()
    };
    let old = https_server(
        &ca.leaf(&["localhost"], Validity::Expired),
        None,
        Behind::Ok,
    )
    .await;
    let message = refused(get(&format!("https://localhost:{old}/v1/x"), trusted.clone()).await);
    assert!(
        message.starts_with(
            "the server's certificate expired on 2021-12-31 00:00:00 UTC (it is now 20"
        ) && message.ends_with("): the server needs a renewed certificate"),
        "{message}"
    );
    let other = https_server(&ca.leaf(&["gpu.internal"], Validity::Now), None, Behind::Ok).await;
    let url = format!("https://localhost:{other}/v1/x");
    assert_eq!(
        refused(get(&url, trusted.clone()).await),
        "the server's certificate is not valid for localhost (it names gpu.internal): put one \
         of those names in the URL, or set tls.server_name"
    );
    let named = TlsSettings {
        server_name: Some("gpu.internal".into()),
        ..trusted
    };
    assert_eq!(get(&url, named).await.status, Some(200));
}

#[tokio::test]
async fn https_goes_through_a_connect_tunnel_end_to_end() {
    let tmp = plateau_testkit::scratch("tls-tunnel");
    let ca = Ca::new("plateau test CA");
    let port = https_server(
        &ca.leaf(&["llm.corp.internal"], Validity::Now),
        None,
        Behind::Ok,
    )
    .await;
    let proxy = http_proxy(port, Answer::Pass).await;
    let url = "https://llm.corp.internal:8443/v1/chat/completions";
    let tls = TlsSettings {
        ca_file: Some(ca.write(tmp.path(), "ca.pem")),
        ..TlsSettings::default()
    };
    let via = ProxyChoice::Via(Proxy::parse(&format!("127.0.0.1:{}", proxy.port), false).unwrap());
    let got = send_to(&client(url, tls, via), url).await;
    assert_eq!(got.status, Some(200), "{:?}", got.failure);
    assert!(proxy.seen()[0].starts_with("CONNECT llm.corp.internal:8443 HTTP/1.1\r\n"));
}
