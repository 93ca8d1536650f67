//! `plateau run --url URL --model NAME`: a first look at a server without writing a config
//! file. The flags become an ordinary config, layered under `PLATEAU__*` and `--set` like a
//! file, so everything after is the same run. The keys given ([`given`]: these, or a
//! `--config` file's) are what the first look prints and `--save-config` writes ([`save`]).

use std::io::Write;
use std::path::Path;

use anyhow::anyhow;
use plateau_model::config::RunConfig;
use serde_json::{Value, json};

use crate::args::RunArgs;
use crate::exit::Failure;

/// What the flags name the config by in errors and in run.json.
pub const SOURCE: &str = "the command line (--url, --model)";

/// The scenarios of a first look: one short prompt everyone shares, and diverse short ones.
const SCENARIOS: [&str; 2] = ["A1", "B1"];

/// The concurrencies of a first look: one user, a few, and enough to load a small server.
const CONCURRENCIES: [u32; 3] = [1, 4, 16];

/// The config `args` build; `None` without `--url`.
pub fn config(args: &RunArgs) -> Option<Value> {
    let url = args.url.as_ref()?;
    let model = args.model.clone().unwrap_or_default();
    // Without --engine, the generic OpenAI API: no engine-specific request extras, and the
    // server's /metrics read with whichever engine's names it exposes.
    let engine = args.engine.as_deref().unwrap_or("openai");
    let endpoint = json!({"name": "server", "url": url, "engine": engine});
    let scenarios = if args.scenarios.is_empty() {
        SCENARIOS.iter().map(|s| s.to_string()).collect()
    } else {
        args.scenarios.clone()
    };
    let concurrency = if args.concurrency.is_empty() {
        CONCURRENCIES.to_vec()
    } else {
        args.concurrency.clone()
    };
    let mut config = json!({
        "endpoints": [endpoint],
        "models": [{"id": model_id(&model), "name": model}],
        "scenarios": scenarios,
        "batch_sizes": concurrency,
        // Short enough for a first look (about 45 s a cell), long enough to be steady on
        // a GPU server: the slots ramp over 5 s, queues and caches settle for 10 s, and
        // 30 s is measured.
        "fill_seconds": 5,
        "stabilize_seconds": 10,
        "measure_seconds": 30,
        "max_tokens": 128,
        "output_dir": format!("results/{}", model_id(&model)),
    });
    if let Some(t) = &args.tokenizer {
        config["tokenizer"] = json!(t);
    }
    Some(config)
}

/// The config keys the flags set, for naming them in errors.
pub fn keys(args: &RunArgs) -> Vec<(&'static str, &'static str)> {
    let mut keys = vec![("endpoints[0].url", "--url"), ("models[0]", "--model")];
    if args.engine.is_some() {
        keys.push(("endpoints[0].engine", "--engine"));
    }
    if !args.scenarios.is_empty() {
        keys.push(("scenarios", "--scenarios"));
    }
    if !args.concurrency.is_empty() {
        keys.push(("batch_sizes", "--concurrency"));
    }
    if args.tokenizer.is_some() {
        keys.push(("tokenizer", "--tokenizer"));
    }
    keys
}

/// The keys `given` holds, with the values of `redacted` (the resolved config with its
/// secrets as `***`): an object keeps only the keys `given` has, a list only as many
/// items, so defaults and unset (null) keys stay out.
pub fn given(redacted: &RunConfig, given: &Value) -> serde_json::Result<Value> {
    Ok(shaped(&serde_json::to_value(redacted)?, given))
}

fn shaped(full: &Value, like: &Value) -> Value {
    match (full, like) {
        (Value::Object(f), Value::Object(l)) => Value::Object(
            l.iter()
                .filter_map(|(k, lv)| Some((k.clone(), shaped(f.get(k)?, lv))))
                .collect(),
        ),
        (Value::Array(f), Value::Array(l)) => {
            Value::Array(f.iter().zip(l).map(|(fv, lv)| shaped(fv, lv)).collect())
        }
        (f, _) => f.clone(),
    }
}

/// Writes `config` to `path`, a new file: an existing one (a config the user wrote, say) is
/// never overwritten.
pub fn save(path: &Path, config: &Value) -> Result<(), Failure> {
    let text = serde_json::to_string_pretty(config)
        .map_err(|e| Failure::other(anyhow!("--save-config: {e}")))?;
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::AlreadyExists => Failure::bad_input(anyhow!(
                "--save-config {}: the file exists; name a new file (plateau does not overwrite it)",
                path.display()
            )),
            _ => Failure::io(anyhow!("--save-config {}: {e}", path.display())),
        })?;
    writeln!(file, "{text}")
        .map_err(|e| Failure::io(anyhow!("--save-config {}: {e}", path.display())))
}

/// A directory-safe id for `model`: its last path segment (`meta-llama/Llama-3.1-8B` ->
/// `Llama-3.1-8B`), made safe for a file name as the report's figure names are.
fn model_id(model: &str) -> String {
    let last = model.rsplit('/').find(|s| !s.is_empty()).unwrap_or("model");
    plateau_report::figures::timeline::file_part(last)
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;
    use crate::args::{Cli, Command};

    fn args(flags: &[&str]) -> RunArgs {
        let argv = ["plateau", "run"].iter().chain(flags);
        match Cli::try_parse_from(argv).expect("parses").command {
            Command::Run(a) => *a,
            _ => unreachable!("run"),
        }
    }

    #[test]
    fn flags_become_a_config_with_first_look_defaults() {
        let a = args(&[
            "--url",
            "http://gpu:8000/v1",
            "--model",
            "meta-llama/Llama-3.1-8B",
        ]);
        let c = config(&a).expect("a config");
        assert_eq!(c["endpoints"][0]["url"], "http://gpu:8000/v1");
        assert_eq!(c["endpoints"][0]["engine"], "openai");
        assert_eq!(c["models"][0]["name"], "meta-llama/Llama-3.1-8B");
        assert_eq!(c["models"][0]["id"], "Llama-3.1-8B");
        assert_eq!(c["scenarios"], json!(["A1", "B1"]));
        assert_eq!(c["batch_sizes"], json!([1, 4, 16]));
        assert_eq!(c["output_dir"], "results/Llama-3.1-8B");
        let parsed: plateau_model::config::RunConfig =
            serde_json::from_value(c).expect("a valid config");
        assert_eq!(parsed.measure_seconds, 30.0);
    }

    #[test]
    fn lists_and_the_rest_come_from_their_flags() {
        let a = args(&[
            "--url",
            "sim://",
            "--model",
            "m x",
            "--engine",
            "sim",
            "--scenarios",
            "A1,C",
            "--concurrency",
            "2,8",
            "--tokenizer",
            "o200k_base",
        ]);
        let c = config(&a).expect("a config");
        assert_eq!(c["endpoints"][0]["engine"], "sim");
        assert_eq!(c["scenarios"], json!(["A1", "C"]));
        assert_eq!(c["batch_sizes"], json!([2, 8]));
        assert_eq!(c["tokenizer"], "o200k_base");
        assert_eq!(c["models"][0]["id"], "m-x");
        assert_eq!(keys(&a).len(), 6);
        assert!(config(&args(&[])).is_none());
    }

    #[test]
    fn only_the_given_keys_are_shown_with_their_resolved_values() {
        let full = json!({
            "endpoints": [{"name": "server", "url": "http://u:***@gpu/v1", "engine": "openai",
                           "api": "chat", "headers": []}],
            "models": [{"id": "m", "name": "m"}],
            "seed": null,
            "slo": null,
            "measure_seconds": 30.0,
        });
        let like = json!({
            "endpoints": [{"name": "server", "url": "http://u:secret@gpu/v1", "engine": "openai"}],
            "models": [{"id": "m", "name": "m"}],
            "measure_seconds": 30,
        });
        assert_eq!(
            shaped(&full, &like),
            json!({
                "endpoints": [{"name": "server", "url": "http://u:***@gpu/v1", "engine": "openai"}],
                "models": [{"id": "m", "name": "m"}],
                "measure_seconds": 30.0,
            })
        );
    }

    #[test]
    fn save_config_writes_a_new_file_only() {
        let dir = tempfile::tempdir().expect("a temp dir");
        let path = dir.path().join("saved.json");
        save(&path, &json!({"seed": 7})).expect("a new file is written");
        let back: Value =
            serde_json::from_str(&std::fs::read_to_string(&path).expect("readable")).expect("json");
        assert_eq!(back, json!({"seed": 7}));
        let again = save(&path, &json!({"seed": 8})).expect_err("an existing file is kept");
        assert_eq!(again.code(), crate::exit::BAD_INPUT);
        assert!(
            std::fs::read_to_string(&path)
                .expect("readable")
                .contains('7')
        );
    }

    #[test]
    fn url_needs_model_and_excludes_config() {
        let parse = |f: &[&str]| Cli::try_parse_from(["plateau", "run"].iter().chain(f));
        assert!(parse(&["--url", "http://x/v1"]).is_err());
        assert!(parse(&["--model", "m"]).is_err());
        assert!(parse(&["--url", "http://x/v1", "--model", "m", "--config", "c.json"]).is_err());
        assert!(parse(&["--scenarios", "A1"]).is_err(), "only with --url");
    }
}
