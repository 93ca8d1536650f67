//! Preparing a scenario's material once per run: the built-in corpus and the LongBench-v2
//! corpus (each tokenized once, shared by every scenario that reads it), window lists,
//! conversations and custom prompts; and the fallback to built-in text when a dataset is
//! missing.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use plateau_core::workload::WorkloadInfo;
use plateau_model::config::{OutputTokens, RunConfig};

use super::Folders;
use crate::data::longbench;
use crate::definition::{Dialog, Scenario, Source, Spec};
use crate::error::ScenarioError;
use crate::lengths::median;
use crate::rng::stream_rng;
use crate::text::words::prose;
use crate::text::{Corpus, Text, Window};
use crate::tokenizer::Tokenizer;
use crate::workload::custom::CustomPrompt;
use crate::workload::multi_turn::Conversation;

mod kinds;
mod trace;

/// Documents and size of the built-in corpus (about 700,000 tokens, ~200,000 distinct
/// 50-token prompts).
const BUILTIN_DOCS: u64 = 64;
const BUILTIN_DOC_CHARS: usize = 50_000;
/// Fewer distinct prompts than this in a diverse scenario is worth a warning.
const FEW_WINDOWS: usize = 10_000;

/// What a cell's workload is built from. `target` is the prompt length the requests
/// record (in the tokens lengths are met in); the text is cut to `length`, `windows` or
/// `system_tokens` of plateau's tokenizer, the same numbers unless the lengths are met in
/// a server's tokens (`retarget`).
#[derive(Clone, Debug)]
pub(super) enum Material {
    Identical {
        corpus: Arc<Corpus>,
        target: u32,
        length: u32,
    },
    Diverse {
        corpus: Arc<Corpus>,
        windows: Arc<Vec<Window>>,
        target: u32,
    },
    SharedPrefix {
        corpus: Arc<Corpus>,
        queries: Arc<Vec<Window>>,
        system_tokens: u32,
        target: u32,
    },
    MultiTurn {
        conversations: Arc<Vec<Conversation>>,
        dialog: Dialog,
    },
    Custom {
        prompts: Arc<Vec<CustomPrompt>>,
    },
    /// A trace's window: each record with its instant since the window's start.
    Trace {
        corpus: Arc<Corpus>,
        window: Arc<Vec<(std::time::Duration, crate::trace::Record)>>,
        /// Block size, speedup and think-time cap.
        timing: crate::workload::trace::Timing,
    },
    /// Agent sessions cut from the built-in corpus.
    Agent {
        corpus: Arc<Corpus>,
        shape: crate::workload::agent::AgentShape,
        think: Option<plateau_model::config::Think>,
    },
}

impl Material {
    /// The dataset's reply lengths, when the material has replies (`dataset` lengths).
    fn reply_lengths(&self) -> Option<Vec<u32>> {
        let lengths: Vec<u32> = match self {
            Material::MultiTurn { conversations, .. } => conversations
                .iter()
                .flat_map(|c| c.turns.iter())
                .filter(|t| t.reply.is_some())
                .map(|t| t.reply_tokens)
                .collect(),
            Material::Custom { prompts } => prompts.iter().filter_map(|p| p.reply_tokens).collect(),
            _ => Vec::new(),
        };
        (!lengths.is_empty()).then_some(lengths)
    }
}

/// A configured scenario, ready for its cells.
#[derive(Clone, Debug)]
pub(super) struct Prepared {
    pub info: WorkloadInfo,
    pub material: Material,
    /// Each request's `max_tokens` is drawn from this.
    pub output_tokens: OutputTokens,
    /// The median reply length of the material (`dataset` lengths of a prompt without a
    /// reply); 0 when it has no replies.
    pub reply_median: u32,
}

/// The corpora of a run, each built at most once.
pub(super) struct Sources<'a> {
    config: &'a RunConfig,
    tokenizer: Arc<Tokenizer>,
    /// Where the datasets and the corpus cache are.
    folders: &'a Folders,
    builtin: Option<Arc<Corpus>>,
    longbench: Option<Option<(Arc<Corpus>, String)>>,
    windows: HashMap<(Source, u32), Arc<Vec<Window>>>,
    pub warnings: Vec<String>,
}

impl<'a> Sources<'a> {
    pub fn new(config: &'a RunConfig, tokenizer: Arc<Tokenizer>, folders: &'a Folders) -> Self {
        Sources {
            config,
            tokenizer,
            folders,
            builtin: None,
            longbench: None,
            windows: HashMap::new(),
            warnings: Vec::new(),
        }
    }

    fn builtin(&mut self) -> Arc<Corpus> {
        let (tokenizer, seed) = (self.tokenizer.clone(), self.config.seed);
        let dir = self.folders.cache.as_deref();
        self.builtin
            .get_or_insert_with(|| {
                let texts = (0..BUILTIN_DOCS)
                    .map(|i| Text {
                        body: prose(
                            &mut stream_rng(seed ^ i, "built-in corpus"),
                            BUILTIN_DOC_CHARS,
                        ),
                        suffix: String::new(),
                    })
                    .collect();
                Arc::new(Corpus::cached(tokenizer, texts, dir))
            })
            .clone()
    }

    /// LongBench-v2 contexts with their questions as suffixes; `None` when not fetched.
    fn longbench(&mut self) -> Result<Option<(Arc<Corpus>, String)>, ScenarioError> {
        if let Some(c) = &self.longbench {
            return Ok(c.clone());
        }
        let path = self.dataset(longbench::path);
        let corpus = if let Some(path) = path.filter(|p| p.is_file()) {
            let texts = longbench::read(&path)?
                .into_iter()
                .map(|r| Text {
                    body: r.context,
                    suffix: format!("\n\nQuestion: {}", r.question),
                })
                .collect();
            Some((
                Arc::new(Corpus::new(self.tokenizer.clone(), texts)),
                described("LongBench-v2 contexts", &path),
            ))
        } else {
            None
        };
        self.longbench = Some(corpus.clone());
        Ok(corpus)
    }

    fn windows(&mut self, source: Source, corpus: &Corpus, tokens: u32) -> Arc<Vec<Window>> {
        self.windows
            .entry((source, tokens))
            .or_insert_with(|| Arc::new(corpus.windows(tokens)))
            .clone()
    }

    /// The path of a dataset's normalised file (`file` of the datasets folder), if there is
    /// a datasets folder.
    fn dataset(&self, file: fn(&Path) -> PathBuf) -> Option<PathBuf> {
        self.folders.datasets.as_deref().map(file)
    }

    fn fallback(&mut self, id: &str, what: &str, path: Option<PathBuf>, dataset: &str) {
        let at = match path {
            Some(path) => format!("not found at {}", path.display()),
            None => "not found (no datasets folder: set datasets_dir)".to_owned(),
        };
        self.warnings.push(format!(
            "{id}: {what} {at}; using built-in text instead (results are marked synthetic); run `plateau fetch-datasets {dataset}`"
        ));
    }

    pub fn prepare(&mut self, s: &Scenario) -> Result<Prepared, ScenarioError> {
        let mut info = WorkloadInfo {
            id: s.header.id.clone(),
            name: s.header.name.clone(),
            synthetic: false,
            source: builtin_source(self.config.seed),
            notes: Vec::new(),
            output_tokens: None,
        };
        info.notes.push(format!(
            "kind {}; definition {}; tokenizer {}",
            s.header.kind.as_str(),
            s.origin,
            self.tokenizer.name()
        ));
        let material = match &s.spec {
            Spec::Identical { input_tokens } => self.identical(s, &mut info, *input_tokens)?,
            Spec::Diverse {
                input_tokens,
                source,
            } => self.diverse(s, &mut info, *source, *input_tokens)?,
            Spec::SharedPrefix {
                system_tokens,
                input_tokens,
            } => self.shared_prefix(s, &mut info, *system_tokens, *input_tokens)?,
            Spec::MultiTurn(dialog) => self.multi_turn(s, &mut info, dialog)?,
            Spec::SingleTurn { source } => self.single_turn(s, &mut info, *source)?,
            Spec::Trace(spec) => self.trace(s, &mut info, spec)?,
            Spec::Agent { shape, think } => Material::Agent {
                corpus: self.builtin(),
                shape: shape.clone(),
                think: *think,
            },
            Spec::Custom(file) => {
                let prompts = super::custom_file::prompts(file, &self.tokenizer)?;
                info.source = file.path.display().to_string();
                info.notes.push(format!("{} prompts", prompts.len()));
                Material::Custom {
                    prompts: Arc::new(prompts),
                }
            }
        };
        let output_tokens = s.output_tokens.unwrap_or(self.config.max_tokens);
        let replies = material.reply_lengths();
        if output_tokens.from_dataset() && replies.is_none() {
            return Err(self.no_replies(s));
        }
        Ok(Prepared {
            info,
            material,
            output_tokens,
            reply_median: replies.map(median).unwrap_or(0),
        })
    }

    /// `{"dist": "dataset"}` on a scenario without replies, named where it was set.
    fn no_replies(&self, s: &Scenario) -> ScenarioError {
        let id = &s.header.id;
        let message = format!(
            "{{\"dist\": \"dataset\"}} takes each request's length from its dataset reply, but scenario {id} (kind {}) has no replies; expected fixed, uniform, normal or lognormal",
            s.header.kind.as_str()
        );
        let from_options = self
            .config
            .scenario_options
            .get(id)
            .is_some_and(|o| o.get("max_tokens").is_some());
        match s.output_tokens {
            None => ScenarioError::config("max_tokens", message),
            Some(_) if from_options => {
                ScenarioError::config(format!("scenario_options.{id}.max_tokens"), message)
            }
            Some(_) => definition_error(s, format!("`max_tokens` {message}")),
        }
    }
}

/// An error in the scenario's definition file.
fn definition_error(s: &Scenario, message: String) -> ScenarioError {
    ScenarioError::Definition {
        file: s.origin.clone().into(),
        message,
    }
}

fn builtin_source(seed: u64) -> String {
    format!("built-in text (generated from plateau's word lists, seed {seed})")
}

/// `what (path)`, with the fetched revision when the manifest beside it says.
fn described(what: &str, path: &Path) -> String {
    match path
        .parent()
        .and_then(|d| crate::fetch::manifest::Manifest::read(d).ok())
    {
        Some(m) => format!(
            "{what} ({}, revision {})",
            path.display(),
            m.repo_commit.unwrap_or(m.revision)
        ),
        None => format!("{what} ({})", path.display()),
    }
}
