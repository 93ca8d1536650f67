//! Whole runs on a corporate network made on loopback: through the environment's proxy to
//! a host no resolver knows (`llm.corp.internal`), around it with `NO_PROXY`, a proxy that
//! refuses (407, 502) stopping the run at preflight with exit 3, and https behind a
//! private CA made here (rcgen) in front of `plateau sim`: refused in words by default,
//! trusted through `SSL_CERT_FILE` or `tls.ca_file`, and `insecure_skip_verify` warned
//! about and marked in run.json. No credential reaches a file or the log.

use std::path::{Path, PathBuf};
use std::process::Command;

use plateau_testkit::proxy::{Answer, http_proxy};
use plateau_testkit::tls::{Behind, Ca, Validity, https_server};
use serde_json::{Value, json};

use crate::common::{Sim, assert_finished, json, plateau, run, temp, tiny_config};

const SECRET: &str = "s3cret-proxy-pw";

/// `plateau run` of a one-endpoint config in `dir` (`endpoint` its config), with `env`:
/// exit code, stderr and the config's results directory.
async fn run_with(dir: &Path, endpoint: Value, env: &[(&str, String)]) -> (i32, String, PathBuf) {
    let config = tiny_config(
        dir,
        json!({"endpoints": [endpoint], "measure_seconds": 1, "drain_seconds": 1}),
    );
    let mut cmd: Command = plateau(&["run", "--config", config.to_str().unwrap()]);
    for name in [
        "HTTP_PROXY",
        "http_proxy",
        "HTTPS_PROXY",
        "https_proxy",
        "ALL_PROXY",
    ] {
        cmd.env_remove(name);
    }
    for (name, value) in env {
        cmd.env(name, value);
    }
    let (code, _, err) = tokio::task::spawn_blocking(move || run(&mut cmd))
        .await
        .unwrap();
    (code, err, dir.join("results"))
}

/// Every file under `dir`, checked not to hold `secret`.
fn assert_nowhere(dir: &Path, secret: &str) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            assert_nowhere(&path, secret);
        } else {
            let bytes = std::fs::read(&path).unwrap();
            let text = String::from_utf8_lossy(&bytes);
            assert!(
                !text.contains(secret),
                "{} holds the secret",
                path.display()
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_goes_through_the_environments_proxy_and_no_proxy_goes_around_it() {
    let sim = Sim::start();
    let proxy = http_proxy(sim.port(), Answer::Pass).await;
    let proxy_url = format!("http://corp:{SECRET}@127.0.0.1:{}", proxy.port);
    let tmp = temp("net-proxy");
    let corp = json!({"name": "corp", "engine": "vllm",
        "url": format!("http://llm.corp.internal:{}/v1", sim.port())});
    let (code, err, results) =
        run_with(tmp.path(), corp, &[("HTTP_PROXY", proxy_url.clone())]).await;
    assert_finished(code, &err);
    assert!(!err.contains(SECRET), "{err}");
    assert_nowhere(&results, SECRET);
    let run_json = json(&results.join("run.json"));
    assert_eq!(
        run_json["endpoints"][0]["proxy"],
        format!("http://***@127.0.0.1:{}", proxy.port)
    );
    let seen = proxy.seen();
    let scrape = format!(
        "GET http://llm.corp.internal:{}/metrics HTTP/1.1",
        sim.port()
    );
    assert!(
        seen.iter().any(|h| h.starts_with(&scrape)),
        "the /metrics scraper goes through the proxy too: {seen:?}"
    );
    for head in &seen {
        let line = head.lines().next().unwrap();
        assert!(
            line.starts_with("GET http://llm.corp.internal:")
                || line.starts_with("POST http://llm.corp.internal:"),
            "{line}"
        );
        assert!(head.contains("proxy-authorization: Basic "), "{head}");
    }

    let tmp = temp("net-no-proxy");
    let direct = json!({"name": "direct", "engine": "vllm", "url": sim.url});
    let env = [
        ("HTTP_PROXY", proxy_url),
        ("NO_PROXY", "localhost,127.0.0.0/8".to_owned()),
    ];
    let (code, err, results) = run_with(tmp.path(), direct, &env).await;
    assert_finished(code, &err);
    assert_eq!(proxy.seen().len(), seen.len(), "NO_PROXY went around it");
    let run_json = json(&results.join("run.json"));
    assert_eq!(run_json["endpoints"][0].get("proxy"), None);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_proxy_that_refuses_stops_the_run_at_preflight_with_exit_3() {
    let auth = Answer::Refuse(
        "407 Proxy Authentication Required",
        "proxy-authenticate: Basic realm=\"corp\"\r\n",
    );
    // (proxy answer, endpoint scheme, what stderr says)
    let cases = [
        (
            auth,
            "http",
            "HTTP 407 from /models: Proxy Authentication Required; the proxy http://127.0.0.1:PORT asks for credentials: \
             put them in its URL, http://user:password@host:port (HTTP_PROXY, or the \
             endpoint's proxy)",
        ),
        (
            Answer::Refuse("502 Bad Gateway", ""),
            "http",
            "HTTP 502 from /models: Bad Gateway; the proxy http://127.0.0.1:PORT could not reach the \
             server: check the URL, or go around the proxy with NO_PROXY or the endpoint's \
             \"proxy\": \"none\"",
        ),
        (
            auth,
            "https",
            "is unreachable: proxy http://127.0.0.1:PORT would not tunnel to \
             llm.corp.internal:8443: it asks for credentials (HTTP 407 Proxy Authentication \
             Required, Proxy-Authenticate: Basic realm=\"corp\"): put them in the proxy URL, \
             http://user:password@host:port",
        ),
    ];
    for (answer, scheme, says) in cases {
        let proxy = http_proxy(1, answer).await;
        let tmp = temp("net-refused");
        let port = if scheme == "https" { 8443 } else { 8000 };
        let endpoint = json!({"name": "corp", "engine": "vllm",
            "url": format!("{scheme}://llm.corp.internal:{port}/v1")});
        let env = [
            ("HTTP_PROXY", format!("http://127.0.0.1:{}", proxy.port)),
            ("HTTPS_PROXY", format!("http://127.0.0.1:{}", proxy.port)),
        ];
        let (code, err, _) = run_with(tmp.path(), endpoint, &env).await;
        assert_eq!(code, 3, "{err}");
        let says = says.replace("PORT", &proxy.port.to_string());
        assert!(err.contains(&says), "expected `{says}` in:\n{err}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_private_ca_is_refused_in_words_then_trusted_by_file_or_environment() {
    let sim = Sim::start();
    let ca = Ca::new("plateau test CA");
    let leaf = ca.leaf(&["localhost"], Validity::Now);
    let port = https_server(&leaf, None, Behind::Port(sim.port())).await;
    let keys = temp("net-ca");
    let ca_file = ca.write(keys.path(), "ca.pem");
    let url = format!("https://localhost:{port}/v1");
    let plain = json!({"name": "tls", "engine": "vllm", "url": url});

    // An empty store for the system's roots: the CA is known only where the test says.
    let empty = keys.path().join("none.pem");
    std::fs::write(&empty, "").unwrap();
    let tmp = temp("net-tls-unknown");
    let no_ca = [("SSL_CERT_FILE", empty.display().to_string())];
    let (code, err, _) = run_with(tmp.path(), plain.clone(), &no_ca).await;
    assert_eq!(code, 3, "{err}");
    let says = "the server's certificate is signed by an unknown authority (issuer \
                CN=plateau test CA, O=plateau tests); trust its CA with tls.ca_file (or \
                SSL_CERT_FILE / SSL_CERT_DIR)";
    assert!(err.contains(says), "{err}");

    let tmp = temp("net-tls-env");
    let env = [("SSL_CERT_FILE", ca_file.display().to_string())];
    let (code, err, _) = run_with(tmp.path(), plain, &env).await;
    assert_finished(code, &err);

    let tmp = temp("net-tls-file");
    let with_file = json!({"name": "tls", "engine": "vllm", "url": url,
        "tls": {"ca_file": ca_file}});
    let (code, err, results) = run_with(tmp.path(), with_file, &no_ca).await;
    assert_finished(code, &err);
    let run_json = json(&results.join("run.json"));
    assert_eq!(
        run_json["endpoints"][0].get("tls_insecure_skip_verify"),
        None
    );

    let tmp = temp("net-tls-insecure");
    let insecure = json!({"name": "tls", "engine": "vllm", "url": url,
        "tls": {"insecure_skip_verify": true}});
    let (code, err, results) = run_with(tmp.path(), insecure, &no_ca).await;
    assert_finished(code, &err);
    assert!(
        err.contains(
            "endpoints[0] (tls): tls.insecure_skip_verify is on: the server's certificate is \
             NOT checked"
        ),
        "{err}"
    );
    let run_json = json(&results.join("run.json"));
    assert_eq!(run_json["endpoints"][0]["tls_insecure_skip_verify"], true);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_redirect_at_preflight_names_where_it_points_with_exit_3() {
    let reply = "HTTP/1.1 301 Moved Permanently\r\nlocation: https://llm.example.com/api/v1/models\r\ncontent-length: 0\r\n\r\n";
    let port = plateau_testkit::raw::server(vec![reply; 4], |mut sock, reply| async move {
        use tokio::io::AsyncWriteExt as _;
        if plateau_testkit::raw::read_request(&mut sock).await {
            let _ = sock.write_all(reply.as_bytes()).await;
        }
    })
    .await;
    let tmp = temp("net-redirect");
    let endpoint = json!({"name": "moved", "engine": "vllm",
        "url": format!("http://127.0.0.1:{port}/v1")});
    let (code, err, _) = run_with(tmp.path(), endpoint, &[]).await;
    assert_eq!(code, 3, "{err}");
    let says = format!(
        "endpoint moved (http://127.0.0.1:{port}/v1): HTTP 301 from /models: redirected to \
         https://llm.example.com/api/v1/models; plateau does not follow redirects: point the \
         endpoint at the new location"
    );
    assert!(err.contains(&says), "expected `{says}` in:\n{err}");
}
