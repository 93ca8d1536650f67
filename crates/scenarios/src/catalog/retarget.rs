//! Prompt lengths met in a server's tokens (`tokenizer: "server"`): a scenario's text is
//! cut in plateau's tokenizer to the length that the server's tokenizer and chat template
//! turn into the target ([`Conversion`]), once per endpoint and model at preparation. The
//! requests still record the target, so `usage.prompt_tokens` is checked against it.

use std::sync::Arc;

use super::Catalog;
use super::prepare::Material;
use crate::error::ScenarioError;

/// How a server counts a scenario's prompts against plateau's tokenizer.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Conversion {
    /// The server's tokens per plateau token of the same text (above 0).
    pub ratio: f64,
    /// Tokens the server adds to every request: the chat template and generation prompt
    /// (0 on the completions API).
    pub template: f64,
}

impl Conversion {
    /// Plateau tokens of text whose server count, with the template when `templated`, is
    /// `tokens`; at least 1.
    pub fn length(&self, tokens: u32, templated: bool) -> u32 {
        let overhead = if templated { self.template } else { 0.0 };
        let ratio = if self.ratio > 0.0 { self.ratio } else { 1.0 };
        ((f64::from(tokens) - overhead) / ratio).round().max(1.0) as u32
    }
}

impl Catalog {
    /// The prompt length `scenario`'s requests aim at, in the tokens lengths are met in;
    /// `None` for scenarios whose lengths come from their data (conversations, custom
    /// prompts).
    pub fn target(&self, scenario: &str) -> Option<u32> {
        match &self.prepared.get(scenario)?.material {
            Material::Identical { target, .. }
            | Material::Diverse { target, .. }
            | Material::SharedPrefix { target, .. } => Some(*target),
            Material::MultiTurn { .. }
            | Material::Custom { .. }
            | Material::Trace { .. }
            | Material::Agent { .. } => None,
        }
    }

    /// Plateau tokens a cut of `scenario` by `c` asks for in all (system prompt and query
    /// together); the identity conversion gives the target.
    pub fn cut_length(&self, scenario: &str, c: Conversion) -> Option<u32> {
        match &self.prepared.get(scenario)?.material {
            Material::Identical { target, .. } | Material::Diverse { target, .. } => {
                Some(c.length(*target, true))
            }
            Material::SharedPrefix {
                system_tokens,
                target,
                ..
            } => Some(
                c.length(*system_tokens, false)
                    + c.length(target.saturating_sub(*system_tokens), true),
            ),
            Material::MultiTurn { .. }
            | Material::Custom { .. }
            | Material::Trace { .. }
            | Material::Agent { .. } => None,
        }
    }

    /// Cuts `scenario`'s prompts for the cells of endpoint `endpoint` and model `model` (plan
    /// indices) so their server counts, template included, meet the target: text of
    /// `(target - template) / ratio` plateau tokens (a shared system prompt scaled by the
    /// ratio alone, the template counted once with the query). Always from the scenario as
    /// prepared, so a second call refines the first. Scenarios without a target are left
    /// as they are.
    pub fn retarget(
        &mut self,
        endpoint: usize,
        model: usize,
        scenario: &str,
        c: Conversion,
    ) -> Result<(), ScenarioError> {
        let Some(p) = self.prepared.get(scenario) else {
            return Ok(());
        };
        let none_fits = |what: &str, tokens: u32| ScenarioError::Definition {
            file: scenario.into(),
            message: format!(
                "{what} of {tokens} plateau tokens (the target in the server's tokens) fits in \
                 no document"
            ),
        };
        let material = match &p.material {
            Material::Identical { corpus, target, .. } => {
                let length = c.length(*target, true);
                corpus
                    .pick(length, &mut crate::rng::stream_rng(0, "check"))
                    .ok_or_else(|| none_fits("a prompt", length))?;
                Material::Identical {
                    corpus: corpus.clone(),
                    target: *target,
                    length,
                }
            }
            Material::Diverse { corpus, target, .. } => {
                let length = c.length(*target, true);
                let windows = corpus.windows(length);
                if windows.is_empty() {
                    return Err(none_fits("a prompt", length));
                }
                Material::Diverse {
                    corpus: corpus.clone(),
                    windows: Arc::new(windows),
                    target: *target,
                }
            }
            Material::SharedPrefix {
                corpus,
                system_tokens,
                target,
                ..
            } => {
                let query = c.length(target.saturating_sub(*system_tokens), true);
                let queries = corpus.windows(query);
                if queries.is_empty() {
                    return Err(none_fits("a query", query));
                }
                Material::SharedPrefix {
                    corpus: corpus.clone(),
                    queries: Arc::new(queries),
                    system_tokens: c.length(*system_tokens, false),
                    target: *target,
                }
            }
            Material::MultiTurn { .. }
            | Material::Custom { .. }
            | Material::Trace { .. }
            | Material::Agent { .. } => {
                return Ok(());
            }
        };
        let mut retargeted = p.clone();
        retargeted.material = material;
        self.retargeted
            .insert((endpoint, model, scenario.to_owned()), retargeted);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_length_in_server_tokens_becomes_plateau_tokens() {
        // llama.cpp's tiny model: 3.2 server tokens per cl100k token, 13 template tokens.
        let c = Conversion {
            ratio: 3.2,
            template: 13.0,
        };
        assert_eq!(c.length(50, true), 12); // (50 - 13) / 3.2 = 11.6
        assert_eq!(c.length(2000, false), 625); // a system prompt: no template
        // A target the template alone fills still sends one token of text.
        assert_eq!(c.length(10, true), 1);
        // The same tokenizer and no template: the target itself.
        let same = Conversion {
            ratio: 1.0,
            template: 0.0,
        };
        assert_eq!(same.length(2500, true), 2500);
    }
}
