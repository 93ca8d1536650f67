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
use super::loaders::{
    builtin_dialogs, builtin_pairs, dialogs_from_oasst2, pairs_from_sharegpt, system_prompt,
};
use crate::data::{longbench, oasst2, sharegpt};
use crate::definition::{Dialog, Scenario, Source, Spec};
use crate::error::ScenarioError;
use crate::lengths::median;
use crate::rng::stream_rng;
use crate::text::words::prose;
use crate::text::{Corpus, Text, Window};
use crate::tokenizer::Tokenizer;
use crate::workload::custom::CustomPrompt;
use crate::workload::multi_turn::Conversation;

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
        let id = s.header.id.clone();
        let mut info = WorkloadInfo {
            id: id.clone(),
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
        let empty = |what: String| ScenarioError::Definition {
            file: s.origin.clone().into(),
            message: what,
        };
        let material = match &s.spec {
            Spec::Identical { input_tokens } => {
                let corpus = self.builtin();
                corpus
                    .pick(*input_tokens, &mut stream_rng(0, "check"))
                    .ok_or_else(|| {
                        empty(format!(
                            "`input_tokens` {input_tokens} is longer than any built-in document"
                        ))
                    })?;
                info.notes.push(format!("input_tokens {input_tokens}"));
                Material::Identical {
                    corpus,
                    target: *input_tokens,
                    length: *input_tokens,
                }
            }
            Spec::Diverse {
                input_tokens,
                source,
            } => {
                let mut corpus = None;
                if *source == Source::Longbench {
                    match self.longbench()? {
                        Some((c, described)) => {
                            info.source = described;
                            corpus = Some(c);
                        }
                        None => {
                            self.fallback(
                                &id,
                                "LongBench-v2",
                                self.dataset(longbench::path),
                                "longbench",
                            );
                            info.synthetic = true;
                        }
                    }
                }
                let (corpus, src) = match corpus {
                    Some(c) => (c, Source::Longbench),
                    None => (self.builtin(), Source::BuiltIn),
                };
                let windows = self.windows(src, &corpus, *input_tokens);
                if windows.is_empty() {
                    return Err(empty(format!(
                        "`input_tokens` {input_tokens}: no window that long fits in any document of {}",
                        info.source
                    )));
                }
                if windows.len() < FEW_WINDOWS {
                    self.warnings.push(format!("{id}: only {} distinct prompts of {input_tokens} tokens; they repeat in longer cells", windows.len()));
                }
                info.notes.push(format!(
                    "input_tokens {input_tokens}; {} distinct windows",
                    windows.len()
                ));
                Material::Diverse {
                    corpus,
                    windows,
                    target: *input_tokens,
                }
            }
            Spec::SharedPrefix {
                system_tokens,
                input_tokens,
            } => {
                let corpus = self.builtin();
                system_prompt(&corpus, *system_tokens, 0).ok_or_else(|| {
                    empty(format!(
                        "`system_tokens` {system_tokens} is longer than any built-in document"
                    ))
                })?;
                let queries = self.windows(Source::BuiltIn, &corpus, *input_tokens);
                if queries.is_empty() {
                    return Err(empty(format!(
                        "`input_tokens` {input_tokens} is longer than any built-in document"
                    )));
                }
                info.notes.push(format!(
                    "system_tokens {system_tokens}; input_tokens {input_tokens}"
                ));
                Material::SharedPrefix {
                    corpus,
                    queries,
                    system_tokens: *system_tokens,
                    target: system_tokens + input_tokens,
                }
            }
            Spec::MultiTurn(dialog) => {
                let path = self.dataset(oasst2::path);
                let found = path.as_ref().filter(|p| p.is_file());
                let conversations =
                    if let Some(file) = found.filter(|_| dialog.source == Source::Oasst2) {
                        info.source = described("oasst2 conversation trees", file);
                        dialogs_from_oasst2(file, dialog, &self.tokenizer)?
                    } else {
                        if dialog.source == Source::Oasst2 {
                            self.fallback(&id, "oasst2", path, "oasst2");
                            info.synthetic = true;
                        }
                        let corpus = self.builtin();
                        builtin_dialogs(&corpus, self.config.seed)
                    };
                let conversations: Vec<Conversation> = conversations
                    .into_iter()
                    .filter(|c| c.turns.len() >= dialog.min_turns as usize)
                    .collect();
                if conversations.is_empty() {
                    return Err(empty(format!(
                        "no conversation in languages {:?} with at least {} user turns in {}",
                        dialog.lang, dialog.min_turns, info.source
                    )));
                }
                info.notes.push(format!(
                    "{} conversations; paths {}; replies {}; lang {}; max_context_tokens {}; min_turns {}",
                    conversations.len(), dialog.paths.as_str(), dialog.replies.as_str(), dialog.lang.join(","), dialog.max_context_tokens, dialog.min_turns
                ));
                Material::MultiTurn {
                    conversations: Arc::new(conversations),
                    dialog: dialog.clone(),
                }
            }
            Spec::SingleTurn { source } => {
                let path = self.dataset(sharegpt::path);
                let found = path.as_ref().filter(|p| p.is_file());
                let prompts = if let Some(file) = found.filter(|_| *source == Source::Sharegpt) {
                    info.source = described("ShareGPT first exchanges", file);
                    let (prompts, dropped) = pairs_from_sharegpt(file, &self.tokenizer)?;
                    info.notes.push(format!(
                        "{} prompts; {dropped} dropped by vLLM's length rule (prompt and reply at least 4 tokens, prompt at most 1024, both at most 2048)",
                        prompts.len()
                    ));
                    prompts
                } else {
                    if *source == Source::Sharegpt {
                        self.fallback(&id, "ShareGPT", path, "sharegpt");
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
                    return Err(empty(format!(
                        "no prompt of {} passes the length rule",
                        info.source
                    )));
                }
                Material::Custom {
                    prompts: Arc::new(prompts),
                }
            }
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
            let message = format!(
                "{{\"dist\": \"dataset\"}} takes each request's length from its dataset reply, but scenario {id} (kind {}) has no replies; expected fixed, uniform, normal or lognormal",
                s.header.kind.as_str()
            );
            let from_options = self
                .config
                .scenario_options
                .get(&id)
                .is_some_and(|o| o.get("max_tokens").is_some());
            return Err(match s.output_tokens {
                None => ScenarioError::config("max_tokens", message),
                Some(_) if from_options => {
                    ScenarioError::config(format!("scenario_options.{id}.max_tokens"), message)
                }
                Some(_) => ScenarioError::Definition {
                    file: s.origin.clone().into(),
                    message: format!("`max_tokens` {message}"),
                },
            });
        }
        Ok(Prepared {
            info,
            material,
            output_tokens,
            reply_median: replies.map(median).unwrap_or(0),
        })
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
