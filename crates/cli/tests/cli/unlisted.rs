//! A model name the endpoint's `/v1/models` does not list stops the run at preflight (exit
//! 3) naming the listed ones, unless `allow_unlisted_model` says to go on.

use crate::common::{plateau, run, run_config, temp, tiny_config};
use crate::echo_server::{EchoServer, Mode};

/// A config for the echo server at `url` asking for `llama-3`.
fn config(dir: &std::path::Path, url: &str) -> std::path::PathBuf {
    tiny_config(
        dir,
        serde_json::json!({
            "endpoints": [{"name": "local", "engine": "openai", "url": url}],
            "models": [{"id": "l3", "name": "llama-3"}],
            "measure_seconds": 1, "drain_seconds": 1,
        }),
    )
}

#[test]
fn an_unlisted_model_stops_at_preflight_naming_the_listed_ones() {
    let server = EchoServer::start(Mode::Mixed, "tiny-llama");
    let tmp = temp("unlisted");
    let dir = tmp.path();
    let config = config(dir, &server.url(None, None));
    let (code, _, err) = run(&mut plateau(&["run", "--config", config.to_str().unwrap()]));
    assert_eq!(code, 3, "{err}");
    assert!(
        err.contains("/v1/models lists `tiny-llama`, not `llama-3`"),
        "{err}"
    );
    assert!(err.contains("--set allow_unlisted_model=true"), "{err}");
    assert!(!dir.join("results/local").exists(), "no cell ran");
    assert!(
        !server.received().contains("POST"),
        "no request was sent: {}",
        server.received()
    );
}

#[test]
fn allow_unlisted_model_goes_on_with_a_warning() {
    let server = EchoServer::start(Mode::Mixed, "tiny-llama");
    let tmp = temp("unlisted-allowed");
    let dir = tmp.path();
    let config = config(dir, &server.url(None, None));
    let (code, _, err) = run_config(&config, &["--set", "allow_unlisted_model=true"]);
    // The echo server fails every other request: the run ends in findings (exit 1), but it
    // runs.
    assert_ne!(code, 3, "{err}");
    assert!(err.contains("going on (allow_unlisted_model)"), "{err}");
    assert!(
        dir.join("results/local/l3/A1/c2/summary.json").is_file(),
        "{err}"
    );
}
