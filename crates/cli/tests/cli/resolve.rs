//! The run is resolved in one step: a config with a bad batch size, a bad simulator setting
//! and a bad scenario option names all three in one run (exit 2), each blamed on its source;
//! a tokenizer that cannot load is named beside the plan's problems.

use crate::common::{plateau, run, temp, tiny_config};

#[test]
fn every_problem_of_every_level_is_named_at_once() {
    let tmp = temp("resolve");
    let dir = tmp.path();
    let config = tiny_config(
        dir,
        serde_json::json!({
            "endpoints": [{"name": "sim", "engine": "sim", "sim": {"profile": "nosuch"}}],
            "scenarios": ["A1", "D"],
            "scenario_options": {"D": {"max_context_tokens": 2}},
            "batch_sizes": [0],
        }),
    );
    let config = config.to_str().unwrap();
    let (code, out, err) = run(&mut plateau(&["run", "--dry-run", "--config", config]));
    assert_eq!(code, 2, "{err}");
    assert!(out.is_empty(), "no plan is printed: {out}");
    let lines: Vec<&str> = err.trim_end().lines().collect();
    assert_eq!(lines.len(), 3, "{err}");
    assert_eq!(
        lines[0],
        format!("error: {config}: batch_sizes[0]: expected a concurrency of at least 1")
    );
    assert!(
        lines[1].starts_with(&format!("{config}: endpoints[0].sim: "))
            && lines[1].contains("nosuch"),
        "{err}"
    );
    assert_eq!(
        lines[2],
        format!(
            "{config}: scenario_options.D.max_context_tokens: 2 is too small; expected at least 16 tokens"
        )
    );

    // Without a tokenizer no prompt can be built: it is named, with the plan's problems.
    let (code, _, err) = run(&mut plateau(&[
        "run",
        "--dry-run",
        "--config",
        config,
        "--set",
        "tokenizer=/nonexistent/tokenizer.json",
    ]));
    assert_eq!(code, 2, "{err}");
    assert_eq!(err.trim_end().lines().count(), 3, "{err}");
    assert!(
        err.contains(
            "--set tokenizer=/nonexistent/tokenizer.json: tokenizer /nonexistent/tokenizer.json"
        ),
        "{err}"
    );
    assert!(err.contains("batch_sizes[0]"), "{err}");
    assert!(!err.contains("scenario_options"), "{err}");
}
