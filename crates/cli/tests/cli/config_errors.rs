//! Config errors through the real binary: exit 2, and the message names the source of the
//! value (the file, a `--set`, an environment variable), the field and what was expected.

use crate::common::{plateau, run, temp, tiny_config};

/// `plateau run --dry-run --config <config> <extra>`: exit code and stderr.
fn dry_run(config: &std::path::Path, extra: &[&str], env: &[(&str, &str)]) -> (i32, String) {
    let mut args = vec!["run", "--dry-run", "--config", config.to_str().unwrap()];
    args.extend_from_slice(extra);
    let mut cmd = plateau(&args);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let (code, out, err) = run(&mut cmd);
    assert!(!out.contains("cells"), "no plan is printed: {out}");
    (code, err)
}

#[test]
fn set_errors_name_the_set_not_the_file() {
    let tmp = temp("set-errors");
    let dir = tmp.path();
    let config = tiny_config(dir, serde_json::json!({}));
    let (code, err) = dry_run(
        &config,
        &["--set", "endpoints[5].url=http://127.0.0.1:9/v1"],
        &[],
    );
    assert_eq!(code, 2, "{err}");
    assert_eq!(
        err.trim_end(),
        "error: --set endpoints[5].url=http://127.0.0.1:9/v1: endpoints[5] is out of range: \
         endpoints has 1 entry, endpoints[0]; --set changes an entry but cannot add one \
         (to replace the whole list, --set 'endpoints=[...]')"
    );
    // A plan problem in a value given by --set names the --set.
    let (code, err) = dry_run(
        &config,
        &["--set", "endpoints[0].url=http://localhost:99999/v1"],
        &[],
    );
    assert_eq!(code, 2, "{err}");
    assert_eq!(
        err.trim_end(),
        "error: --set endpoints[0].url=http://localhost:99999/v1: endpoints[0].url: \
         `http://localhost:99999/v1`: port 99999 is out of range; expected a port from 1 to 65535"
    );
    let (code, err) = dry_run(&config, &["--set", "endpoints[0].engine=7"], &[]);
    assert_eq!(code, 2, "{err}");
    assert_eq!(
        err.trim_end(),
        "error: --set endpoints[0].engine=7: endpoints[0].engine: invalid type: integer `7`, \
         expected one of `vllm`, `sglang`, `nim`, `tgi`, `llamacpp`, `openai`, `sim`"
    );
}

#[test]
fn env_errors_name_the_variable() {
    let tmp = temp("env-errors");
    let dir = tmp.path();
    let config = tiny_config(dir, serde_json::json!({}));
    let (code, err) = dry_run(&config, &[], &[("PLATEAU__MAX_TOKENS", "0")]);
    assert_eq!(code, 2, "{err}");
    assert_eq!(
        err.trim_end(),
        "error: PLATEAU__MAX_TOKENS (environment): max_tokens: got 0, expected from 1 to 1000000 tokens"
    );
}

#[test]
fn file_errors_name_the_file_one_line_per_problem() {
    let tmp = temp("file-errors");
    let dir = tmp.path();
    let config = tiny_config(
        dir,
        serde_json::json!({
            "endpoints": [{"name": "vllm", "engine": "vllm", "url": "http://localhost:0/v1",
                           "extra_body": {"max_tokens": 3}}]
        }),
    );
    let (code, err) = dry_run(&config, &["--set", "batch_sizes=[0]"], &[]);
    assert_eq!(code, 2, "{err}");
    let file = config.display();
    assert_eq!(
        err.trim_end(),
        format!(
            "error: {file}: endpoints[0].url: `http://localhost:0/v1`: port 0 is out of range; expected a port from 1 to 65535\n\
             {file}: endpoints[0].extra_body.max_tokens: is set by plateau; use the top-level `max_tokens` instead\n\
             --set batch_sizes=[0]: batch_sizes[0]: expected a concurrency of at least 1"
        )
    );
}

#[test]
fn a_concurrency_past_the_open_file_limit_is_refused_with_what_fits() {
    let tmp = temp("too-many-files");
    let dir = tmp.path();
    let config = tiny_config(dir, serde_json::json!({"batch_sizes": [2, 1000]}));
    // A hard limit of 1,024 open files: 2 per request with the in-process simulator, plus 64.
    let mut cmd = std::process::Command::new("sh");
    cmd.current_dir(crate::common::root())
        .args(["-c", "ulimit -n 1024 && exec \"$0\" \"$@\""])
        .arg(env!("CARGO_BIN_EXE_plateau"))
        .args(["run", "--dry-run", "--config", config.to_str().unwrap()]);
    let (code, out, err) = run(&mut cmd);
    assert_eq!(code, 2, "{out}{err}");
    assert_eq!(
        err.trim_end(),
        format!(
            "error: {}: batch_sizes[1]: concurrency 1,000 does not fit this machine: it needs \
             2,064 open files (2 per request: the connection and the in-process simulator's end \
             of it, plus 64) and the hard limit is 1,024 (ulimit -Hn); at most 480 fit",
            config.display()
        )
    );
    // Far past any machine's memory or ports, whatever binds first; given by --set.
    let (code, err) = dry_run(&config, &["--set", "batch_sizes=[100000000]"], &[]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.starts_with(
            "error: --set batch_sizes=[100000000]: batch_sizes[0]: concurrency 100,000,000 \
             does not fit this machine: "
        ) && err.contains("; at most "),
        "{err}"
    );
}
