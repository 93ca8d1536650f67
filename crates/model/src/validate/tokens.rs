//! The prompt-length checks: does the server count a prompt as plateau does? Two views:
//! `usage.prompt_tokens` against the target over the measured requests (`input_length`),
//! and the server's own `/tokenize` of the same texts ([`TokenCheck`], `tokenizer_mismatch`),
//! which tells a tokenizer that is not the model's from the chat template the server adds.

use crate::metrics::InputAgreement;
use crate::results::token_check::TokenCheck;

/// The client tokenizers built into plateau: never the model's own.
const EMBEDDED: [&str; 2] = ["cl100k_base", "o200k_base"];

/// Why the server's prompt tokens differ from the targets, and what to do; `tokenizer` is
/// the one plateau counted with. Not asked when the token check found a tokenizer gap:
/// [`tokenizer_mismatch`] names that.
pub fn input_length(i: &InputAgreement, check: Option<&TokenCheck>, tokenizer: &str) -> String {
    let gap = format!(
        "server prompt tokens average {:.0} for a target of {:.0} ({:+.1}%)",
        i.mean_server,
        i.mean_target,
        i.mean_rel_diff * 100.0
    );
    let template = check.and_then(TokenCheck::template_tokens_mean);
    match (check.and_then(|c| c.rel_diff), template) {
        (Some(d), Some(t)) => format!(
            "{gap}: the server's tokenizer agrees with plateau's within {:.1}%, so the rest is \
             its chat template, which targets do not count ({t:.0} tokens on this scenario's \
             first prompts; more on a longer conversation)",
            d.abs() * 100.0
        ),
        _ => format!(
            "{gap}: part of it is the server's chat template; {}",
            advice(tokenizer)
        ),
    }
}

/// Whether the token check accounts for the whole `usage.prompt_tokens` gap: the server
/// counts the texts as plateau does, and its templated count of the scenario's prompts is
/// what the requests' usage says (within [`crate::results::token_check::MAX_REL_DIFF`]).
/// Then the gap is the chat template alone, expected and not worth a finding.
pub fn explained_by_template(i: &InputAgreement, check: Option<&TokenCheck>) -> bool {
    let limit = crate::results::token_check::MAX_REL_DIFF;
    match check.map(|c| (c.rel_diff, c.templated_tokens_mean)) {
        Some((Some(d), Some(t))) if d.abs() <= limit && t > 0.0 => {
            (i.mean_server - t).abs() <= limit * t
        }
        _ => false,
    }
}

/// `tokenizer_mismatch`: the server's `/tokenize` count of the scenario's prompts differs
/// from plateau's by more than [`crate::results::token_check::MAX_REL_DIFF`], so every
/// prompt-length target is off.
pub fn tokenizer_mismatch(check: &TokenCheck, tokenizer: &str) -> Option<String> {
    let d = check.rel_diff.filter(|_| check.mismatched())?;
    Some(format!(
        "the server's {} counts this scenario's prompts {:+.1}% against plateau's {tokenizer} \
         ({:.0} vs {:.0} tokens, mean of {} prompt{}), so prompt lengths are not the targets; {}",
        check.path,
        d * 100.0,
        check.server_tokens_mean.unwrap_or_default(),
        check.client_tokens_mean,
        check.prompts,
        if check.prompts == 1 { "" } else { "s" },
        advice(tokenizer)
    ))
}

fn advice(tokenizer: &str) -> String {
    if EMBEDDED.contains(&tokenizer) {
        format!(
            "plateau counted with the built-in {tokenizer}: set `tokenizer` to the model's \
             Hugging Face id or its tokenizer.json"
        )
    } else {
        format!("check that `tokenizer` ({tokenizer}) is the served model's")
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    fn agreement() -> InputAgreement {
        InputAgreement {
            n: 10,
            mean_target: 100.0,
            mean_server: 126.0,
            mean_rel_diff: 0.26,
        }
    }

    /// The server's `/tokenize` found `server` tokens for plateau's 100, and `templated`
    /// once its chat template is applied.
    pub(in crate::validate) fn check(server: f64, templated: Option<f64>) -> TokenCheck {
        TokenCheck {
            path: "/tokenize".into(),
            prompts: 8,
            client_tokens_mean: 100.0,
            server_tokens_mean: Some(server),
            rel_diff: Some(server / 100.0 - 1.0),
            templated_tokens_mean: templated,
            error: None,
            requests: 16,
        }
    }

    #[test]
    fn a_gap_the_tokenizer_explains_names_the_tokenizer() {
        let m = tokenizer_mismatch(&check(118.0, None), "cl100k_base").unwrap();
        assert!(m.contains("+18.0% against plateau's cl100k_base"), "{m}");
        assert!(m.contains("118 vs 100 tokens, mean of 8 prompts"), "{m}");
        assert!(
            m.contains("set `tokenizer` to the model's Hugging Face id"),
            "{m}"
        );
    }

    #[test]
    fn a_gap_the_template_explains_says_so_and_gives_its_size() {
        let m = input_length(&agreement(), Some(&check(101.0, Some(126.0))), "/m/t.json");
        assert!(m.contains("within 1.0%"), "{m}");
        assert!(
            m.contains("(25 tokens on this scenario's first prompts"),
            "{m}"
        );
        assert!(!m.contains("set `tokenizer`"), "{m}");
        assert_eq!(tokenizer_mismatch(&check(101.0, Some(126.0)), "x"), None);
    }

    #[test]
    fn a_gap_the_template_accounts_for_is_no_finding() {
        // Usage says 126 per request; the server templates the same prompts to 126.
        assert!(explained_by_template(
            &agreement(),
            Some(&check(101.0, Some(126.0)))
        ));
        // A longer conversation than the checked first prompts: usage is not accounted for.
        assert!(!explained_by_template(
            &agreement(),
            Some(&check(101.0, Some(110.0)))
        ));
        // The texts differ: the tokenizer, not the template.
        assert!(!explained_by_template(
            &agreement(),
            Some(&check(118.0, Some(126.0)))
        ));
        assert!(!explained_by_template(&agreement(), None));
    }

    #[test]
    fn without_a_check_the_advice_depends_on_the_tokenizer() {
        let m = input_length(&agreement(), None, "cl100k_base");
        assert!(
            m.contains("set `tokenizer` to the model's Hugging Face id"),
            "{m}"
        );
        let m = input_length(&agreement(), None, "/models/llama/tokenizer.json");
        assert!(
            m.contains("check that `tokenizer` (/models/llama/tokenizer.json)"),
            "{m}"
        );
    }
}
