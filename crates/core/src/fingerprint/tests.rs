//! Fingerprints: what goes in, what stays out, a stable hash, and named differences.

use serde_json::json;

use super::*;
use plateau_model::config::RunConfig;

fn plan(edit: impl FnOnce(&mut Value)) -> Plan {
    let mut v = json!({
        "endpoints": [{"name": "vllm", "url": "http://localhost:8000/v1", "engine": "vllm",
            "headers": [{"name": "X-Team", "value": "search"},
                        {"name": "Authorization", "value": "Bearer hunter2"}],
            "extra_body": {"temperature": 0}}],
        "models": [{"id": "llama", "name": "meta-llama/Llama-3.1-8B-Instruct"}],
        "scenarios": ["A1"],
        "batch_sizes": [4],
        "fill_seconds": 1, "stabilize_seconds": 2, "measure_seconds": 3, "drain_seconds": 4,
        "max_tokens": 16
    });
    edit(&mut v);
    let config: RunConfig = serde_json::from_value(v).unwrap();
    Plan::build(&config, &|_| None).unwrap()
}

fn of(plan: &Plan) -> Fingerprint {
    let workload = WorkloadInfo {
        id: "A1".into(),
        name: "Same Short".into(),
        source: "built-in text (seed 0)".into(),
        ..WorkloadInfo::default()
    };
    super::of(plan, &plan.cells()[0], workload, "cl100k_base".into())
}

#[test]
fn the_same_plan_gives_the_same_hash() {
    let a = of(&plan(|_| {}));
    let b = of(&plan(|_| {}));
    assert_eq!(a, b);
    assert!(
        a.hash.starts_with("fnv1a64:") && a.hash.len() == 8 + 16,
        "{}",
        a.hash
    );
}

#[test]
fn header_values_never_enter_it() {
    let f = of(&plan(|_| {}));
    let text = serde_json::to_string(&f).unwrap();
    assert!(
        !text.contains("hunter2") && !text.contains("search"),
        "{text}"
    );
    assert_eq!(f.inputs.header_names, ["authorization", "x-team"]);
    let other = of(&plan(|v| {
        v["endpoints"][0]["headers"][1]["value"] = json!("Bearer rotated");
    }));
    assert_eq!(f.hash, other.hash, "a rotated key is the same cell");
}

/// A change to the test config.
type Edit = fn(&mut Value);

#[test]
fn each_input_changes_the_hash_and_is_named() {
    let base = of(&plan(|_| {}));
    let cases: [(Edit, &str); 8] = [
        (|v| v["max_tokens"] = json!(32), "max_tokens 16 -> 32"),
        (
            |v| v["endpoints"][0]["url"] = json!("http://gpu:8000/v1"),
            "url http://localhost:8000/v1 -> http://gpu:8000/v1",
        ),
        (
            |v| v["endpoints"][0]["extra_body"] = json!({"temperature": 0.7}),
            "extra_body.temperature 0 -> 0.7",
        ),
        (|v| v["seed"] = json!(7), "seed 0 -> 7"),
        (|v| v["measure_seconds"] = json!(5), "measure_s 3.0 -> 5.0"),
        (
            |v| v["drain_seconds"] = Value::Null,
            "drain configured 4 s -> derived, at most 600 s",
        ),
        (|v| v["stream"] = json!(false), "stream true -> false"),
        (
            |v| v["endpoints"][0]["api"] = json!("completions"),
            "api chat -> completions",
        ),
    ];
    for (edit, named) in cases {
        let changed = of(&plan(edit));
        assert_ne!(base.hash, changed.hash, "{named}");
        let diff = differences(
            &serde_json::to_value(&base.inputs).unwrap(),
            &serde_json::to_value(&changed.inputs).unwrap(),
        );
        assert_eq!(diff, [named]);
    }
}

#[test]
fn the_hash_ignores_key_order() {
    let a = json!({"b": 1, "a": {"y": [1, {"q": 2, "p": 3}], "x": "s"}});
    let b = json!({"a": {"x": "s", "y": [1, {"p": 3, "q": 2}]}, "b": 1});
    assert_eq!(hash_of(&a), hash_of(&b));
    assert_ne!(hash_of(&a), hash_of(&json!({"b": 2})));
    // Pinned: a stored hash must stay valid across plateau versions.
    assert_eq!(hash_of(&json!({})), "fnv1a64:08f44b07b5901a25");
}

#[test]
fn fields_missing_on_one_side_are_named() {
    let diff = differences(&json!({"a": 1}), &json!({"a": 1, "tokenizer": "x"}));
    assert_eq!(diff, ["tokenizer (absent) -> x"]);
    let long = "z".repeat(200);
    let diff = differences(&json!({"s": "a"}), &json!({"s": long}));
    assert!(diff[0].ends_with("...") && diff[0].len() < 100, "{diff:?}");
}

#[test]
fn the_simulator_is_known_by_its_settings_not_its_port() {
    let f = of(&plan(|v| {
        v["endpoints"] = json!([{"name": "sim", "engine": "sim", "sim": "fixed"}]);
    }));
    assert_eq!(f.inputs.url, "sim://");
    assert_eq!(f.inputs.sim, Some(json!("fixed")));
}

#[test]
fn labels_and_hardware_stay_out_of_it() {
    let bare = of(&plan(|_| {}));
    let described = of(&plan(|v| {
        v["endpoints"][0]["labels"] = json!({"quantization": "fp8", "tp": "2"});
        v["endpoints"][0]["hardware"] =
            json!({"gpu": "H100 80GB", "gpu_count": 2, "cost_per_hour": 6.5});
    }));
    assert_eq!(
        bare, described,
        "they describe the numbers, they do not shape them: --resume keeps the cells"
    );
}

#[test]
fn output_lengths_are_max_tokens_when_fixed_and_the_distribution_otherwise() {
    use plateau_model::config::OutputTokens;
    use plateau_model::results::workload::OutputTokensInfo;
    let p = plan(|_| {});
    let with = |spec: &str| {
        let spec: OutputTokens = serde_json::from_str(spec).unwrap();
        let workload = WorkloadInfo {
            id: "A1".into(),
            output_tokens: Some(OutputTokensInfo {
                spec,
                requested: None,
            }),
            ..WorkloadInfo::default()
        };
        super::of(&p, &p.cells()[0], workload, "cl100k_base".into())
    };
    // A fixed length hashes as before distributions existed: `max_tokens` alone.
    let fixed = with("16");
    assert_eq!(fixed.inputs.max_tokens, Some(16));
    assert_eq!(fixed.inputs.workload.output_tokens, None);
    let plain = super::of(
        &p,
        &p.cells()[0],
        WorkloadInfo {
            id: "A1".into(),
            ..WorkloadInfo::default()
        },
        "cl100k_base".into(),
    );
    assert_eq!(fixed.hash, plain.hash);
    let uniform = with(r#"{"dist": "uniform", "min": 8, "max": 24}"#);
    assert_eq!(uniform.inputs.max_tokens, None);
    assert!(uniform.inputs.workload.output_tokens.is_some());
    let diff = differences(
        &serde_json::to_value(&fixed.inputs).unwrap(),
        &serde_json::to_value(&uniform.inputs).unwrap(),
    );
    assert_eq!(diff.len(), 2, "{diff:?}");
    assert_eq!(diff[0], "max_tokens 16 -> (absent)");
    assert!(
        diff[1].starts_with(r#"workload.output_tokens (absent) -> {"spec":{"dist":"uniform""#),
        "{diff:?}"
    );
}
