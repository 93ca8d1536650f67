//! Does the server count a prompt as plateau does? Before a scenario's first cell, a few of
//! its prompts go to the server's own tokenizer (`/tokenize` on vLLM, SGLang and llama.cpp);
//! the answer is kept in every cell of the scenario so a prompt-length target that the
//! server sees differently is named, not silently measured.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The `tokenizer` setting, and the tokenizer name results record, for prompt lengths met
/// in the server's own tokens (its `/tokenize`, chat template included).
pub const SERVER: &str = "server";

/// Above this relative difference between the server's count and plateau's, the client
/// tokenizer is not the model's (the `tokenizer_mismatch` finding).
pub const MAX_REL_DIFF: f64 = 0.05;

/// The server's count of a scenario's prompts beside plateau's.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TokenCheck {
    /// The path asked, from the server's root (`/tokenize`).
    pub path: String,
    /// Prompts compared (the first prompt of the first slots, at most a handful).
    pub prompts: u32,
    /// Mean tokens per prompt in plateau's tokenizer: its messages' texts, counted alone.
    pub client_tokens_mean: f64,
    /// Mean tokens per prompt in the server's tokenizer, the same texts counted alone
    /// (no chat template, no special tokens); absent when the check failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_tokens_mean: Option<f64>,
    /// `server_tokens_mean / client_tokens_mean - 1`; absent when the check failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rel_diff: Option<f64>,
    /// Mean tokens per prompt once the server applies its chat template: what it will
    /// report as `usage.prompt_tokens` for a chat request; absent when it cannot say.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub templated_tokens_mean: Option<f64>,
    /// Why the check (or its templated half) could not be done.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Requests the check sent (`/tokenize`, and `/apply-template` on llama.cpp); 0 in
    /// summaries written before it was counted.
    #[serde(default)]
    pub requests: u32,
}

impl TokenCheck {
    /// Tokens the chat template adds per prompt, by the server's own count.
    pub fn template_tokens_mean(&self) -> Option<f64> {
        Some(self.templated_tokens_mean? - self.server_tokens_mean?)
    }

    /// Whether the server's count of the same texts differs from plateau's by more than
    /// [`MAX_REL_DIFF`].
    pub fn mismatched(&self) -> bool {
        self.rel_diff.is_some_and(|d| d.abs() > MAX_REL_DIFF)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(server: Option<f64>, templated: Option<f64>) -> TokenCheck {
        TokenCheck {
            path: "/tokenize".into(),
            prompts: 4,
            client_tokens_mean: 100.0,
            server_tokens_mean: server,
            rel_diff: server.map(|s| s / 100.0 - 1.0),
            templated_tokens_mean: templated,
            error: None,
            requests: 8,
        }
    }

    #[test]
    fn a_gap_over_five_percent_is_a_mismatch() {
        assert!(!check(Some(104.9), None).mismatched());
        assert!(check(Some(105.1), None).mismatched());
        assert!(check(Some(94.0), None).mismatched());
        assert!(!check(None, None).mismatched());
    }

    #[test]
    fn the_template_is_what_the_server_adds_to_its_own_count() {
        assert_eq!(
            check(Some(104.0), Some(113.0)).template_tokens_mean(),
            Some(9.0)
        );
        assert_eq!(check(None, Some(113.0)).template_tokens_mean(), None);
    }
}
