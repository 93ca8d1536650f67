//! Table tests of every configuration error the plan reports.

use super::*;

fn config(json: &str) -> RunConfig {
    serde_json::from_str(json).expect("test config parses")
}

fn base() -> serde_json::Value {
    serde_json::json!({
        "endpoints": [{"name": "vllm", "url": "http://localhost:8000/v1", "engine": "vllm"}],
        "models": [{"id": "llama", "name": "meta-llama/Llama-3.1-8B-Instruct"}],
        "scenarios": ["A1"],
        "batch_sizes": [1, 4],
        "fill_seconds": 1, "stabilize_seconds": 2, "measure_seconds": 3, "drain_seconds": 4
    })
}

fn no_env(_: &str) -> Option<String> {
    None
}

fn build(v: &serde_json::Value) -> Result<Plan, PlanError> {
    Plan::build(&config(&v.to_string()), &no_env)
}

fn problems(v: serde_json::Value) -> Vec<String> {
    match build(&v) {
        Ok(_) => panic!("expected an error for {v}"),
        Err(e) => e.problems.iter().map(|p| p.to_string()).collect(),
    }
}

#[test]
fn a_good_config_builds_a_plan() {
    let plan = build(&base()).unwrap();
    assert_eq!(plan.cells().len(), 2);
    assert_eq!(plan.phases.measure, Duration::from_secs(3));
    assert!(plan.endpoints[0].ignore_eos, "vllm supports ignore_eos");
    assert_eq!(
        plan.cell_dir(&plan.cells()[1]),
        PathBuf::from("results/latest/vllm/llama/A1/c4")
    );
    let (lo, hi) = plan.estimated_duration();
    assert_eq!((lo, hi), (Duration::from_secs(12), Duration::from_secs(20)));
}

#[test]
fn repeats_interleave_endpoints_and_rotate_who_goes_first() {
    let mut v = base();
    v["endpoints"] = serde_json::json!([
        {"name": "a", "url": "http://localhost:8000/v1", "engine": "vllm"},
        {"name": "b", "url": "http://localhost:8001/v1", "engine": "vllm"}
    ]);
    v["repeats"] = serde_json::json!(2);
    let plan = build(&v).unwrap();
    let order: Vec<String> = plan
        .cells()
        .iter()
        .map(|c| {
            let dir = plan.cell_dir(c);
            let rel = dir.strip_prefix("results/latest").unwrap();
            rel.to_string_lossy().replace("/llama/A1", "")
        })
        .collect();
    assert_eq!(
        order,
        [
            "a/c1", "b/c1", "a/c4", "b/c4", "b/c1-2", "a/c1-2", "b/c4-2", "a/c4-2"
        ]
    );
    // One run keeps the order of a run without `repeats`: endpoints outermost.
    v["repeats"] = serde_json::json!(1);
    let plan = build(&v).unwrap();
    let endpoints: Vec<usize> = plan.cells().iter().map(|c| c.endpoint).collect();
    assert_eq!(endpoints, [0, 0, 1, 1]);
}

#[test]
fn without_drain_seconds_the_drain_limit_is_derived() {
    let mut v = base();
    v.as_object_mut().unwrap().remove("drain_seconds");
    v["request_timeout_seconds"] = serde_json::json!(120);
    let plan = build(&v).unwrap();
    let ceiling = Duration::from_secs(120);
    assert_eq!(plan.phases.drain, DrainLimit::Derived { ceiling });
    assert_eq!(
        plan.schedule(&crate::plan::Load::Concurrency(4)).drain,
        DrainLimit::Derived { ceiling }
    );
    // The estimate takes the derived limit's floor, 30 s, not the 120 s ceiling:
    // 2 cells x (1 + 2 + 3 s) and 2 x (6 + 30 s).
    let (lo, hi) = plan.estimated_duration();
    assert_eq!((lo, hi), (Duration::from_secs(12), Duration::from_secs(72)));
    // A configured limit stays as written.
    let plan = build(&base()).unwrap();
    assert_eq!(
        plan.phases.drain,
        DrainLimit::Configured(Duration::from_secs(4))
    );
}

#[test]
fn each_invalid_field_is_named() {
    // (json pointer, value, expected text in the problem)
    let rows: &[(&str, serde_json::Value, &str)] = &[
        (
            "/endpoints",
            serde_json::json!([]),
            "endpoints: expected at least one entry",
        ),
        (
            "/models",
            serde_json::json!([]),
            "models: expected at least one entry",
        ),
        (
            "/repeats",
            serde_json::json!(0),
            "repeats: got 0, expected from 1 to 1000",
        ),
        (
            "/scenarios",
            serde_json::json!([]),
            "scenarios: expected at least one entry",
        ),
        (
            "/batch_sizes",
            serde_json::json!([]),
            "batch_sizes: expected at least one concurrency (or `request_rates`, or a `capacity` search)",
        ),
        (
            "/batch_sizes",
            serde_json::json!([1, 0]),
            "batch_sizes[1]: expected a concurrency of at least 1",
        ),
        (
            "/batch_sizes",
            serde_json::json!([2, 2]),
            "batch_sizes: expected each concurrency once",
        ),
        (
            "/measure_seconds",
            serde_json::json!(0),
            "measure_seconds: got 0, expected a number of seconds above 0",
        ),
        (
            "/fill_seconds",
            serde_json::json!(-1),
            "fill_seconds: got -1, expected a number of seconds >= 0",
        ),
        (
            "/request_timeout_seconds",
            serde_json::json!(0),
            "request_timeout_seconds: got 0",
        ),
        (
            "/max_tokens",
            serde_json::json!(0),
            "max_tokens: got 0, expected from 1 to 1000000 tokens",
        ),
        (
            "/max_tokens",
            serde_json::json!({"dist": "uniform", "min": 10, "max": 5}),
            "max_tokens.max: got 5, expected at least min (10) and at most 1000000",
        ),
        (
            "/max_tokens",
            serde_json::json!({"dist": "normal", "mean": 100, "stddev": -2}),
            "max_tokens.stddev: got -2, expected 0 or more tokens",
        ),
        (
            "/max_tokens",
            serde_json::json!({"dist": "lognormal", "median": 0, "sigma": 1}),
            "max_tokens.median: got 0, expected above 0 and at most 1000000 tokens",
        ),
        (
            "/endpoints/0/url",
            serde_json::json!("ftp://x/v1"),
            "endpoints[0].url: `ftp://x/v1` must start with http:// or https://",
        ),
        (
            "/endpoints/0/url",
            serde_json::json!("http://u:pw-1234@h:8000/v1?key=k-5678#x"),
            "endpoints[0].url: `http://***@h:8000/v1?key=***#x` must not carry a #fragment",
        ),
        (
            "/endpoints/0/url",
            serde_json::json!(null),
            "endpoints[0].url: required for engine `vllm`",
        ),
        (
            "/endpoints/0/name",
            serde_json::json!("a/b"),
            "endpoints[0].name: `a/b` must be a non-empty name",
        ),
        (
            "/endpoints/0/api_key_env",
            serde_json::json!("PLATEAU_TEST_NOPE"),
            "endpoints[0].api_key_env: environment variable `PLATEAU_TEST_NOPE` is not set",
        ),
        (
            "/endpoints/0/headers",
            serde_json::json!([{"name": "bad header", "value": "x"}]),
            "endpoints[0].headers[0].name: `bad header` is not a valid HTTP header name",
        ),
        (
            "/endpoints/0/session_header",
            serde_json::json!("session id"),
            "endpoints[0].session_header: `session id` is not a valid HTTP header name",
        ),
        (
            "/endpoints/0/headers",
            serde_json::json!([{"name": "x-a", "value": "a\nb"}]),
            "endpoints[0].headers[0].value: expected visible ASCII text",
        ),
        (
            "/endpoints/0/extra_body",
            serde_json::json!({"stream": false}),
            "endpoints[0].extra_body.stream: is set by plateau",
        ),
        (
            "/endpoints/0/sim",
            serde_json::json!({"profile": "fixed"}),
            "endpoints[0].sim: only applies to the in-process simulator",
        ),
        (
            "/models/0/id",
            serde_json::json!(".."),
            "models[0].id: `..` must be a non-empty name",
        ),
        (
            "/models/0/name",
            serde_json::json!(" "),
            "models[0].name: expected the model name the server serves",
        ),
        (
            "/scenarios",
            serde_json::json!(["A1", "A1"]),
            "scenarios: `A1` appears twice",
        ),
        (
            "/steady/min_concurrency_ratio",
            serde_json::json!(1.5),
            "steady.min_concurrency_ratio: got 1.5, expected a fraction between 0 and 1",
        ),
        (
            "/request_rates",
            serde_json::json!([5, 0]),
            "request_rates[1]: got 0, expected requests per second from 0.001 to 1000000",
        ),
        (
            "/request_rates",
            serde_json::json!([2.5, 2.5001]),
            "request_rates: expected each rate once (rates are kept to three decimals)",
        ),
        (
            "/arrival",
            serde_json::json!({"gamma": {"burstiness": 0}}),
            "arrival.gamma.burstiness: got 0, expected a shape above 0 (1 is Poisson)",
        ),
        (
            "/max_concurrency",
            serde_json::json!(0),
            "max_concurrency: expected at least 1, or no key for no cap",
        ),
        (
            "/rate_unit",
            serde_json::json!("sessions"),
            "rate_unit: got \"sessions\" with no request_rates; expected session starts per \
             second in request_rates (or no rate_unit)",
        ),
        (
            "/capacity",
            serde_json::json!({"slo": {"max_error_rate": 0.01}}),
            "capacity.slo: expected at least one latency bound: ttft_p99_ms, tpot_p99_ms or e2e_p99_ms",
        ),
        (
            "/capacity",
            serde_json::json!({"slo": {"ttft_p99_ms": 0}, "max_probes": 1}),
            "capacity.slo.ttft_p99_ms: got 0, expected a number above 0",
        ),
        (
            "/capacity",
            serde_json::json!({"slo": {"ttft_p99_ms": 5, "max_error_rate": 1.0}, "max_probes": 1}),
            "capacity.max_probes: got 1, expected at least 2",
        ),
        (
            "/capacity",
            serde_json::json!({"slo": {"e2e_p99_ms": 5, "max_error_rate": 1.0}}),
            "capacity.slo.max_error_rate: got 1, expected a fraction from 0 up to (not including) 1",
        ),
        (
            "/capacity",
            serde_json::json!({"slo": {"ttft_p99_ms": 5}, "target_sessions": 0}),
            "capacity.target_sessions: got 0, expected at least 1 concurrent session, or no key for no plan",
        ),
        (
            "/slo",
            serde_json::json!({}),
            "slo: expected at least one of ttft_ms, tpot_ms, e2e_ms",
        ),
        (
            "/slo",
            serde_json::json!({"ttft_ms": -5}),
            "slo.ttft_ms: got -5, expected milliseconds above 0",
        ),
    ];
    for (pointer, value, want) in rows {
        let mut v = base();
        set(&mut v, pointer, value.clone());
        let got = problems(v);
        assert!(
            got.iter().any(|p| p.contains(want)),
            "{pointer}={value}: want `{want}`, got {got:?}"
        );
    }
}

/// Sets the value at a JSON pointer, creating objects on the way.
fn set(v: &mut serde_json::Value, pointer: &str, value: serde_json::Value) {
    let mut target = v;
    let keys: Vec<&str> = pointer.trim_start_matches('/').split('/').collect();
    for key in &keys[..keys.len() - 1] {
        target = match target {
            serde_json::Value::Array(items) => &mut items[key.parse::<usize>().unwrap()],
            other => other
                .as_object_mut()
                .unwrap()
                .entry(*key)
                .or_insert_with(|| serde_json::json!({})),
        };
    }
    let last = keys[keys.len() - 1];
    match target {
        serde_json::Value::Array(items) => items[last.parse::<usize>().unwrap()] = value,
        other => {
            other
                .as_object_mut()
                .unwrap()
                .insert(last.to_owned(), value);
        }
    }
}

#[test]
fn all_problems_are_reported_at_once() {
    let mut v = base();
    set(&mut v, "/max_tokens", serde_json::json!(0));
    set(&mut v, "/measure_seconds", serde_json::json!(0));
    assert_eq!(problems(v).len(), 2);
}

#[test]
fn url_without_path_gets_v1_and_trailing_slash_is_dropped() {
    assert_eq!(
        BaseUrl::parse("http://h:8000").unwrap().as_str(),
        "http://h:8000/v1"
    );
    assert_eq!(
        BaseUrl::parse("https://api.x.com/v1/").unwrap().as_str(),
        "https://api.x.com/v1"
    );
    let uri = BaseUrl::parse("http://h/v1")
        .unwrap()
        .join("chat/completions")
        .unwrap();
    assert_eq!(uri.to_string(), "http://h/v1/chat/completions");
}

#[test]
fn sim_without_url_runs_in_process() {
    let mut v = base();
    set(
        &mut v,
        "/endpoints",
        serde_json::json!([{"name": "sim", "engine": "sim", "sim": {"profile": "fixed"}}]),
    );
    let plan = build(&v).unwrap();
    assert_eq!(plan.endpoints[0].target, Target::InProcessSim);
    assert!(plan.endpoints[0].sim.is_some());
}

#[test]
fn api_key_is_read_from_env_and_redacted() {
    let mut v = base();
    set(
        &mut v,
        "/endpoints/0",
        serde_json::json!({"name": "hosted", "url": "https://api.example.com/v1", "engine": "openai",
            "api_key_env": "MY_KEY", "headers": [{"name": "X-Api-Key", "value": "hdr-secret"}, {"name": "X-Org", "value": "acme"}]}),
    );
    let env = |name: &str| (name == "MY_KEY").then(|| "sk-123".to_owned());
    let plan = Plan::build(&config(&v.to_string()), &env).unwrap();
    let e = &plan.endpoints[0];
    assert_eq!(e.api_key.as_ref().unwrap().expose(), "sk-123");
    assert!(!e.ignore_eos, "hosted OpenAI does not take ignore_eos");
    assert_eq!(e.scrub("k=sk-123 h=hdr-secret"), "k=*** h=***");
    let dumped = serde_json::to_string(&plan.redacted_config).unwrap();
    assert!(
        !dumped.contains("sk-123") && !dumped.contains("hdr-secret"),
        "{dumped}"
    );
    assert!(
        dumped.contains("acme") && dumped.contains("MY_KEY"),
        "{dumped}"
    );
    assert!(format!("{plan:?}").contains("Secret(***)"));
    assert!(!format!("{plan:?}").contains("sk-123"));
}

#[test]
fn ignore_eos_on_an_engine_without_it_warns() {
    let mut v = base();
    set(&mut v, "/endpoints/0/engine", serde_json::json!("tgi"));
    set(&mut v, "/ignore_eos", serde_json::json!(true));
    let plan = build(&v).unwrap();
    assert!(
        plan.warnings.iter().any(|w| w.contains("ignore_eos")),
        "{:?}",
        plan.warnings
    );
}

#[test]
fn replies_that_may_stop_early_are_said() {
    let warned = |plan: &Plan| {
        plan.warnings
            .iter()
            .filter(|w| w.contains("ignore_eos is off"))
            .cloned()
            .collect::<Vec<_>>()
    };
    let mut v = base();
    assert!(warned(&build(&v).unwrap()).is_empty(), "vLLM sends it");
    set(&mut v, "/endpoints/0/engine", serde_json::json!("tgi"));
    let w = warned(&build(&v).unwrap());
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(w[0].contains("engine `tgi` has no such option"), "{w:?}");
    set(&mut v, "/ignore_eos", serde_json::json!(false));
    assert!(
        warned(&build(&v).unwrap()).is_empty(),
        "said in the config: no warning"
    );
}

#[test]
fn extra_body_may_not_set_what_plateau_sends() {
    let rows = [
        (
            "max_tokens",
            "is set by plateau; use the top-level `max_tokens` instead",
        ),
        (
            "max_completion_tokens",
            "is set by plateau; plateau bounds the output with `max_tokens`; use the top-level `max_tokens` instead",
        ),
        (
            "min_tokens",
            "is set by plateau; plateau sets it to `max_tokens` on vLLM with `ignore_eos`; use the top-level `ignore_eos` and `max_tokens` instead",
        ),
        (
            "ignore_eos",
            "is set by plateau; use the top-level `ignore_eos` instead",
        ),
        (
            "stream",
            "is set by plateau; use the top-level `stream` instead",
        ),
        (
            "stream_options",
            "is set by plateau; plateau sets it to count tokens (`include_usage`, and `continuous_usage_stats` where the engine has it); turn streaming off with the top-level `stream`",
        ),
        (
            "model",
            "is set by plateau; the model comes from `models[].name`",
        ),
        (
            "messages",
            "is set by plateau; the prompt comes from the scenario",
        ),
        (
            "prompt",
            "is set by plateau; the prompt comes from the scenario",
        ),
    ];
    for (key, want) in rows {
        assert_eq!(
            extra_body_problems(serde_json::json!({"temperature": 0, key: 3})),
            vec![format!("endpoints[0].extra_body.{key}: {want}")]
        );
    }
    assert_eq!(
        extra_body_problems(serde_json::json!({"temperature": 0, "top_p": 0.9})),
        Vec::<String>::new(),
        "keys plateau does not send pass"
    );
}

/// The problems of the base config with `body` as its endpoint's `extra_body`.
fn extra_body_problems(body: serde_json::Value) -> Vec<String> {
    let mut v = base();
    set(&mut v, "/endpoints/0/extra_body", body);
    build(&v).map_or_else(
        |e| e.problems.iter().map(|p| p.to_string()).collect(),
        |_| Vec::new(),
    )
}

#[test]
fn extra_body_may_not_make_a_reply_more_than_one_measured_stream() {
    let refused = [
        (
            "n",
            serde_json::json!(2),
            "got 2: several completions per request would be counted as one stream of all their tokens (TPOT, ITL and throughput all wrong); one slot is one completion, so raise the concurrency instead",
        ),
        (
            "best_of",
            serde_json::json!(4),
            "got 4: the server would generate several completions and return one, working for more tokens than plateau sees; remove it",
        ),
        (
            "echo",
            serde_json::json!(true),
            "got true: the prompt would come back as output and be counted as generated tokens; remove it",
        ),
    ];
    for (key, value, want) in refused {
        assert_eq!(
            extra_body_problems(serde_json::json!({"temperature": 0, key: value})),
            vec![format!("endpoints[0].extra_body.{key}: {want}")]
        );
    }
    assert_eq!(
        extra_body_problems(serde_json::json!({"n": 1, "best_of": 1, "echo": false})),
        Vec::<String>::new(),
        "the harmless values pass"
    );
}

#[test]
fn every_key_the_wire_sends_is_owned() {
    use crate::workload::{Message, Prompt, Role};
    let plan = build(&base()).unwrap();
    let prompt = Prompt {
        messages: vec![Message::new(Role::User, "x")],
        ..Prompt::default()
    };
    let owned: Vec<&str> = validator::OWNED_BODY_KEYS.iter().map(|(k, _)| *k).collect();
    for api in [Api::Chat, Api::Completions] {
        // vLLM with ignore_eos and streaming: every extra plateau can send.
        let mut e = plan.endpoints[0].clone();
        e.api = api;
        let body = crate::wire::openai::request_body(&e, "m", &prompt, &plan.request);
        let body: serde_json::Map<String, serde_json::Value> =
            serde_json::from_slice(&body).unwrap();
        for key in body.keys() {
            assert!(owned.contains(&key.as_str()), "`{key}` is not guarded");
        }
    }
}

#[test]
fn ports_are_checked() {
    // http::Uri parses these and then reports no port: the requests would go to port 80.
    for (url, want) in [
        (
            "http://localhost:99999/v1",
            "endpoints[0].url: `http://localhost:99999/v1`: port 99999 is out of range; expected a port from 1 to 65535",
        ),
        (
            "http://localhost:0/v1",
            "endpoints[0].url: `http://localhost:0/v1`: port 0 is out of range; expected a port from 1 to 65535",
        ),
        (
            "http://[::1]:70000/v1",
            "endpoints[0].url: `http://[::1]:70000/v1`: port 70000 is out of range; expected a port from 1 to 65535",
        ),
        (
            "http://localhost:80a/v1",
            "endpoints[0].url: `http://localhost:80a/v1`: port `80a` is not a number; expected a port from 1 to 65535",
        ),
    ] {
        let mut v = base();
        set(&mut v, "/endpoints/0/url", serde_json::json!(url));
        assert_eq!(problems(v), vec![want.to_owned()], "{url}");
    }
    for url in [
        "http://localhost:65535/v1",
        "http://localhost:1/v1",
        "http://[::1]:8000/v1",
        "http://[::1]/v1",
        "https://api.example.com/v1",
    ] {
        assert!(BaseUrl::parse(url).is_ok(), "{url}");
    }
}

#[test]
fn rates_sit_beside_concurrencies_in_the_matrix() {
    let mut v = base();
    set(&mut v, "/batch_sizes", serde_json::json!([1, 4]));
    set(&mut v, "/request_rates", serde_json::json!([2.5, 20]));
    set(&mut v, "/max_concurrency", serde_json::json!(64));
    let config: RunConfig = serde_json::from_value(v).unwrap();
    let plan = Plan::build(&config, &|_| None).unwrap();
    let dirs: Vec<String> = plan.cells().iter().map(|c| c.load.dir_name()).collect();
    assert_eq!(dirs, ["c1", "c4", "r2.5", "r20"]);
    let rate = plan.cells()[3].load;
    assert_eq!(rate.rate().unwrap().max_concurrency, Some(64));
    assert!(plan.cell_dir(&plan.cells()[2]).ends_with("r2.5"));
    // Rates only, without batch sizes, is a plan too.
    let mut v = base();
    set(&mut v, "/batch_sizes", serde_json::json!([]));
    set(&mut v, "/request_rates", serde_json::json!([3]));
    let config: RunConfig = serde_json::from_value(v.clone()).unwrap();
    assert_eq!(Plan::build(&config, &|_| None).unwrap().cells().len(), 1);
    // Session starts: their own directories and unit; beside capacity (answered from the
    // listed session rates, without probes).
    set(&mut v, "/rate_unit", serde_json::json!("sessions"));
    let config: RunConfig = serde_json::from_value(v.clone()).unwrap();
    let plan = Plan::build(&config, &|_| None).unwrap();
    assert_eq!(plan.cells()[0].load.dir_name(), "s3");
    assert_eq!(plan.cells()[0].load.to_string(), "3 sessions/s");
    set(
        &mut v,
        "/capacity",
        serde_json::json!({"slo": {"ttft_p99_ms": 500}}),
    );
    let config: RunConfig = serde_json::from_value(v).unwrap();
    let plan = Plan::build(&config, &|_| None).unwrap();
    let (least, most) = plan.estimated_duration();
    assert_eq!(
        least,
        most - plan.phases.drain.typical(),
        "no probes counted"
    );
}

#[test]
fn server_metrics_default_on_at_250_ms_and_one_key_turns_them_off() {
    assert_eq!(
        build(&base()).unwrap().server_metrics,
        Some(Duration::from_millis(250))
    );
    let mut v = base();
    v["server_metrics"] = serde_json::json!({"interval_ms": 500});
    assert_eq!(
        build(&v).unwrap().server_metrics,
        Some(Duration::from_millis(500))
    );
    v["server_metrics"] = serde_json::json!({"enabled": false});
    assert_eq!(build(&v).unwrap().server_metrics, None);
    v["server_metrics"] = serde_json::json!({"interval_ms": 10});
    assert_eq!(
        problems(v),
        vec![
            "server_metrics.interval_ms: got 10, expected at least 50 ms between scrapes (or `server_metrics.enabled: false` to turn scraping off)"
        ]
    );
    let typo = serde_json::json!({"interval": 100});
    let err =
        serde_json::from_value::<plateau_model::config::ServerMetricsConfig>(typo).unwrap_err();
    assert!(
        err.to_string().contains("unknown field `interval`"),
        "{err}"
    );
}

#[test]
fn labels_and_hardware_reach_the_endpoint() {
    let mut v = base();
    v["endpoints"][0]["labels"] = serde_json::json!({"quantization": "fp8", "tp": "2"});
    v["endpoints"][0]["hardware"] =
        serde_json::json!({"gpu": "H100 80GB", "gpu_count": 2, "cost_per_hour": 6.5});
    let plan = build(&v).unwrap();
    let e = &plan.endpoints[0];
    assert_eq!(e.labels["quantization"], "fp8");
    assert_eq!(e.labels["tp"], "2");
    let h = e.hardware.as_ref().unwrap();
    assert_eq!(
        (h.gpu.as_deref(), h.gpu_count, h.cost_per_hour),
        (Some("H100 80GB"), Some(2), Some(6.5))
    );
    // Every key of the block is optional.
    v["endpoints"][0]["hardware"] = serde_json::json!({"gpu": "L4"});
    assert!(build(&v).is_ok());
}

#[test]
fn bad_hardware_and_labels_name_the_field() {
    let mut v = base();
    v["endpoints"][0]["hardware"] =
        serde_json::json!({"gpu": " ", "gpu_count": 0, "cost_per_hour": -1.0});
    v["endpoints"][0]["labels"] = serde_json::json!({"": "x"});
    assert_eq!(
        problems(v),
        [
            "endpoints[0].labels: got the label name ``, expected a non-empty name",
            "endpoints[0].hardware.gpu: got an empty name, expected e.g. `H100 80GB`",
            "endpoints[0].hardware.gpu_count: got 0, expected at least 1",
            "endpoints[0].hardware.cost_per_hour: got -1, expected USD per hour, 0 or more",
        ]
    );
    let mut v = base();
    v["endpoints"][0]["hardware"] = serde_json::json!({"gpus": 2});
    let err = serde_json::from_value::<RunConfig>(v)
        .unwrap_err()
        .to_string();
    assert!(err.contains("unknown field `gpus`"), "{err}");
}

mod phases;
