//! Scenario definitions as data: a definition file (one JSON object per scenario, the six
//! defaults embedded in [`defaults`]) has a header (`id`, `name`, `description`, `kind`,
//! `caching`) and [`Settings`]; the run's `scenario_options.<id>` overrides the settings; and
//! [`Scenario::resolve`] checks that every setting applies to the kind and yields the typed
//! [`Spec`] a workload is built from.

mod agent;
mod custom;
pub mod defaults;
mod dialog;
pub mod load;
mod names;
mod settings;
mod trace;

pub use agent::AgentSettings;
pub use custom::{CustomFile, MAX_PROMPT_TOKENS};
pub use dialog::Dialog;
use dialog::{dialog, think};
pub use settings::Settings;
pub use trace::{TraceSettings, TraceSpec};

use plateau_model::config::{OutputTokens, Think};
use serde::{Deserialize, Serialize};

/// What a scenario does with its prompts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// The same prompt for every request (A1, A2).
    Identical,
    /// A different prompt for every request, unique from the first token (B1, B2).
    Diverse,
    /// One system prompt shared by every request, then a unique user query (C).
    SharedPrefix,
    /// Conversations whose every turn resends the history (D).
    MultiTurn,
    /// One user message per request from a dataset of prompt/reply pairs, with the reply's
    /// length at hand for `{"dist": "dataset"}` output lengths (S).
    SingleTurn,
    /// Prompts or message lists from a user's JSONL file.
    Custom,
    /// A request trace replayed: prompts synthesised to each record's lengths and
    /// `hash_ids`, on the trace's own clock in the open loop, in order in the closed loop.
    Trace,
    /// Synthetic agent sessions: a shared system prompt with tools, tool-call turns with
    /// tool results, think time, and sub-agent fan-out joined by the parent (E).
    Agent,
}

impl Kind {
    /// The settings that apply to this kind.
    pub fn fields(self) -> &'static [&'static str] {
        match self {
            Kind::Identical => &["source", "input_tokens"],
            Kind::Diverse => &["source", "input_tokens"],
            Kind::SharedPrefix => &["source", "system_tokens", "input_tokens"],
            Kind::MultiTurn => &[
                "source",
                "lang",
                "paths",
                "replies",
                "max_context_tokens",
                "min_turns",
                "think",
            ],
            Kind::SingleTurn => &["source"],
            Kind::Custom => &["source", "file", "allow_outside", "max_prompt_tokens"],
            Kind::Trace => &["source", "trace"],
            Kind::Agent => &["source", "agent", "think"],
        }
    }

    /// The sources this kind can read.
    pub fn sources(self) -> &'static [Source] {
        match self {
            Kind::Identical | Kind::SharedPrefix => &[Source::BuiltIn],
            Kind::Diverse => &[Source::BuiltIn, Source::Longbench],
            Kind::MultiTurn => &[Source::BuiltIn, Source::Oasst2],
            Kind::SingleTurn => &[Source::Sharegpt, Source::BuiltIn],
            Kind::Custom => &[Source::Jsonl],
            Kind::Trace => &[Source::Trace],
            Kind::Agent => &[Source::BuiltIn],
        }
    }

    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Identical => "identical",
            Kind::Diverse => "diverse",
            Kind::SharedPrefix => "shared_prefix",
            Kind::MultiTurn => "multi_turn",
            Kind::SingleTurn => "single_turn",
            Kind::Custom => "custom",
            Kind::Trace => "trace",
            Kind::Agent => "agent",
        }
    }
}

/// How much of each prompt a server with prefix caching can reuse (documentation for
/// readers of the results; it changes nothing in the workload).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Caching {
    /// All of it (identical prompts).
    Maximum,
    /// The shared system prompt.
    SystemPrompt,
    /// The conversation history.
    History,
    /// Some of it.
    Partial,
    /// None of it.
    None,
    /// Not stated.
    Unknown,
}

/// Where a scenario's text comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Source {
    /// plateau's generated prose.
    BuiltIn,
    /// LongBench-v2 contexts (`datasets/longbench/contexts.jsonl`).
    Longbench,
    /// oasst2 conversation trees (`datasets/oasst2/trees.jsonl`).
    Oasst2,
    /// ShareGPT first exchanges (`datasets/sharegpt/pairs.jsonl`).
    Sharegpt,
    /// A user's JSONL file (`file`).
    Jsonl,
    /// A request trace (`trace.path`).
    Trace,
}

impl Source {
    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Source::BuiltIn => "built_in",
            Source::Longbench => "longbench",
            Source::Oasst2 => "oasst2",
            Source::Sharegpt => "sharegpt",
            Source::Jsonl => "jsonl",
            Source::Trace => "trace",
        }
    }
}

/// Which root-to-leaf paths of an oasst2 tree become conversations.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Paths {
    /// Follow the best-ranked reply (rank 0) at each level: one conversation per tree.
    #[default]
    Rank0,
    /// Every root-to-leaf path.
    All,
}

impl Paths {
    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Paths::Rank0 => "rank0",
            Paths::All => "all",
        }
    }
}

/// Whose assistant turns go into a conversation's history.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Replies {
    /// The server's actual replies, as a chat user would see them.
    #[default]
    Server,
    /// The dataset's replies.
    Dataset,
}

impl Replies {
    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Replies::Server => "server",
            Replies::Dataset => "dataset",
        }
    }
}

/// The fields every definition file has besides its settings.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Header {
    /// Scenario id: letters, digits, `.`, `_`, `-` (it names a results directory).
    pub id: String,
    /// Human name.
    pub name: String,
    /// What the scenario stresses.
    pub description: String,
    /// What it does with prompts.
    pub kind: Kind,
    /// How much a prefix cache can reuse.
    #[serde(default = "unknown_caching")]
    pub caching: Caching,
}

fn unknown_caching() -> Caching {
    Caching::Unknown
}

/// What a workload is built from, per kind.
#[derive(Clone, Debug, PartialEq)]
pub enum Spec {
    /// One prompt of `input_tokens`.
    Identical {
        /// Prompt length.
        input_tokens: u32,
    },
    /// A unique prompt of `input_tokens` per request.
    Diverse {
        /// Prompt length.
        input_tokens: u32,
        /// `built_in` or `longbench`.
        source: Source,
    },
    /// A shared system prompt plus a unique query.
    SharedPrefix {
        /// System prompt length.
        system_tokens: u32,
        /// Query length.
        input_tokens: u32,
    },
    /// Conversations.
    MultiTurn(Dialog),
    /// A dataset's first exchanges.
    SingleTurn {
        /// `sharegpt` or `built_in`.
        source: Source,
    },
    /// Prompts from a JSONL file.
    Custom(CustomFile),
    /// A trace.
    Trace(TraceSpec),
    /// Agent sessions of this shape, with think times between turns.
    Agent {
        /// Lengths, turns and fan-out.
        shape: crate::workload::agent::AgentShape,
        /// The wait after each turn (the tool's run; none: at once).
        think: Option<Think>,
    },
}

/// A scenario ready to build workloads from.
#[derive(Clone, Debug, PartialEq)]
pub struct Scenario {
    /// Id, name, description, kind, caching.
    pub header: Header,
    /// The resolved settings.
    pub spec: Spec,
    /// Its own output lengths (`max_tokens` setting), checked; `None` takes the run's.
    pub output_tokens: Option<OutputTokens>,
    /// Where the definition came from (a file path or `built-in`).
    pub origin: String,
}

impl Scenario {
    /// Checks `settings` against the header's kind and resolves them; `Err((field, message))`
    /// names the offending setting. `base` is the directory relative files are read from.
    pub fn resolve(
        header: Header,
        settings: &Settings,
        base: &std::path::Path,
        origin: String,
    ) -> Result<Scenario, (String, String)> {
        let kind = header.kind;
        for field in settings.present() {
            if field == "max_tokens" && kind == Kind::Trace {
                return Err((
                    field.into(),
                    "does not apply to kind trace: each request asks for its record's output_length".into(),
                ));
            }
            if field == "max_tokens" && kind == Kind::Agent {
                return Err((
                    field.into(),
                    "does not apply to kind agent: set agent.reply_tokens".into(),
                ));
            }
            if field != "max_tokens" && !kind.fields().contains(&field) {
                return Err((
                    field.into(),
                    format!(
                        "does not apply to kind {}; its settings are: {}, max_tokens",
                        kind.as_str(),
                        kind.fields().join(", ")
                    ),
                ));
            }
        }
        let source = settings.source.unwrap_or(kind.sources()[0]);
        if !kind.sources().contains(&source) {
            let expected: Vec<&str> = kind.sources().iter().map(|s| s.as_str()).collect();
            return Err((
                "source".into(),
                format!(
                    "`{}` cannot feed kind {}; expected {}",
                    source.as_str(),
                    kind.as_str(),
                    expected.join(" or ")
                ),
            ));
        }
        let tokens = |field: &str, v: Option<u32>| -> Result<u32, (String, String)> {
            match v {
                None => Err((
                    field.into(),
                    format!("is required for kind {}: a length in tokens", kind.as_str()),
                )),
                Some(0) => Err((field.into(), "expected a length of at least 1 token".into())),
                Some(n) if n > 1_000_000 => Err((
                    field.into(),
                    format!("{n} is too long; expected at most 1000000 tokens"),
                )),
                Some(n) => Ok(n),
            }
        };
        let spec = match kind {
            Kind::Identical => Spec::Identical {
                input_tokens: tokens("input_tokens", settings.input_tokens)?,
            },
            Kind::Diverse => Spec::Diverse {
                input_tokens: tokens("input_tokens", settings.input_tokens)?,
                source,
            },
            Kind::SharedPrefix => Spec::SharedPrefix {
                system_tokens: tokens("system_tokens", settings.system_tokens)?,
                input_tokens: tokens("input_tokens", settings.input_tokens)?,
            },
            Kind::MultiTurn => Spec::MultiTurn(dialog(settings, source)?),
            Kind::SingleTurn => Spec::SingleTurn { source },
            Kind::Custom => Spec::Custom(custom::file(settings, base)?),
            Kind::Trace => Spec::Trace(trace::resolve(settings.trace.as_ref(), base)?),
            Kind::Agent => Spec::Agent {
                shape: agent::resolve(settings.agent.as_ref())?,
                think: think(settings)?,
            },
        };
        if let Some(o) = &settings.max_tokens {
            o.check().map_err(|(field, message)| {
                let at = if field.is_empty() {
                    "max_tokens".to_owned()
                } else {
                    format!("max_tokens.{field}")
                };
                (at, message)
            })?;
        }
        Ok(Scenario {
            header,
            spec,
            output_tokens: settings.max_tokens,
            origin,
        })
    }
}
