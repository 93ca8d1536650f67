//! [`Settings`]: the per-kind fields of a definition file, which is also the shape of
//! `scenario_options.<id>` (unknown fields rejected), and how options overlay a file's.

use std::path::PathBuf;

use plateau_model::config::{OutputTokens, Think};
use serde::{Deserialize, Serialize};

use super::{AgentSettings, Paths, Replies, Source, TraceSettings};

/// The settings of a definition file, and the shape of `scenario_options.<id>` (which
/// overrides them). Which fields apply depends on the kind ([`super::Kind::fields`]).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Settings {
    /// Where the text comes from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<Source>,
    /// Prompt (or user query) length in tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_tokens: Option<u32>,
    /// System prompt length in tokens (shared_prefix).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system_tokens: Option<u32>,
    /// The JSONL file of a custom scenario, relative to the definition's directory (and
    /// inside it, unless `allow_outside`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<PathBuf>,
    /// Lets `file` be an absolute path, or lead out of the definition's directory.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allow_outside: Option<bool>,
    /// The longest prompt a custom file may hold, in tokens of the client tokenizer
    /// (default 1,000,000); a longer one is an error naming its line.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_prompt_tokens: Option<u32>,
    /// Conversation languages (oasst2 codes such as `en`, `de`; `*` for all).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lang: Option<Vec<String>>,
    /// Which tree paths become conversations.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub paths: Option<Paths>,
    /// Whose assistant turns fill the history.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replies: Option<Replies>,
    /// A conversation ends before its history plus `max_tokens` would exceed this.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_context_tokens: Option<u32>,
    /// Conversations with fewer user turns are skipped.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_turns: Option<u32>,
    /// Each request's `max_tokens` (a number or a distribution), instead of the run's
    /// top-level `max_tokens`; any kind.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<OutputTokens>,
    /// The trace a `trace` scenario replays.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace: Option<TraceSettings>,
    /// The shape of an `agent` scenario's sessions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<AgentSettings>,
    /// The wait between a turn's reply and the session's next turn (multi_turn, agent): a
    /// distribution `{"dist": "fixed" | "uniform" | "exponential" | "lognormal", ...}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub think: Option<Think>,
}

impl Settings {
    /// Names of the fields that are set.
    pub fn present(&self) -> Vec<&'static str> {
        let s = self;
        [
            ("source", s.source.is_some()),
            ("input_tokens", s.input_tokens.is_some()),
            ("system_tokens", s.system_tokens.is_some()),
            ("file", s.file.is_some()),
            ("allow_outside", s.allow_outside.is_some()),
            ("max_prompt_tokens", s.max_prompt_tokens.is_some()),
            ("lang", s.lang.is_some()),
            ("paths", s.paths.is_some()),
            ("replies", s.replies.is_some()),
            ("max_context_tokens", s.max_context_tokens.is_some()),
            ("min_turns", s.min_turns.is_some()),
            ("max_tokens", s.max_tokens.is_some()),
            ("trace", s.trace.is_some()),
            ("agent", s.agent.is_some()),
            ("think", s.think.is_some()),
        ]
        .into_iter()
        .filter_map(|(name, set)| set.then_some(name))
        .collect()
    }

    /// These settings with every field set in `over` replaced.
    pub fn overlay(self, over: &Settings) -> Settings {
        let o = over.clone();
        Settings {
            source: o.source.or(self.source),
            input_tokens: o.input_tokens.or(self.input_tokens),
            system_tokens: o.system_tokens.or(self.system_tokens),
            file: o.file.or(self.file),
            allow_outside: o.allow_outside.or(self.allow_outside),
            max_prompt_tokens: o.max_prompt_tokens.or(self.max_prompt_tokens),
            lang: o.lang.or(self.lang),
            paths: o.paths.or(self.paths),
            replies: o.replies.or(self.replies),
            max_context_tokens: o.max_context_tokens.or(self.max_context_tokens),
            min_turns: o.min_turns.or(self.min_turns),
            max_tokens: o.max_tokens.or(self.max_tokens),
            trace: match (self.trace, o.trace) {
                (Some(base), Some(over)) => Some(base.overlay(&over)),
                (base, over) => over.or(base),
            },
            agent: match (self.agent, o.agent) {
                (Some(base), Some(over)) => Some(base.overlay(&over)),
                (base, over) => over.or(base),
            },
            think: o.think.or(self.think),
        }
    }
}
