//! The config layering: file, env, --set; unknown keys rejected through the `config` crate;
//! errors naming the file and key path.

use std::path::PathBuf;

use super::*;

fn write(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("plateau-load-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("benchmark_config.json");
    std::fs::write(&path, text).unwrap();
    path
}

const BASE: &str = r#"{
  "endpoints": [{"name": "vllm", "url": "http://localhost:8000/v1", "engine": "vllm",
                 "headers": [{"name": "X-Team", "value": "Inference"}]}],
  "models": [{"id": "llama", "name": "meta-llama/Llama-3.1-8B-Instruct"}],
  "batch_sizes": [1, 2],
  "measure_seconds": 120
}"#;

fn no_env() -> Option<HashMap<String, String>> {
    Some(HashMap::new())
}

#[test]
fn file_alone() {
    let c = load(&write("file", BASE), &[], no_env()).unwrap();
    assert_eq!(c.batch_sizes, vec![1, 2]);
    assert_eq!(c.measure_seconds, 120.0);
    assert_eq!(
        c.endpoints[0].headers[0].value, "Inference",
        "values keep their case"
    );
    assert_eq!(c.models[0].name, "meta-llama/Llama-3.1-8B-Instruct");
}

#[test]
fn env_then_set_override_in_that_order() {
    let env: HashMap<String, String> = [
        ("PLATEAU__MEASURE_SECONDS", "30"),
        ("PLATEAU__BATCH_SIZES", "4,8,16"),
        ("PLATEAU__SLO__TTFT_MS", "250"),
        ("PLATEAU__STABILIZE_SECONDS", "7"),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v.to_owned()))
    .collect();
    let sets = [
        "stabilize_seconds=9".to_owned(),
        "endpoints[0].url=http://gpu:8000/v1".to_owned(),
    ];
    let c = load(&write("env", BASE), &sets, Some(env)).unwrap();
    assert_eq!(c.measure_seconds, 30.0);
    assert_eq!(c.batch_sizes, vec![4, 8, 16]);
    assert_eq!(c.slo.unwrap().ttft_ms, Some(250.0));
    assert_eq!(c.stabilize_seconds, 9.0, "--set wins over env");
    assert_eq!(c.endpoints[0].url.as_deref(), Some("http://gpu:8000/v1"));
}

#[test]
fn set_parses_json_values() {
    let sets = [
        "batch_sizes=[1,8,64]".to_owned(),
        "scenarios=[\"A1\",\"C\"]".to_owned(),
        "output_dir=results/x".to_owned(),
        "stream=false".to_owned(),
    ];
    let c = load(&write("json", BASE), &sets, no_env()).unwrap();
    assert_eq!(c.batch_sizes, vec![1, 8, 64]);
    assert_eq!(c.scenarios, vec!["A1", "C"]);
    assert_eq!(c.output_dir, PathBuf::from("results/x"));
    assert!(!c.stream);
}

#[test]
fn unknown_keys_are_rejected_with_their_path() {
    let path = write(
        "unknown",
        &BASE.replace("\"measure_seconds\"", "\"measure_secondz\""),
    );
    let err = load(&path, &[], no_env()).unwrap_err().to_string();
    assert!(err.contains("benchmark_config.json"), "{err}");
    assert!(err.contains("unknown field `measure_secondz`"), "{err}");

    let nested = write(
        "nested",
        &BASE.replace("\"engine\": \"vllm\"", "\"engine\": \"vllm\", \"urll\": 1"),
    );
    let err = load(&nested, &[], no_env()).unwrap_err().to_string();
    assert!(
        err.contains("endpoints[0]") && err.contains("unknown field `urll`"),
        "{err}"
    );

    let err = load(
        &write("set", BASE),
        &["measure_secs=3".to_owned()],
        no_env(),
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("unknown field `measure_secs`"), "{err}");
}

#[test]
fn type_errors_name_the_key() {
    let err = load(
        &write("type", BASE),
        &["batch_sizes=[1,\"x\"]".to_owned()],
        no_env(),
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("batch_sizes"), "{err}");
    let err = load(
        &write("engine", BASE),
        &["endpoints[0].engine=vllmm".to_owned()],
        no_env(),
    )
    .unwrap_err()
    .to_string();
    assert!(
        err.contains("endpoints[0].engine") && err.contains("vllmm"),
        "{err}"
    );
}

#[test]
fn bad_json_and_missing_file_name_the_file() {
    let err = load(&write("badjson", "{ not json"), &[], no_env()).unwrap_err();
    assert!(
        format!("{err:#}").contains("benchmark_config.json"),
        "{err:#}"
    );
    let err = load(Path::new("/nope/benchmark_config.json"), &[], no_env())
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("/nope/benchmark_config.json: no such config file"),
        "{err}"
    );
    let err = load(
        &write("noeq", BASE),
        &["measure_seconds".to_owned()],
        no_env(),
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("expected KEY=VALUE"), "{err}");
}

#[test]
fn integers_must_be_integers() {
    // `config` would round these: 2.5 -> c3, 16.7 -> 17 tokens.
    for (name, text, key) in [
        (
            "float-n",
            BASE.replace("[1, 2]", "[1, 2.5]"),
            "batch_sizes[1]",
        ),
        (
            "float-tokens",
            BASE.replace("\"measure_seconds\": 120", "\"max_tokens\": 16.7"),
            "max_tokens",
        ),
    ] {
        let err = format!(
            "{:#}",
            load(&write(name, &text), &[], no_env()).unwrap_err()
        );
        assert!(err.contains(key) && err.contains("floating point"), "{err}");
    }
    let err = format!(
        "{:#}",
        load(
            &write("float-set", BASE),
            &["max_tokens=3.5".into()],
            no_env()
        )
        .unwrap_err()
    );
    assert!(
        err.contains("max_tokens") && err.contains("floating point"),
        "{err}"
    );
    // Whole numbers written as integers still load, into float fields too.
    assert_eq!(
        load(&write("ints", BASE), &[], no_env())
            .unwrap()
            .measure_seconds,
        120.0
    );
}

#[test]
fn duplicate_keys_are_an_error_naming_the_path() {
    let text = BASE.replace(
        "\"engine\": \"vllm\",",
        "\"engine\": \"vllm\", \"url\": \"http://other:8000/v1\",",
    );
    let err = format!(
        "{:#}",
        load(&write("dup", &text), &[], no_env()).unwrap_err()
    );
    assert!(
        err.contains("duplicate key `endpoints[0].url`") && err.contains("line 2"),
        "{err}"
    );
    let top = BASE.replace(
        "\"measure_seconds\": 120",
        "\"measure_seconds\": 120, \"measure_seconds\": 5",
    );
    let err = format!(
        "{:#}",
        load(&write("dup-top", &top), &[], no_env()).unwrap_err()
    );
    assert!(err.contains("duplicate key `measure_seconds`"), "{err}");
}
