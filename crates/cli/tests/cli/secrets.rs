//! An API key and a secret header never reach a log, a result file or an error message.

use crate::common::{plateau, run, temp, tiny_config};

const KEY: &str = "sk-plateau-test-0123456789";
const HEADER_SECRET: &str = "hdr-secret-9876543210";

fn assert_nowhere(dir: &std::path::Path, text: &str) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            assert_nowhere(&path, text);
        } else {
            let bytes = std::fs::read(&path).unwrap();
            let content = if path.extension().is_some_and(|e| e == "gz") {
                let mut s = String::new();
                std::io::Read::read_to_string(
                    &mut flate2::read::GzDecoder::new(&bytes[..]),
                    &mut s,
                )
                .unwrap();
                s
            } else {
                String::from_utf8_lossy(&bytes).into_owned()
            };
            assert!(
                !content.contains(text),
                "{} contains a secret",
                path.display()
            );
        }
    }
}

#[test]
fn secrets_stay_out_of_logs_and_files() {
    let dir = temp("secrets");
    let config = tiny_config(
        &dir,
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
