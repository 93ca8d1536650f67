//! The whole run resolved, from the lowest level to the highest: the plan (every config
//! key), what this machine can hold, each in-process simulator's settings ([`start`]),
//! then the tokenizer and the scenarios' workloads, prepared on a thread of their own while
//! the caller claims the output directory and listens for Ctrl-C ([`Started::finish`]).
//! Every problem found is reported at once,
//! each naming the source the user typed it in, so a config with a bad batch size, a bad
//! simulator setting and a bad scenario option fails once, not three runs in a row. What
//! comes out is resolved: the runner never reads `RunConfig` again.

use std::sync::Arc;

use anyhow::anyhow;
use plateau_core::plan::{Plan, Problem, Target};
use plateau_core::tokens::TokenCounter;
use plateau_model::config::RunConfig;
use plateau_scenarios::tokenizer::TokenizerError;
use plateau_scenarios::{Catalog, Folders, ScenarioError, Tokenizer};
use plateau_sim::SimConfig;
use serde_json::Value;
use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;

use crate::exit::Failure;
use crate::limits;
use crate::load::Origins;
use crate::shard::Sharding;

/// A run ready to start.
pub struct Resolved {
    /// The validated plan.
    pub plan: Plan,
    /// The client tokenizer, as results name it (`server` when lengths are met in the
    /// servers' tokens).
    pub counter: Arc<dyn TokenCounter>,
    /// Whether prompt lengths are met in each server's own tokens (`tokenizer: "server"`):
    /// the scenarios are cut again for each endpoint at preparation.
    pub server_lengths: bool,
    /// Every scenario's prepared workload.
    pub catalog: Catalog,
    /// Each endpoint's in-process simulator settings, parsed, with the run's seed and
    /// models filled in (`None`: the endpoint is reached at a URL).
    pub sims: Vec<Option<SimConfig>>,
}

/// A run being resolved: the plan and the simulators' settings, resolved at once, and the
/// tokenizer and workloads, prepared on a thread of their own (reading and tokenizing a
/// dataset can take minutes) so that a stopping signal is heard while they are
/// ([`Started::finish`]).
pub struct Started {
    plan: Option<Plan>,
    problems: Vec<String>,
    sims: Vec<(Option<SimConfig>, bool)>,
    server_lengths: bool,
    preparing: oneshot::Receiver<Prepared>,
}

/// What the preparation thread gives back.
struct Prepared {
    tokenizer: Result<Arc<Tokenizer>, TokenizerError>,
    /// `None` without a tokenizer: prompts are built in its tokens.
    catalog: Option<Result<Catalog, ScenarioError>>,
}

/// Why [`Started::finish`] did not give a run.
pub enum Stop {
    /// Problems, every one of them, each blamed on its source.
    Failed(Failure),
    /// A stopping signal came while the workloads were being prepared; the plan, when it
    /// held.
    Interrupted(Option<Box<Plan>>),
}

/// Resolves the plan of `config` (this runner's part of it under `--shard`) and starts
/// preparing its workloads, their scenarios read from and prepared in `folders`.
pub fn start(
    config: &RunConfig,
    origins: &Origins,
    env: &dyn Fn(&str) -> Option<String>,
    folders: &Folders,
    shard: Option<&Sharding>,
) -> Started {
    let mut problems: Vec<String> = Vec::new();
    let mut plan = Plan::build(config, env)
        .map_err(|e| problems.push(origins.problems(&e.problems)))
        .ok();
    if let (Some(p), Some(shard)) = (&mut plan, shard)
        && let Err(e) = shard.apply(p)
    {
        problems.push(e);
    }
    if let Some(plan) = &plan {
        let too_large = limits::check(plan, &limits::Machine::read());
        if !too_large.is_empty() {
            problems.push(origins.problems(&too_large));
        }
    }
    // Parsed whether or not the plan holds, so their problems are reported with its.
    let mut sims = Vec::with_capacity(config.endpoints.len());
    for (i, e) in config.endpoints.iter().enumerate() {
        let own_seed = matches!(&e.sim, Some(Value::Object(m)) if m.contains_key("seed"));
        match e.sim.as_ref().map(|v| sim_settings(i, v)).transpose() {
            Ok(sim) => sims.push((sim, own_seed)),
            Err(p) => {
                problems.push(origins.blame(&p.field, &p));
                sims.push((None, own_seed));
            }
        }
    }
    let server_lengths = crate::server_tokens::wanted(config)
        .map_err(|m| problems.push(origins.blame("tokenizer", format!("tokenizer: {m}"))))
        .unwrap_or(false);
    let (tx, preparing) = oneshot::channel();
    let owned = config.clone();
    let folders = folders.clone();
    let spawned = std::thread::Builder::new()
        .name("plateau-prepare".into())
        .spawn(move || {
            let _ = tx.send(prepare(&owned, &folders));
        });
    if let Err(e) = spawned {
        problems.push(format!("cannot start preparing the workloads: {e}"));
    }
    Started {
        plan,
        problems,
        sims,
        server_lengths,
        preparing,
    }
}

/// The tokenizer (possibly downloaded) and every scenario's workload material.
fn prepare(config: &RunConfig, folders: &Folders) -> Prepared {
    let env = |name: &str| std::env::var(name).ok();
    // Under `server` the text is cut in the embedded default, then again in each server's
    // tokens.
    let local = config
        .tokenizer
        .as_deref()
        .filter(|p| p.to_str() != Some(plateau_model::results::token_check::SERVER));
    let tokenizer = Tokenizer::load(local, &env).map(Arc::new);
    let catalog = tokenizer
        .as_ref()
        .ok()
        .map(|t| Catalog::load_in(config, t.clone(), folders));
    Prepared { tokenizer, catalog }
}

impl Started {
    /// The plan, when the config makes one.
    pub fn plan(&self) -> Option<&Plan> {
        self.plan.as_ref()
    }

    /// Waits for the workloads (or `interrupt`); on any problem, every problem, one per
    /// line, each blamed on its source through `origins`.
    pub async fn finish(
        self,
        origins: &Origins,
        interrupt: &CancellationToken,
    ) -> Result<Resolved, Stop> {
        let Started {
            plan,
            mut problems,
            sims,
            server_lengths,
            preparing,
        } = self;
        let prepared = tokio::select! {
            biased;
            () = interrupt.cancelled() => return Err(Stop::Interrupted(plan.map(Box::new))),
            p = preparing => p,
        };
        let (tokenizer, catalog) = match prepared {
            Ok(p) => (p.tokenizer, p.catalog),
            // The thread ended without an answer: it panicked (its message is printed).
            Err(_) => {
                problems.push("preparing the workloads failed".into());
                return Err(Stop::Failed(Failure::bad_input(anyhow!(
                    problems.join("\n")
                ))));
            }
        };
        let tokenizer = tokenizer
            .map_err(|e| problems.push(origins.blame("tokenizer", e)))
            .ok();
        let catalog = catalog.and_then(|c| {
            c.map_err(|e| {
                problems.push(match &e {
                    ScenarioError::Config { field, .. } => origins.blame(field, &e),
                    _ => e.to_string(),
                })
            })
            .ok()
        });
        match (plan, tokenizer, catalog) {
            (Some(plan), Some(tokenizer), Some(catalog)) if problems.is_empty() => {
                let sims = plan
                    .endpoints
                    .iter()
                    .zip(sims)
                    .map(|(e, (sim, own_seed))| {
                        (e.target == Target::InProcessSim)
                            .then(|| in_process(sim.unwrap_or_default(), &plan, own_seed))
                    })
                    .collect();
                let counter: Arc<dyn TokenCounter> = if server_lengths {
                    Arc::new(crate::server_tokens::Named(tokenizer))
                } else {
                    tokenizer
                };
                Ok(Resolved {
                    plan,
                    counter,
                    server_lengths,
                    catalog,
                    sims,
                })
            }
            _ => Err(Stop::Failed(Failure::bad_input(anyhow!(
                problems.join("\n")
            )))),
        }
    }
}

/// Endpoint `i`'s `sim`: a preset name, or a JSON object of settings.
fn sim_settings(i: usize, v: &Value) -> Result<SimConfig, Problem> {
    let bad = |message: String| Problem {
        field: format!("endpoints[{i}].sim"),
        message,
    };
    match v {
        Value::String(name) => SimConfig::from_profile(name).map_err(|e| bad(e.to_string())),
        Value::Object(_) => SimConfig::from_json(&v.to_string()).map_err(|e| bad(e.to_string())),
        other => Err(bad(format!(
            "got {other}, expected a preset name (fixed, realistic, faulty) or an object"
        ))),
    }
}

/// An in-process simulator's settings: the run's seed unless they set their own, and the
/// plan's models as the served ones unless they list theirs.
fn in_process(mut sim: SimConfig, plan: &Plan, own_seed: bool) -> SimConfig {
    if !own_seed {
        sim.seed = plan.seed;
    }
    if sim.served_models.is_empty() {
        sim.served_models = plan.models.iter().map(|m| m.name.clone()).collect();
    }
    sim
}
