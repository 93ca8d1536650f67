//! Secrets never reach a file or a log, from any place a user can put them: `api_key_env`,
//! header values (and the bare token inside `Bearer ...`), URL user info, query parameters
//! named like keys. Each path runs against an echo server that quotes the credentials back
//! in every answer (the `/models` listing, streamed text kept by `store_text`, error
//! bodies), so anything not scrubbed lands in the results.

use std::path::Path;

use base64::Engine as _;

use crate::common::{plateau, run, temp, tiny_config};
use crate::echo_server::{EchoServer, Mode};

const KEY: &str = "sk-plateau-test-0123456789";
const HEADER_SECRET: &str = "hdr-secret-9876543210";
const MODEL: &str = "echo-model";

/// Every file under `dir` (gzip decompressed) as text.
fn files(dir: &Path) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(files(&path));
            continue;
        }
        let bytes = std::fs::read(&path).unwrap();
        let content = if path.extension().is_some_and(|e| e == "gz") {
            let mut s = String::new();
            std::io::Read::read_to_string(&mut flate2::read::GzDecoder::new(&bytes[..]), &mut s)
                .unwrap();
            s
        } else {
            String::from_utf8_lossy(&bytes).into_owned()
        };
        out.push((path.display().to_string(), content));
    }
    out
}

fn assert_nowhere(dir: &Path, secret: &str) {
    for (path, content) in files(dir) {
        assert!(!content.contains(secret), "{path} contains `{secret}`");
    }
}

/// Runs one endpoint against a mixed echo server, then `plateau report`, and checks that
/// the server got every one of `sent` while no `secrets` reached a file, stdout or stderr.
/// `endpoint` builds the endpoint's config from the server.
fn run_echo(
    name: &str,
    endpoint: impl FnOnce(&EchoServer) -> serde_json::Value,
    sent: &[&str],
    secrets: &[&str],
) {
    let server = EchoServer::start(Mode::Mixed, MODEL);
    let tmp = temp(name);
    let dir = tmp.path();
    let endpoint = endpoint(&server);
    let config = tiny_config(
        dir,
        serde_json::json!({"endpoints": [endpoint], "models": [{"id": "m", "name": MODEL}],
            "store_text": true, "fill_seconds": 0.1, "stabilize_seconds": 0.2,
            "measure_seconds": 1, "drain_seconds": 1}),
    );
    let mut cmd = plateau(&["run", "--config", config.to_str().unwrap(), "-vv"]);
    cmd.env("PLATEAU_TEST_KEY", KEY);
    let (code, out, err) = run(&mut cmd);
    // Half the requests fail by design: validation may fail the run (exit 1).
    assert!(code == 0 || code == 1, "exit {code}: {err}");
    let results = dir.join("results");
    let mut report = plateau(&[
        "report",
        "--results-dir",
        results.to_str().unwrap(),
        "--figures-dir",
        results.join("figures").to_str().unwrap(),
    ]);
    let (rcode, rout, rerr) = run(&mut report);
    assert_eq!(rcode, 0, "{rerr}");
    assert!(results.join("report.html").exists());

    let received = server.received();
    for s in sent {
        assert!(
            received.contains(s),
            "the server never got `{s}`:\n{}",
            received.chars().take(2000).collect::<String>()
        );
    }
    let records = files(&results)
        .into_iter()
        .filter(|(p, _)| p.ends_with("requests.jsonl.gz"))
        .map(|(_, c)| c)
        .collect::<String>();
    // Else the test proves nothing: echoes reached the stored answers, the error texts
    // and the `/models` answer in run.json.
    assert!(records.contains("\"response\":\"POST /v1/chat/completions"));
    assert!(records.contains("\"error\":\"rejected: POST /v1/chat/completions"));
    let run_json = std::fs::read_to_string(results.join("run.json")).unwrap();
    assert!(run_json.contains("GET /v1/models"), "{run_json}");
    for secret in secrets {
        for (what, text) in [
            ("stdout", &out),
            ("stderr", &err),
            ("report stdout", &rout),
            ("report stderr", &rerr),
        ] {
            assert!(
                !text.contains(secret),
                "{what} contains `{secret}`:\n{text}"
            );
        }
        assert_nowhere(&results, secret);
    }
}

fn basic(user_pass: &str) -> String {
    base64::engine::general_purpose::STANDARD.encode(user_pass)
}

#[test]
fn api_key_env_never_reaches_a_file_or_log() {
    run_echo(
        "secrets-api-key",
        |s| {
            serde_json::json!({"name": "e", "engine": "openai", "url": s.url(None, None),
            "api_key_env": "PLATEAU_TEST_KEY"})
        },
        &[&format!("Bearer {KEY}")],
        &[KEY],
    );
}

#[test]
fn bare_bearer_token_of_a_header_never_reaches_a_file_or_log() {
    let token = "tok-bearer-5551234567";
    run_echo(
        "secrets-bearer",
        |s| {
            serde_json::json!({"name": "e", "engine": "openai", "url": s.url(None, None),
            "headers": [{"name": "Authorization", "value": format!("Bearer {token}")}]})
        },
        &[&format!("Bearer {token}")],
        &[token],
    );
}

#[test]
fn api_key_header_never_reaches_a_file_or_log() {
    run_echo(
        "secrets-header",
        |s| {
            serde_json::json!({"name": "e", "engine": "openai", "url": s.url(None, None),
            "headers": [{"name": "X-Api-Key", "value": HEADER_SECRET}, {"name": "X-Org", "value": "acme"}]})
        },
        &[HEADER_SECRET, "acme"],
        &[HEADER_SECRET],
    );
}

#[test]
fn url_user_info_is_sent_as_basic_and_never_reaches_a_file_or_log() {
    let password = "pw-userinfo-24680";
    let user_pass = format!("echo-user:{password}");
    run_echo(
        "secrets-userinfo",
        |s| {
            serde_json::json!({"name": "e", "engine": "openai",
            "url": s.url(Some(&user_pass), None)})
        },
        &[&format!("Basic {}", basic(&user_pass))],
        &[password, &user_pass, &basic(&user_pass)],
    );
}

#[test]
fn key_query_parameter_is_sent_and_never_reaches_a_file_or_log() {
    let key = "qk-query/secret+7777";
    let encoded = "qk-query%2Fsecret%2B7777";
    run_echo(
        "secrets-query",
        |s| {
            serde_json::json!({"name": "e", "engine": "openai",
            "url": s.url(None, Some(&format!("api-version=2024-06-01&key={encoded}")))})
        },
        &[
            &format!("/v1/chat/completions?api-version=2024-06-01&key={encoded} "),
            &format!("/v1/models?api-version=2024-06-01&key={encoded} "),
        ],
        &[key, encoded],
    );
}

#[test]
fn a_401_at_preflight_stops_the_run_without_printing_secrets() {
    let server = EchoServer::start(Mode::Unauthorized, MODEL);
    let tmp = temp("secrets-401");
    let dir = tmp.path();
    let token = "tok-preflight-1212121212";
    let password = "pw-preflight-3434";
    let user_pass = format!("u:{password}");
    let url = server.url(Some(&user_pass), Some("key=qk-preflight-5656"));
    let config = tiny_config(
        dir,
        serde_json::json!({"endpoints": [
            {"name": "bearer", "engine": "openai", "url": url, "api_key_env": "PLATEAU_TEST_KEY",
             "headers": [{"name": "Authorization", "value": format!("Bearer {token}")},
                         {"name": "X-Api-Key", "value": HEADER_SECRET}]}],
            "models": [{"id": "m", "name": MODEL}]}),
    );
    let mut cmd = plateau(&["run", "--config", config.to_str().unwrap(), "-vv"]);
    cmd.env("PLATEAU_TEST_KEY", KEY);
    let (code, out, err) = run(&mut cmd);
    assert_eq!(code, 3, "refusing at preflight: {err}");
    assert!(err.contains("HTTP 401"), "{err}");
    assert!(
        server.received().contains(token),
        "the server got the token"
    );
    for secret in [
        token,
        KEY,
        HEADER_SECRET,
        password,
        &user_pass,
        &basic(&user_pass),
        "qk-preflight-5656",
    ] {
        assert!(
            !out.contains(secret) && !err.contains(secret),
            "`{secret}` printed:\n{err}"
        );
        if dir.join("results").exists() {
            assert_nowhere(&dir.join("results"), secret);
        }
    }
}

#[test]
fn secrets_stay_out_of_logs_and_files_with_the_simulator() {
    let tmp = temp("secrets");
    let dir = tmp.path();
    let config = tiny_config(
        dir,
        serde_json::json!({"endpoints": [{"name": "sim", "engine": "sim", "api_key_env": "PLATEAU_TEST_KEY",
            "headers": [{"name": "X-Api-Key", "value": HEADER_SECRET}],
            "sim": {"profile": "fixed", "fixed": {"ttft_ms": 20, "itl_ms": 5}}}]}),
    );
    let mut cmd = plateau(&["run", "--config", config.to_str().unwrap(), "-vv"]);
    cmd.env("PLATEAU_TEST_KEY", KEY);
    let (code, out, err) = run(&mut cmd);
    assert_eq!(code, 0, "{err}");
    for secret in [KEY, HEADER_SECRET] {
        assert!(
            !out.contains(secret) && !err.contains(secret),
            "secret in output"
        );
        assert_nowhere(&dir.join("results"), secret);
    }
    let run_json = std::fs::read_to_string(dir.join("results/run.json")).unwrap();
    assert!(
        run_json.contains("PLATEAU_TEST_KEY"),
        "the variable's name is kept"
    );
}
