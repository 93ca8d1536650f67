//! `tokenizer: "server"`: prompt lengths met in the server's own tokens, the default where
//! every endpoint's engine has `/tokenize` (vLLM, SGLang, llama.cpp, the simulator). The
//! scenarios are prepared in plateau's embedded tokenizer as usual; then, once per run,
//! after preflight and before the first cell ([`prepare`]), each scenario with a length
//! target is counted by each endpoint's `/tokenize` for each model (the texts alone, and the
//! chat as the server renders it: what `usage.prompt_tokens` says), and its text is cut
//! again so the server's count meets the target ([`Conversion`]), checked by a second count
//! and refined once more if it is still off. No cell tokenizes anything.

use std::sync::Arc;
use std::time::Instant;

use anyhow::anyhow;
use plateau_core::plan::{BaseUrl, Plan};
use plateau_core::token_check::{self, TokenCheck};
use plateau_core::tokens::TokenCounter;
use plateau_core::workload::WorkloadFactory;
use plateau_http::Client;
use plateau_model::config::{EndpointConfig, RunConfig};
use plateau_model::results::token_check::SERVER;
use plateau_scenarios::{Catalog, Conversion, Tokenizer};

use crate::exit::Failure;

/// A server count this close to the target (relative) is met.
const TOLERANCE: f64 = 0.02;

/// Counts after which preparation stops refining (the first is of the unchanged prompts).
/// A short prompt in a tokenizer several times finer than plateau's moves by several
/// percent per plateau token, so a few tries may be needed; each costs one request per
/// distinct prompt and message (at most 8 prompts).
const PASSES: usize = 6;

/// Whether `config` meets prompt lengths in the servers' tokens: `tokenizer: "server"`, or
/// no `tokenizer` and every endpoint's engine has `/tokenize`. `Err` names an endpoint
/// that cannot count when `server` was asked for.
pub fn wanted(config: &RunConfig) -> Result<bool, String> {
    let asked = config.tokenizer.as_deref().and_then(|p| p.to_str());
    let without: Vec<String> = config
        .endpoints
        .iter()
        .filter(|e| !token_check::has_tokenize(e.engine))
        .map(|e| format!("{} (engine {})", e.name, engine_name(e)))
        .collect();
    match asked {
        Some(SERVER) if !without.is_empty() => Err(format!(
            "`server` counts prompts with each endpoint's /tokenize, which only vllm, sglang, \
             llamacpp and sim engines have, not {}; set tokenizer to cl100k_base, o200k_base, \
             a tokenizer.json path or the model's Hugging Face id",
            without.join(", ")
        )),
        Some(SERVER) => Ok(true),
        Some(_) => Ok(false),
        None => Ok(without.is_empty()),
    }
}

fn engine_name(e: &EndpointConfig) -> String {
    serde_json::to_value(e.engine)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default()
}

/// plateau's own tokenizer when lengths are met in the servers' tokens: it cuts the text
/// and counts output a server sends no usage for, and results name it `server`.
pub struct Named(pub Arc<Tokenizer>);

impl TokenCounter for Named {
    fn count(&self, text: &str) -> usize {
        self.0.count(text)
    }

    fn name(&self) -> String {
        SERVER.to_owned()
    }
}

/// What preparing one endpoint and model took, for its log line.
#[derive(Default)]
struct Tally {
    requests: u32,
    scenarios: Vec<String>,
}

/// Cuts every scenario with a length target so each endpoint's server counts it as the
/// target, for each model. A server that cannot count (its `/tokenize` fails) stops the run
/// here (exit 3), naming it.
pub async fn prepare(
    plan: &Plan,
    targets: &[BaseUrl],
    client: &Client,
    catalog: &mut Catalog,
    counter: &dyn TokenCounter,
) -> Result<(), Failure> {
    let cells = plan.cells();
    for (ei, e) in plan.endpoints.iter().enumerate() {
        for (mi, m) in plan.models.iter().enumerate() {
            let started = Instant::now();
            let mut tally = Tally::default();
            let server = token_check::Server {
                client,
                endpoint: e,
                base: &targets[ei],
                model: &m.name,
            };
            for scenario in &plan.scenarios {
                let (Some(target), Some(cell)) = (
                    catalog.target(scenario),
                    cells
                        .iter()
                        .find(|c| c.endpoint == ei && c.model == mi && &c.scenario == scenario),
                ) else {
                    continue;
                };
                let where_ = Where {
                    endpoint: ei,
                    model: mi,
                    scenario,
                    target,
                };
                let last = closest_cut(&server, catalog, plan, cell, &where_, counter, &mut tally)
                    .await
                    .map_err(|err| match err {
                        CutError::Count(why) => Failure::unreachable(anyhow!(
                            "endpoint {} ({}): tokenizer \"server\" could not count \
                             {scenario}'s prompts: {why}; set tokenizer to a local one \
                             (cl100k_base, a tokenizer.json or the model's Hugging Face id)",
                            e.name,
                            targets[ei].as_str()
                        )),
                        CutError::Input(err) => Failure::bad_input(err),
                    })?;
                if let Some((counted, pass)) = last {
                    tally.scenarios.push(format!(
                        "{scenario} {counted:.0}/{target}{}",
                        if pass == 0 { "" } else { "*" }
                    ));
                    if (counted / f64::from(target) - 1.0).abs() > 0.05 {
                        tracing::warn!(
                            "endpoint {}: {scenario}'s prompts count {counted:.0} server tokens \
                             for a target of {target}, the closest of {PASSES} cuts",
                            e.name
                        );
                    }
                }
            }
            if !tally.scenarios.is_empty() {
                tracing::info!(
                    "prompt lengths in {}'s own tokens for {} (server count/target, * recut): \
                     {}; {} /tokenize requests in {:.1} s",
                    e.name,
                    m.name,
                    tally.scenarios.join(", "),
                    tally.requests,
                    started.elapsed().as_secs_f64()
                );
            }
        }
    }
    Ok(())
}

/// Which scenario of which endpoint and model (plan indices) is being cut, to what target.
struct Where<'a> {
    endpoint: usize,
    model: usize,
    scenario: &'a str,
    target: u32,
}

/// Why a scenario could not be cut.
enum CutError {
    /// The server's `/tokenize` gave no count: why.
    Count(String),
    /// The scenario could not be built or cut.
    Input(anyhow::Error),
}

/// Counts `at`'s prompts with `server` and cuts them again until the count is within
/// [`TOLERANCE`] of the target or [`PASSES`] counts were made, leaving the catalog with the
/// closest cut: its server count and the pass that made it (0: the prompts as prepared).
async fn closest_cut(
    server: &token_check::Server<'_>,
    catalog: &mut Catalog,
    plan: &Plan,
    cell: &plateau_core::plan::Cell,
    at: &Where<'_>,
    counter: &dyn TokenCounter,
    tally: &mut Tally,
) -> Result<Option<(f64, usize)>, CutError> {
    let (scenario, target) = (at.scenario, at.target);
    // The closest cut so far: (relative miss, server count, pass, conversion); pass 0
    // counts the prompts as prepared (the identity conversion).
    let identity = Conversion {
        ratio: 1.0,
        template: 0.0,
    };
    let mut best: Option<(f64, f64, usize, Conversion)> = None;
    let mut cut = identity;
    for pass in 0..PASSES {
        let workload = catalog
            .workload(plan, cell)
            .map_err(|m| CutError::Input(anyhow!("{scenario}: {m}")))?;
        let check = token_check::run(server, &*workload, counter)
            .await
            .unwrap_or_else(no_tokenize);
        tally.requests += check.requests;
        let requested = catalog.cut_length(scenario, cut).unwrap_or(target);
        let (counted, measured) = read(&check, requested).map_err(CutError::Count)?;
        let miss = (counted / f64::from(target) - 1.0).abs();
        if best.is_none_or(|b| miss < b.0) {
            best = Some((miss, counted, pass, cut));
        }
        if miss <= TOLERANCE || pass + 1 == PASSES {
            break;
        }
        // Cut from the scenario as prepared with the conversion these prompts showed: after
        // a first cut, the one measured on cut prompts (a tokenizer's ratio drifts with the
        // text, and a shorter cut is other text).
        cut = measured;
        catalog
            .retarget(at.endpoint, at.model, scenario, cut)
            .map_err(|err| CutError::Input(err.into()))?;
    }
    // Keep the closest cut, not merely the last.
    if let Some((_, _, _, closest)) = best.filter(|b| b.3 != cut) {
        catalog
            .retarget(at.endpoint, at.model, scenario, closest)
            .map_err(|err| CutError::Input(err.into()))?;
    }
    Ok(best.map(|(_, counted, pass, _)| (counted, pass)))
}

/// A check for an engine without `/tokenize` ([`wanted`] keeps those out).
fn no_tokenize() -> TokenCheck {
    TokenCheck {
        path: "/tokenize".into(),
        prompts: 0,
        client_tokens_mean: 0.0,
        server_tokens_mean: None,
        rel_diff: None,
        templated_tokens_mean: None,
        error: Some("the engine has no /tokenize".into()),
        requests: 0,
    }
}

/// The server's count of the prompts as requests carry them (templated where it renders a
/// chat), and the conversion the check measured for prompts cut to `requested` plateau
/// tokens: the server's tokens per token *asked for*, not per token of the text cut (a
/// window of whole words can come out a token or two short, which a short prompt in a
/// finer tokenizer would otherwise never make up); why not, when it failed.
fn read(check: &TokenCheck, requested: u32) -> Result<(f64, Conversion), String> {
    if let Some(e) = &check.error {
        return Err(e.clone());
    }
    let Some(text) = check.server_tokens_mean.filter(|t| *t > 0.0) else {
        return Err("no count in its answers".into());
    };
    let counted = check.templated_tokens_mean.unwrap_or(text);
    Ok((
        counted,
        Conversion {
            ratio: text / f64::from(requested.max(1)),
            template: (counted - text).max(0.0),
        },
    ))
}
