//! Output lengths from a distribution through the real binary: the dry run names each
//! scenario's setting, every summary records the setting and what its measured requests
//! asked for, and a distribution a scenario cannot feed is bad input naming the field.

use crate::common::{plateau, run, run_config, temp, tiny_config};

#[test]
fn summary_records_the_distribution_and_what_requests_asked_for() {
    let tmp = temp("output-lengths");
    let dir = tmp.path();
    let spec = serde_json::json!({"dist": "uniform", "min": 4, "max": 12});
    let config = tiny_config(
        dir,
        serde_json::json!({"scenarios": ["B1"], "max_tokens": spec}),
    );
    let config = config.to_str().unwrap();
    let (code, out, err) = run(&mut plateau(&["run", "--dry-run", "--config", config]));
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains(r#"output lengths of B1: max_tokens drawn per request from {"dist":"uniform","min":4,"max":12}"#),
        "{out}"
    );
    let (code, _, err) = run(&mut plateau(&["run", "--config", config]));
    // Exit 1 only for the busy-machine `client_bottleneck` finding (see exit_codes.rs).
    assert!(
        code == 0 || (code == 1 && err.contains("client_bottleneck")),
        "exit {code}: {err}"
    );
    let summary: serde_json::Value = serde_json::from_slice(
        &std::fs::read(dir.join("results/sim/m/B1/c2/summary.json")).unwrap(),
    )
    .unwrap();
    assert!(
        summary["cell"].get("max_tokens").is_none(),
        "lengths vary: {}",
        summary["cell"]
    );
    let lengths = &summary["workload"]["output_tokens"];
    assert_eq!(lengths["spec"], spec);
    let asked = &lengths["requested"];
    let ok = summary["output_tokens"].clone();
    // The simulator (ignore_eos) answers exactly the length each request asks for, so the
    // measured replies are the measured requests' lengths: same count, same mean, none short.
    assert_eq!(asked["short_replies"], 0, "{asked}");
    assert_eq!(asked["replies"], ok["n"], "{asked} {ok}");
    assert_eq!(asked["max_tokens"]["mean"], ok["mean"], "{asked} {ok}");
    let (min, max) = (
        asked["max_tokens"]["min"].as_f64().unwrap(),
        asked["max_tokens"]["max"].as_f64().unwrap(),
    );
    assert!(4.0 <= min && min < max && max <= 12.0, "{asked}");
}

/// The error of a dry run of a tiny config with `extra` in `dir`, refused as bad input.
fn refused(dir: &std::path::Path, extra: serde_json::Value) -> String {
    let (code, _, err) = run_config(&tiny_config(dir, extra), &["--dry-run"]);
    assert_eq!(code, 2, "{err}");
    err
}

#[test]
fn dataset_lengths_for_a_scenario_without_replies_is_bad_input() {
    let tmp = temp("output-lengths-bad");
    let dir = tmp.path();
    let err = refused(
        dir,
        serde_json::json!({
            "scenarios": ["B1"],
            "scenario_options": {"B1": {"max_tokens": {"dist": "dataset"}}},
        }),
    );
    assert!(
        err.contains("scenario_options.B1.max_tokens: {\"dist\": \"dataset\"} takes each request's length from its dataset reply, but scenario B1 (kind diverse) has no replies"),
        "{err}"
    );
    let err = refused(
        dir,
        serde_json::json!({"max_tokens": {"dist": "normal", "mean": 100, "stddev": -3}}),
    );
    assert!(
        err.contains("max_tokens.stddev: got -3, expected 0 or more tokens"),
        "{err}"
    );
}
