//! The [`Catalog`]: every scenario definition of a run, resolved with its options, and the
//! material of each configured scenario prepared once (datasets read and tokenized, or the
//! built-in stand-in with a warning). As the core's [`WorkloadFactory`] it builds each
//! cell's workload, seeded by the plan's seed, the scenario id and the load (N or rate).

mod custom_file;
mod loaders;
mod prepare;
mod retarget;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use plateau_core::plan::{Cell, Plan};
use plateau_core::workload::{Workload, WorkloadFactory};
use plateau_model::config::{OutputTokens, RunConfig};

use crate::definition::Scenario;
use crate::definition::load::load;
use crate::error::ScenarioError;
use crate::lengths::Lengths;
use crate::rng::cell_seed;
use crate::tokenizer::Tokenizer;
use crate::workload::agent::Agent;
use crate::workload::custom::Custom;
use crate::workload::diverse::{Diverse, Unique};
use crate::workload::identical::Identical;
use crate::workload::multi_turn::{DialogRules, MultiTurn};
use crate::workload::shared_prefix::SharedPrefix;
use crate::workload::think::ThinkTimes;
use crate::workload::trace::TraceReplay;
use crate::workload::with_lengths::WithLengths;
use prepare::{Material, Prepared};
pub use retarget::Conversion;

/// The scenarios of a run, ready to build workloads.
#[derive(Debug)]
pub struct Catalog {
    tokenizer: Arc<Tokenizer>,
    scenarios: BTreeMap<String, Scenario>,
    prepared: BTreeMap<String, Prepared>,
    /// Scenarios whose lengths are met in an endpoint's tokens, by (endpoint index, model
    /// index, scenario): the cells of that endpoint and model take these over `prepared`.
    retargeted: BTreeMap<(usize, usize, String), Prepared>,
    warnings: Vec<String>,
}

/// The folders a catalog reads and writes, as the caller resolved them (the binary fills in
/// the defaults of a config that names none: see `datasets_dir` and `scenarios_dir`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Folders {
    /// Definition files that override and add to the built-in ones; none: the built-ins.
    pub scenarios: Option<PathBuf>,
    /// Where `plateau fetch-datasets` put the datasets; none: built-in text stands in.
    pub datasets: Option<PathBuf>,
    /// The corpus cache (see `Corpus::cached`); none: no cache.
    pub cache: Option<PathBuf>,
}

impl Folders {
    /// The folders `config` names, with no cache.
    pub fn of(config: &RunConfig) -> Folders {
        Folders {
            scenarios: config.scenarios_dir.clone(),
            datasets: config.datasets_dir.clone(),
            cache: None,
        }
    }
}

impl Catalog {
    /// [`Catalog::load_in`] the folders `config` names, with no corpus cache.
    pub fn load(config: &RunConfig, tokenizer: Arc<Tokenizer>) -> Result<Catalog, ScenarioError> {
        Catalog::load_in(config, tokenizer, &Folders::of(config))
    }

    /// Reads the definitions (`folders.scenarios` over the embedded defaults), validates
    /// `config.scenario_options`, checks that every id in `config.scenarios` exists, and
    /// prepares those scenarios: datasets under `folders.datasets` are read and tokenized
    /// with `tokenizer` once; a missing dataset falls back to built-in text with a warning.
    /// The built-in corpus is read from (or stored in) the cache in `folders.cache`.
    pub fn load_in(
        config: &RunConfig,
        tokenizer: Arc<Tokenizer>,
        folders: &Folders,
    ) -> Result<Catalog, ScenarioError> {
        let defs = load(folders.scenarios.as_deref(), &config.scenario_options)?;
        let mut warnings = Vec::new();
        for (i, id) in config.scenarios.iter().enumerate() {
            if !defs.scenarios.contains_key(id) {
                let known: Vec<&str> = defs.scenarios.keys().map(String::as_str).collect();
                return Err(ScenarioError::config(
                    format!("scenarios[{i}]"),
                    format!("no scenario `{id}`; known: {}", known.join(", ")),
                ));
            }
        }
        let mut sources = prepare::Sources::new(config, tokenizer.clone(), folders);
        let mut prepared = BTreeMap::new();
        for id in &config.scenarios {
            if let Some(s) = defs.scenarios.get(id) {
                prepared.insert(id.clone(), sources.prepare(s)?);
            }
        }
        warnings.extend(sources.warnings);
        Ok(Catalog {
            tokenizer,
            scenarios: defs.scenarios,
            prepared,
            retargeted: BTreeMap::new(),
            warnings,
        })
    }

    /// What the user should know: datasets replaced by built-in text (those cells' results are marked synthetic), few distinct prompts.
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// Every known scenario (defaults and files), by id.
    pub fn scenarios(&self) -> &BTreeMap<String, Scenario> {
        &self.scenarios
    }

    /// What the requests of a configured scenario ask for as `max_tokens`: a number, or
    /// the distribution each request's length is drawn from.
    pub fn output_tokens(&self, scenario: &str) -> Option<OutputTokens> {
        self.prepared.get(scenario).map(|p| p.output_tokens)
    }

    /// The tokenizer prompt lengths are measured in.
    pub fn tokenizer(&self) -> &Arc<Tokenizer> {
        &self.tokenizer
    }

    /// The longest prompt of each configured custom scenario, to hold against a model's
    /// context once the server has said how long it is.
    pub fn longest_prompts(&self) -> Vec<LongestPrompt> {
        self.prepared
            .iter()
            .filter_map(|(id, p)| match &p.material {
                Material::Custom { prompts } => {
                    let longest = prompts.iter().max_by_key(|c| c.tokens)?;
                    Some(LongestPrompt {
                        scenario: id.clone(),
                        file: p.info.source.clone(),
                        line: longest.line,
                        tokens: longest.tokens,
                    })
                }
                _ => None,
            })
            .collect()
    }
}

/// A custom scenario's longest prompt.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LongestPrompt {
    /// Scenario id.
    pub scenario: String,
    /// Its prompts file.
    pub file: String,
    /// The prompt's line in it.
    pub line: Option<u32>,
    /// Its length in tokens of the client tokenizer.
    pub tokens: u32,
}

impl WorkloadFactory for Catalog {
    fn workload(&self, plan: &Plan, cell: &Cell) -> Result<Arc<dyn Workload>, String> {
        let p = self
            .retargeted
            .get(&(cell.endpoint, cell.model, cell.scenario.clone()))
            .or_else(|| self.prepared.get(&cell.scenario))
            .ok_or_else(|| {
                let loaded: Vec<&str> = self.prepared.keys().map(String::as_str).collect();
                format!(
                    "scenario `{}` was not loaded (the catalog prepared: {})",
                    cell.scenario,
                    loaded.join(", ")
                )
            })?;
        let seed = cell_seed(plan.seed, &cell.scenario, cell.load.seed_key());
        let info = p.info.clone();
        let n = cell.load.sessions();
        let lengths = Arc::new(Lengths::new(
            p.output_tokens,
            plan.seed,
            &cell.scenario,
            p.reply_median,
        ));
        let inner: Arc<dyn Workload> = match &p.material {
            Material::Identical {
                corpus,
                target,
                length,
            } => Arc::new(
                Identical::new(info, corpus, *length, *target, seed)
                    .ok_or_else(|| format!("{}: no text of {length} tokens", cell.scenario))?,
            ),
            Material::Diverse {
                corpus,
                windows,
                target,
            } => Arc::new(Diverse::new(
                info,
                Unique::new(corpus.clone(), windows.clone(), seed, n),
                *target,
            )),
            Material::SharedPrefix {
                corpus,
                queries,
                system_tokens,
                target,
            } => {
                let system =
                    loaders::system_prompt(corpus, *system_tokens, seed).ok_or_else(|| {
                        format!("{}: no text of {system_tokens} tokens", cell.scenario)
                    })?;
                Arc::new(SharedPrefix::new(
                    info,
                    system,
                    Unique::new(corpus.clone(), queries.clone(), seed, n),
                    *target,
                ))
            }
            Material::MultiTurn {
                conversations,
                dialog,
            } => {
                let rules = DialogRules {
                    replies: dialog.replies,
                    max_context_tokens: dialog.max_context_tokens,
                    lengths: lengths.clone(),
                    think: Arc::new(ThinkTimes::new(dialog.think, plan.seed, &cell.scenario)),
                };
                let shortest = p.output_tokens.shortest();
                first_turn_fits(conversations, shortest, rules.max_context_tokens, cell)?;
                Arc::new(MultiTurn::new(
                    info,
                    conversations.clone(),
                    rules,
                    self.tokenizer.clone(),
                    seed,
                    n,
                ))
            }
            Material::Custom { prompts } => Arc::new(Custom::new(info, prompts.clone(), seed, n)),
            Material::Trace {
                corpus,
                window,
                timing,
            } => return TraceReplay::build(info, corpus, window, *timing, seed, cell),
            Material::Agent {
                corpus,
                shape,
                think,
            } => {
                let think = ThinkTimes::new(*think, plan.seed, &cell.scenario);
                let agent = Agent::new(info, corpus.clone(), shape.clone(), think, seed);
                return Ok(Arc::new(agent));
            }
        };
        Ok(Arc::new(WithLengths::new(inner, lengths, n)))
    }
}

/// Whether some conversation's first turn plus `shortest` output tokens fits
/// `max_context_tokens`; the error names the setting.
fn first_turn_fits(
    conversations: &[crate::workload::multi_turn::Conversation],
    shortest: u32,
    max_context_tokens: u32,
    cell: &Cell,
) -> Result<(), String> {
    let fits = |c: &crate::workload::multi_turn::Conversation| {
        c.turns.first().is_some_and(|t| {
            u64::from(t.user_tokens) + u64::from(shortest) <= u64::from(max_context_tokens)
        })
    };
    if conversations.iter().any(fits) {
        return Ok(());
    }
    Err(format!(
        "scenario_options.{}.max_context_tokens: {max_context_tokens} leaves no room for a first turn plus max_tokens {shortest}",
        cell.scenario
    ))
}

#[cfg(test)]
mod tests;
