//! Each scenario kind's material, one method of [`Sources`] per kind: the corpus or dataset it
//! reads, the checks that its lengths fit, and the notes it leaves on the workload.

use std::sync::Arc;

use plateau_core::workload::WorkloadInfo;

use super::{FEW_WINDOWS, Material, Sources, definition_error, described};
use crate::catalog::loaders::{
    builtin_dialogs, builtin_pairs, dialogs_from_oasst2, pairs_from_sharegpt, system_prompt,
};
use crate::data::{longbench, oasst2, sharegpt};
use crate::definition::{Dialog, Scenario, Source};
use crate::error::ScenarioError;
use crate::rng::stream_rng;
use crate::workload::multi_turn::Conversation;

impl Sources<'_> {
    /// One prompt of `input_tokens`, sent by every request.
    pub(super) fn identical(
        &mut self,
        s: &Scenario,
        info: &mut WorkloadInfo,
        input_tokens: u32,
    ) -> Result<Material, ScenarioError> {
        let corpus = self.builtin();
        corpus
            .pick(input_tokens, &mut stream_rng(0, "check"))
            .ok_or_else(|| {
                definition_error(
                    s,
                    format!("`input_tokens` {input_tokens} is longer than any built-in document"),
                )
            })?;
        info.notes.push(format!("input_tokens {input_tokens}"));
        Ok(Material::Identical {
            corpus,
            target: input_tokens,
            length: input_tokens,
        })
    }

    /// Distinct windows of `input_tokens` from LongBench-v2 (the built-in text when it is
    /// not fetched) or the built-in corpus.
    pub(super) fn diverse(
        &mut self,
        s: &Scenario,
        info: &mut WorkloadInfo,
        source: Source,
        input_tokens: u32,
    ) -> Result<Material, ScenarioError> {
        let id = &s.header.id;
        let mut corpus = None;
        if source == Source::Longbench {
            match self.longbench()? {
                Some((c, described)) => {
                    info.source = described;
                    corpus = Some(c);
                }
                None => {
                    let path = self.dataset(longbench::path);
                    self.fallback(id, "LongBench-v2", path, "longbench");
                    info.synthetic = true;
                }
            }
        }
        let (corpus, src) = match corpus {
            Some(c) => (c, Source::Longbench),
            None => (self.builtin(), Source::BuiltIn),
        };
        let windows = self.windows(src, &corpus, input_tokens);
        if windows.is_empty() {
            return Err(definition_error(
                s,
                format!(
                    "`input_tokens` {input_tokens}: no window that long fits in any document of {}",
                    info.source
                ),
            ));
        }
        if windows.len() < FEW_WINDOWS {
            self.warnings.push(format!(
                "{id}: only {} distinct prompts of {input_tokens} tokens; they repeat in longer cells",
                windows.len()
            ));
        }
        info.notes.push(format!(
            "input_tokens {input_tokens}; {} distinct windows",
            windows.len()
        ));
        Ok(Material::Diverse {
            corpus,
            windows,
            target: input_tokens,
        })
    }

    /// One system prompt of `system_tokens` shared by every request, then a distinct query.
    pub(super) fn shared_prefix(
        &mut self,
        s: &Scenario,
        info: &mut WorkloadInfo,
        system_tokens: u32,
        input_tokens: u32,
    ) -> Result<Material, ScenarioError> {
        let corpus = self.builtin();
        system_prompt(&corpus, system_tokens, 0).ok_or_else(|| {
            definition_error(
                s,
                format!("`system_tokens` {system_tokens} is longer than any built-in document"),
            )
        })?;
        let queries = self.windows(Source::BuiltIn, &corpus, input_tokens);
        if queries.is_empty() {
            return Err(definition_error(
                s,
                format!("`input_tokens` {input_tokens} is longer than any built-in document"),
            ));
        }
        info.notes.push(format!(
            "system_tokens {system_tokens}; input_tokens {input_tokens}"
        ));
        Ok(Material::SharedPrefix {
            corpus,
            queries,
            system_tokens,
            target: system_tokens + input_tokens,
        })
    }

    /// Conversations from oasst2 (the built-in dialogs when it is not fetched), kept when
    /// they have `min_turns` user turns.
    pub(super) fn multi_turn(
        &mut self,
        s: &Scenario,
        info: &mut WorkloadInfo,
        dialog: &Dialog,
    ) -> Result<Material, ScenarioError> {
        let path = self.dataset(oasst2::path);
        let found = path.as_ref().filter(|p| p.is_file());
        let conversations = if let Some(file) = found.filter(|_| dialog.source == Source::Oasst2) {
            info.source = described("oasst2 conversation trees", file);
            dialogs_from_oasst2(file, dialog, &self.tokenizer)?
        } else {
            if dialog.source == Source::Oasst2 {
                self.fallback(&s.header.id, "oasst2", path, "oasst2");
                info.synthetic = true;
            }
            builtin_dialogs(&self.builtin(), self.config.seed)
        };
        let conversations: Vec<Conversation> = conversations
            .into_iter()
            .filter(|c| c.turns.len() >= dialog.min_turns as usize)
            .collect();
        if conversations.is_empty() {
            return Err(definition_error(
                s,
                format!(
                    "no conversation in languages {:?} with at least {} user turns in {}",
                    dialog.lang, dialog.min_turns, info.source
                ),
            ));
        }
        info.notes.push(format!(
            "{} conversations; paths {}; replies {}; lang {}; max_context_tokens {}; min_turns {}",
            conversations.len(),
            dialog.paths.as_str(),
            dialog.replies.as_str(),
            dialog.lang.join(","),
            dialog.max_context_tokens,
            dialog.min_turns
        ));
        Ok(Material::MultiTurn {
            conversations: Arc::new(conversations),
            dialog: dialog.clone(),
        })
    }

    /// ShareGPT's first exchanges under vLLM's length rule (the built-in dialogs' first
    /// turns when it is not fetched).
    pub(super) fn single_turn(
        &mut self,
        s: &Scenario,
        info: &mut WorkloadInfo,
        source: Source,
    ) -> Result<Material, ScenarioError> {
        let path = self.dataset(sharegpt::path);
        let found = path.as_ref().filter(|p| p.is_file());
        let prompts = if let Some(file) = found.filter(|_| source == Source::Sharegpt) {
            info.source = described("ShareGPT first exchanges", file);
            let (prompts, dropped) = pairs_from_sharegpt(file, &self.tokenizer)?;
            info.notes.push(format!(
                "{} prompts; {dropped} dropped by vLLM's length rule (prompt and reply at least 4 tokens, prompt at most 1024, both at most 2048)",
                prompts.len()
            ));
            prompts
        } else {
            if source == Source::Sharegpt {
                self.fallback(&s.header.id, "ShareGPT", path, "sharegpt");
                info.synthetic = true;
            }
            let prompts = builtin_pairs(&self.builtin(), self.config.seed);
            info.notes.push(format!(
                "{} built-in prompts (first turns of generated dialogs)",
                prompts.len()
            ));
            prompts
        };
        if prompts.is_empty() {
            return Err(definition_error(
                s,
                format!("no prompt of {} passes the length rule", info.source),
            ));
        }
        Ok(Material::Custom {
            prompts: Arc::new(prompts),
        })
    }
}
