//! The config layering: file, env, --set; unknown keys rejected through the `config` crate;
//! errors naming the file and key path.

use std::path::PathBuf;

use super::*;

/// A config file in its own temp directory, removed when this is dropped; derefs to the
/// file's path. `load(&write(..), ..)` keeps it for the whole statement, which is enough.
struct Written {
    path: PathBuf,
    _dir: tempfile::TempDir,
}

impl std::ops::Deref for Written {
    type Target = Path;

    fn deref(&self) -> &Path {
        &self.path
    }
}

fn write(name: &str, text: &str) -> Written {
    let dir = tempfile::Builder::new()
        .prefix(&format!("plateau-load-{name}-"))
        .tempdir()
        .unwrap();
    let path = dir.path().join("benchmark_config.json");
    std::fs::write(&path, text).unwrap();
    Written { path, _dir: dir }
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
    let c = load(&write("file", BASE), &[], no_env()).unwrap().config;
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
        ("PLATEAU__REQUEST_RATES", "2.5,10"),
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
    let c = load(&write("env", BASE), &sets, Some(env)).unwrap().config;
    assert_eq!(c.measure_seconds, 30.0);
    assert_eq!(c.batch_sizes, vec![4, 8, 16]);
    assert_eq!(c.request_rates, vec![2.5, 10.0]);
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
    let c = load(&write("json", BASE), &sets, no_env()).unwrap().config;
    assert_eq!(c.batch_sizes, vec![1, 8, 64]);
    assert_eq!(c.scenarios, vec!["A1", "C"]);
    assert_eq!(c.output_dir, PathBuf::from("results/x"));
    assert!(!c.stream);
}

#[test]
fn set_lists_take_bare_words() {
    let sets = [
        "scenarios=[A1, B1,C]".to_owned(),
        "batch_sizes=[1,4]".to_owned(),
        "request_rates=[2.5, 10]".to_owned(),
    ];
    let c = load(&write("bare", BASE), &sets, no_env()).unwrap().config;
    assert_eq!(c.scenarios, vec!["A1", "B1", "C"]);
    assert_eq!(c.batch_sizes, vec![1, 4]);
    assert_eq!(c.request_rates, vec![2.5, 10.0]);
    assert_eq!(set::parse_value("[]"), serde_json::json!([]));
    assert_eq!(
        set::parse_value("[a]b"),
        serde_json::json!("[a]b"),
        "not a list"
    );
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
            .config
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

fn err(name: &str, text: &str, sets: &[&str], env: &[(&str, &str)]) -> String {
    let sets: Vec<String> = sets.iter().map(|s| (*s).to_owned()).collect();
    let env = env
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
    format!(
        "{:#}",
        load(&write(name, text), &sets, Some(env)).unwrap_err()
    )
}

#[test]
fn a_set_index_past_the_list_is_an_error_naming_the_entries() {
    assert_eq!(
        err("idx", BASE, &["endpoints[5].url=http://gpu:8000/v1"], &[]),
        "--set endpoints[5].url=http://gpu:8000/v1: endpoints[5] is out of range: \
         endpoints has 1 entry, endpoints[0]; --set changes an entry but cannot add one \
         (to replace the whole list, --set 'endpoints=[...]')"
    );
    assert_eq!(
        err("idx-neg", BASE, &["models[-2].name=x"], &[]),
        "--set models[-2].name=x: models[-2] is out of range: models has 1 entry, models[0]; \
         --set changes an entry but cannot add one (to replace the whole list, --set 'models=[...]')"
    );
    assert_eq!(
        err("idx-key", BASE, &["endpoints.url=http://gpu:8000/v1"], &[]),
        "--set endpoints.url=http://gpu:8000/v1: endpoints is a list; name an entry, \
         e.g. endpoints[0].url"
    );
    assert_eq!(
        err("idx-absent", BASE, &["endpoints[0].extra_body[0]=1"], &[]),
        "--set endpoints[0].extra_body[0]=1: endpoints[0].extra_body is not set, so `[0]` \
         names nothing (to set the whole list, --set 'endpoints[0].extra_body=[...]')"
    );
    assert_eq!(
        err("idx-scalar", BASE, &["measure_seconds[0]=1"], &[]),
        "--set measure_seconds[0]=1: measure_seconds is not a list, so `[0]` names nothing"
    );
    // A negative index counts from the end, as in the `config` crate.
    let sets = ["models[-1].name=other".to_owned()];
    let c = load(&write("idx-ok", BASE), &sets, no_env())
        .unwrap()
        .config;
    assert_eq!(c.models[0].name, "other");
}

#[test]
fn decode_errors_name_the_set_or_variable_not_the_file() {
    let engines = "one of `vllm`, `sglang`, `nim`, `tgi`, `llamacpp`, `openai`, `sim`";
    assert_eq!(
        err("src-engine", BASE, &["endpoints[0].engine=3"], &[]),
        format!(
            "--set endpoints[0].engine=3: endpoints[0].engine: invalid type: integer `3`, expected {engines}"
        )
    );
    assert!(
        err("src-unknown", BASE, &["endpoints[0].urll=x"], &[]).starts_with(
            "--set endpoints[0].urll=x: endpoints[0].urll: unknown field `urll`, expected one of `name`"
        )
    );
    assert_eq!(
        err("src-env", BASE, &[], &[("PLATEAU__STREAM", "maybe")]),
        "PLATEAU__STREAM (environment): stream: invalid type: string \"maybe\", expected a boolean"
    );
    assert_eq!(
        err(
            "src-env-nested",
            BASE,
            &[],
            &[("PLATEAU__SLO__TTFT_MS", "fast")]
        ),
        "PLATEAU__SLO__TTFT_MS (environment): slo.ttft_ms: invalid type: string \"fast\", expected f64"
    );
    // The file's own mistakes still name the file, whatever else was given.
    let file = write("src-file", &BASE.replace("\"vllm\"", "\"vllmm\""));
    let e = format!(
        "{:#}",
        load(&file, &["measure_seconds=5".to_owned()], no_env()).unwrap_err()
    );
    assert_eq!(
        e,
        format!(
            "{}: endpoints[0].engine: unknown variant `vllmm`, expected {engines}",
            file.display()
        )
    );
    // A --set replaces the variable's value, and with it the blame.
    let env = [("PLATEAU__MEASURE_SECONDS".to_owned(), "abc".to_owned())];
    let sets = ["measure_seconds=5".to_owned()];
    let c = load(
        &write("src-both", BASE),
        &sets,
        Some(env.into_iter().collect()),
    )
    .unwrap();
    assert_eq!(c.config.measure_seconds, 5.0);
    assert_eq!(c.origins.of("measure_seconds"), "--set measure_seconds=5");
}

#[test]
fn sets_apply_in_command_line_order() {
    let two = r#"endpoints=[{"name": "a", "engine": "sim"}, {"name": "b", "engine": "sim"}]"#;
    let sets = [two.to_owned(), "endpoints[1].name=c".to_owned()];
    let c = load(&write("order", BASE), &sets, no_env()).unwrap().config;
    assert_eq!(c.endpoints[1].name, "c");
    // The other way round, the index is checked against the file's one endpoint.
    assert!(
        err("order-rev", BASE, &["endpoints[1].name=c", two], &[])
            .starts_with("--set endpoints[1].name=c: endpoints[1] is out of range")
    );
}

#[test]
fn origins_follow_what_each_source_wrote() {
    let file = write("origins", BASE);
    let sets = [
        "endpoints[0].url=http://a:1/v1".to_owned(),
        r#"endpoints[0]={"extra_body": {"max_tokens": 3}}"#.to_owned(),
        "batch_sizes=[1, 0]".to_owned(),
    ];
    let env = [("PLATEAU__SLO__TTFT_MS".to_owned(), "250".to_owned())];
    let c = load(&file, &sets, Some(env.into_iter().collect())).unwrap();
    // An object merges into the file's: the file's keys stay, and stay the file's.
    assert_eq!(c.config.endpoints[0].name, "vllm");
    assert_eq!(c.config.endpoints[0].url.as_deref(), Some("http://a:1/v1"));
    let o = &c.origins;
    assert_eq!(o.of("endpoints[0].name"), file.display().to_string());
    assert_eq!(o.of("endpoints[0].url"), format!("--set {}", sets[0]));
    assert_eq!(
        o.of("endpoints[0].extra_body.max_tokens"),
        format!("--set {}", sets[1])
    );
    assert_eq!(o.of("batch_sizes[1]"), "--set batch_sizes=[1, 0]");
    assert_eq!(o.of("slo.ttft_ms"), "PLATEAU__SLO__TTFT_MS (environment)");
    assert_eq!(o.of("models[0].name"), file.display().to_string());
    // A later --set of the whole list takes the blame for everything in it.
    let sets = [
        "endpoints[0].url=http://a:1/v1".to_owned(),
        r#"endpoints=[{"name": "a", "engine": "sim"}]"#.to_owned(),
    ];
    let c = load(&file, &sets, no_env()).unwrap();
    assert_eq!(
        c.origins.of("endpoints[0].url"),
        format!("--set {}", sets[1])
    );
}

#[test]
fn malformed_set_keys_are_named() {
    for (set, want) in [
        ("[0]=1", "--set [0]=1: `[0]`: expected a key name"),
        ("a..b=1", "--set a..b=1: `a..b`: expected a key name"),
        ("a[x]=1", "--set a[x]=1: `a[x]`: `[x]` is not a list index"),
        ("a[0=1", "--set a[0=1: `a[0`: `[` without `]`"),
        ("a b=1", "--set a b=1: `a b`: expected `.` or `[` after `a`"),
        ("=1", "--set =1: the key is empty"),
    ] {
        assert_eq!(err("keys", BASE, &[set], &[]), want);
    }
}

#[test]
fn a_built_value_loads_as_its_text_does() {
    let value: serde_json::Value = serde_json::from_str(BASE).unwrap();
    let env: HashMap<String, String> =
        [("PLATEAU__MEASURE_SECONDS".to_owned(), "30".to_owned())].into();
    let sets = vec!["batch_sizes=[4, 8]".to_owned()];
    let text = load_text(BASE, Path::new("--url"), &sets, Some(env.clone())).unwrap();
    let built = load_value(&value, Path::new("--url"), &sets, Some(env)).unwrap();
    let (text, built) = (
        serde_json::to_value(&text.config).unwrap(),
        serde_json::to_value(&built.config).unwrap(),
    );
    assert_eq!(built, text);
    assert_eq!(built["measure_seconds"], serde_json::json!(30.0));
    assert_eq!(built["batch_sizes"], serde_json::json!([4, 8]));
}
