//! A custom prompt longer than its model's context is an error before the first cell (exit
//! 2), naming the file and line: the server states the context where it can (vLLM and
//! SGLang list `max_model_len` for each model in `/v1/models`), and the catalog knows each
//! custom scenario's longest prompt. Where the server is silent, the scenario's
//! `max_prompt_tokens` bound, checked as the file was read, is what holds.

use anyhow::anyhow;
use plateau_core::plan::Plan;
use plateau_model::results::run_info::EndpointInfo;
use plateau_scenarios::catalog::LongestPrompt;
use serde_json::Value;

use crate::exit::Failure;

/// Every custom prompt of `longest` (lengths in tokens of `tokenizer`) longer than the
/// context a server of `infos` states for a model of `plan`, as one error.
pub fn check(
    plan: &Plan,
    infos: &[EndpointInfo],
    longest: &[LongestPrompt],
    tokenizer: &str,
) -> Result<(), Failure> {
    let mut problems = Vec::new();
    for info in infos {
        for model in &plan.models {
            let Some(context) = info.models.as_ref().and_then(|m| context(m, &model.name)) else {
                continue;
            };
            for p in longest.iter().filter(|p| u64::from(p.tokens) > context) {
                let line = p.line.map(|l| format!(" line {l}")).unwrap_or_default();
                problems.push(format!(
                    "scenario {}: {}{line}: a prompt of {} tokens ({tokenizer}) is longer than \
                     the context of model `{}` at endpoint {}: {context} tokens, as its \
                     /v1/models says (max_model_len); shorten the prompt, or leave the \
                     scenario out for this model",
                    p.scenario, p.file, p.tokens, model.name, info.name
                ));
            }
        }
    }
    match problems.is_empty() {
        true => Ok(()),
        false => Err(Failure::bad_input(anyhow!(problems.join("\n")))),
    }
}

/// The context length `/v1/models` states for `model`.
fn context(models: &Value, model: &str) -> Option<u64> {
    models
        .get("data")?
        .as_array()?
        .iter()
        .find(|m| m.get("id").and_then(Value::as_str) == Some(model))?
        .get("max_model_len")?
        .as_u64()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_context_is_read_for_the_model_asked() {
        let models = serde_json::json!({"data": [
            {"id": "a", "max_model_len": 4096},
            {"id": "b"}
        ]});
        assert_eq!(context(&models, "a"), Some(4096));
        assert_eq!(context(&models, "b"), None);
        assert_eq!(context(&models, "c"), None);
        assert_eq!(context(&serde_json::json!({}), "a"), None);
    }
}
