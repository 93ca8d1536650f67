//! The capacity searches of a run: for every endpoint x model x scenario, probe open-loop
//! rates ([`plateau_model::capacity::Search`]) as full phased cells with their own directories
//! (`r<rate>/`), starting from the scenario's closed-loop cells where the run has them
//! (Little's law), and write `capacity.json` after every search.

use super::{Place, State, visit};
use crate::driver::DriverError;
use crate::plan::{Cell, Plan};
use plateau_model::capacity::{Search, judge, start_rate};
use plateau_model::config::CapacityConfig;
use plateau_model::results::capacity::{CAPACITY_FILE, CapacityReport};
use plateau_model::results::run_info::{CellEntry, CellState, RunInfo};
use plateau_model::results::summary::CellSummary;
use plateau_model::results::{self};

/// Runs every search; stops early (searches so far kept) on Ctrl-C.
pub(super) async fn search_all(
    at: &Place<'_, '_>,
    state: &mut State,
    info: &mut RunInfo,
    config: &CapacityConfig,
) -> Result<CapacityReport, DriverError> {
    let plan = at.plan;
    let mut report = CapacityReport {
        slo: config.slo.clone(),
        resolution: config.resolution,
        target_rps: config.target_rps,
        headroom: config.headroom,
        searches: Vec::new(),
    };
    let path = plan.output_dir.join(CAPACITY_FILE);
    for endpoint in 0..plan.endpoints.len() {
        for model in 0..plan.models.len() {
            for scenario in &plan.scenarios {
                if state.interrupted {
                    return Ok(report);
                }
                let closed: Vec<&CellSummary> = state
                    .summaries
                    .iter()
                    .filter(|s| {
                        s.cell.endpoint == plan.endpoints[endpoint].name
                            && s.cell.model == plan.models[model].id
                            && s.cell.scenario == *scenario
                            && s.cell.load.concurrency.is_some()
                    })
                    .collect();
                let (start, source) = start_rate(&closed, config);
                let mut search = Search::new(start, config);
                while let Some(rps) = search.next_rate() {
                    let cell = Cell {
                        endpoint,
                        model,
                        scenario: scenario.clone(),
                        load: plan.rate(rps),
                        repeat: 1,
                    };
                    let rel = plan.cell_label(&cell);
                    let summary = match earlier(state, &cell, plan) {
                        Some(done) => Some(done),
                        None => {
                            info.cells.push(CellEntry {
                                path: rel.clone(),
                                state: CellState::Pending,
                                reason: None,
                                redone: None,
                            });
                            let index = info.cells.len() - 1;
                            visit(at, state, info, index, &cell).await?
                        }
                    };
                    match summary {
                        Some(s) => search.record(judge(&s, rel, &config.slo)),
                        None => search.stop(),
                    }
                    if state.interrupted {
                        search.stop();
                    }
                }
                let who = [
                    plan.endpoints[endpoint].name.as_str(),
                    plan.models[model].id.as_str(),
                    scenario.as_str(),
                ];
                let answer = search.finish(who, source, config);
                tracing::info!("capacity {}", answer.answer());
                report.searches.push(answer);
                results::write_json(&path, &report)?;
            }
        }
    }
    Ok(report)
}

/// The summary of `cell` if this run already has it (a listed rate the search lands on).
fn earlier(state: &State, cell: &Cell, plan: &Plan) -> Option<CellSummary> {
    let dir = cell.load.dir_name();
    state
        .summaries
        .iter()
        .find(|s| {
            s.cell.endpoint == plan.endpoints[cell.endpoint].name
                && s.cell.model == plan.models[cell.model].id
                && s.cell.scenario == cell.scenario
                && s.cell.repeat == 1
                && s.cell.load.load().map(|l| l.dir_name()) == Some(dir.clone())
        })
        .cloned()
}
