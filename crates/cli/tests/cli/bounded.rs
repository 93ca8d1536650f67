//! A custom scenario's prompts are bounded: by the model's context where the server states
//! it, else by `max_prompt_tokens`, each an error naming the file and line before any cell;
//! and its file stays in the scenario's folder unless `allow_outside`.

use std::path::Path;

use crate::common::{plateau, run, run_config, temp, tiny_config};

/// A custom scenario `mine` in `dir/scenarios` whose prompts are `prompts`, with `extra`
/// settings.
fn scenario(dir: &Path, prompts: &[&str], extra: &str) -> std::path::PathBuf {
    let folder = dir.join("scenarios");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(
        folder.join("mine.json"),
        format!(r#"{{"id": "mine", "name": "Mine", "description": "d", "kind": "custom", "file": "mine.jsonl"{extra}}}"#),
    )
    .unwrap();
    let lines: String = prompts
        .iter()
        .map(|p| format!("{}\n", serde_json::json!({ "prompt": p })))
        .collect();
    std::fs::write(folder.join("mine.jsonl"), lines).unwrap();
    folder
}

#[test]
fn a_prompt_longer_than_the_models_context_is_named_before_any_cell() {
    let tmp = temp("context");
    let dir = tmp.path();
    let long = "word ".repeat(300);
    let folder = scenario(dir, &["hello there", long.trim_end(), "bye"], "");
    let config = tiny_config(
        dir,
        serde_json::json!({
            "scenarios": ["mine"], "scenarios_dir": folder,
            "endpoints": [{"name": "sim", "engine": "sim", "sim": {"profile": "fixed", "max_model_len": 256}}]
        }),
    );
    let (code, _, err) = run_config(&config, &["--quiet"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains(&format!(
            "scenario mine: {} line 2: a prompt of 300 tokens (cl100k_base) is longer than the \
             context of model `plateau-sim` at endpoint sim: 256 tokens, as its /v1/models says \
             (max_model_len)",
            folder.join("mine.jsonl").display()
        )),
        "{err}"
    );
    assert!(!dir.join("results/sim/m/mine").exists(), "no cell ran");
}

#[test]
fn a_prompt_over_max_prompt_tokens_is_named_as_the_file_is_read() {
    let tmp = temp("max-prompt");
    let dir = tmp.path();
    let long = "word ".repeat(300);
    let folder = scenario(
        dir,
        &["hello there", "bye", &long],
        r#", "max_prompt_tokens": 100"#,
    );
    let config = tiny_config(
        dir,
        serde_json::json!({"scenarios": ["mine"], "scenarios_dir": folder}),
    );
    let (code, _, err) = run_config(&config, &["--quiet"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains(&format!(
            "{}:3: the prompt is over 100 tokens of cl100k_base (max_prompt_tokens)",
            folder.join("mine.jsonl").display()
        )),
        "{err}"
    );
}

#[test]
fn a_prompts_file_outside_the_folder_needs_allow_outside() {
    let tmp = temp("outside");
    let dir = tmp.path();
    let folder = scenario(dir, &["hello"], "");
    std::fs::rename(folder.join("mine.jsonl"), dir.join("mine.jsonl")).unwrap();
    let def = |extra: &str| {
        std::fs::write(
            folder.join("mine.json"),
            format!(r#"{{"id": "mine", "name": "Mine", "description": "d", "kind": "custom", "file": "../mine.jsonl"{extra}}}"#),
        )
        .unwrap();
    };
    def("");
    let config = tiny_config(
        dir,
        serde_json::json!({"scenarios": ["mine"], "scenarios_dir": folder}),
    );
    let cfg = config.to_str().unwrap();
    let (code, _, err) = run(&mut plateau(&["run", "--config", cfg, "--dry-run"]));
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("mine.json: `file` `../mine.jsonl` leads out of this scenario's folder"),
        "{err}"
    );
    def(r#", "allow_outside": true"#);
    let (code, _, err) = run(&mut plateau(&["run", "--config", cfg, "--dry-run"]));
    assert_eq!(code, 0, "{err}");
}
