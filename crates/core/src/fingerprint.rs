//! A cell's fingerprint, built from the plan: the types, the hash and the named differences
//! are the result model's ([`plateau_model::results::fingerprint`]); this builds the
//! [`Inputs`] of a planned cell.

use serde_json::Value;

pub use plateau_model::results::fingerprint::*;

use crate::plan::{Cell, Endpoint, LoadInfo, Plan, Target};
use crate::workload::WorkloadInfo;
use plateau_model::phase::DrainLimit;

/// The fingerprint of `cell` of `plan` run with `workload` and the client tokenizer
/// named `tokenizer`.
pub fn of(plan: &Plan, cell: &Cell, mut workload: WorkloadInfo, tokenizer: String) -> Fingerprint {
    let max_tokens = plan.request.fixed_for(&workload);
    if max_tokens.is_some() {
        // A fixed length is `max_tokens`, as in fingerprints from before distributions.
        workload.output_tokens = None;
    }
    let endpoint = &plan.endpoints[cell.endpoint];
    let mut header_names: Vec<String> = endpoint
        .headers
        .iter()
        .map(|(name, _)| name.as_str().to_ascii_lowercase())
        .collect();
    header_names.sort();
    let inputs = Inputs {
        url: endpoint_url(endpoint),
        sim: match endpoint.target {
            Target::InProcessSim => Some(
                endpoint
                    .sim
                    .clone()
                    .unwrap_or_else(|| Value::String("default".into())),
            ),
            Target::Url(_) => None,
        },
        engine: endpoint.engine,
        model: plan.models[cell.model].name.clone(),
        scenario: cell.scenario.clone(),
        load: LoadInfo::from(&cell.load),
        fill_s: plan.phases.fill.as_secs_f64(),
        stabilize_s: plan.phases.stabilize.as_secs_f64(),
        measure_s: cell.measure.unwrap_or(plan.phases.measure).as_secs_f64(),
        drain: match plan.phases.drain {
            DrainLimit::Configured(d) => format!("configured {} s", d.as_secs_f64()),
            DrainLimit::Derived { ceiling } => {
                format!("derived, at most {} s", ceiling.as_secs_f64())
            }
        },
        request_timeout_s: plan.request.timeout.as_secs_f64(),
        max_tokens,
        ignore_eos: endpoint.ignore_eos,
        stream: plan.request.stream,
        api: endpoint.api,
        extra_body: endpoint.extra_body.clone(),
        header_names,
        tokenizer,
        seed: plan.seed,
        workload,
        scenario_options: plan
            .redacted_config
            .scenario_options
            .get(&cell.scenario)
            .cloned(),
        slo: plan.slo.clone(),
        steady: plan.steady.clone(),
        adaptive_phases: plan.phases.adaptive,
    };
    Fingerprint {
        hash: hash_of(&serde_json::to_value(&inputs).unwrap_or(Value::Null)),
        inputs,
    }
}

/// An endpoint's base URL as the results show it: `sim://` for the in-process simulator.
pub fn endpoint_url(endpoint: &Endpoint) -> String {
    match &endpoint.target {
        Target::InProcessSim => "sim://".into(),
        Target::Url(u) => u.as_str().into(),
    }
}

#[cfg(test)]
mod tests;
