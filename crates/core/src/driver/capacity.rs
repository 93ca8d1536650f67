//! The capacity searches of a run: for every endpoint x model x scenario, probe open-loop
//! rates ([`plateau_model::capacity::Search`]) as full phased cells with their own directories
//! (`r<rate>/`) and the Measure the search derives for each, starting from the scenario's
//! closed-loop cells where the run has them (Little's law), and write `capacity.json`
//! after every search. A session scenario's closed-loop cells also give the answer in
//! concurrent sessions ([`session_capacity`]), and its open-loop cells of sessions the
//! answer in session arrivals per minute ([`session_rate_capacity`]), written beside its
//! search; under `rate_unit: sessions` the listed session rates are the answer, and no
//! request-rate search runs. A listed rate's cell stands in for a probe when its window is long
//! enough; otherwise the search probes beside it, so no cell is overwritten.

use super::{Place, State, visit};
use crate::driver::DriverError;
use crate::plan::{Cell, Plan};
use plateau_model::capacity::{Search, judge, session_capacity, session_rate_capacity, start_rate};
use plateau_model::config::CapacityConfig;
use plateau_model::config::RateUnit;
use plateau_model::results::capacity::{
    CAPACITY_FILE, CapacityReport, SessionCapacity, SessionRateCapacity,
};
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
        target_sessions: config.target_sessions,
        sessions: Vec::new(),
        session_rates: Vec::new(),
    };
    let path = plan.output_dir.join(CAPACITY_FILE);
    for endpoint in 0..plan.endpoints.len() {
        for model in 0..plan.models.len() {
            for scenario in &plan.scenarios {
                if state.interrupted {
                    return Ok(report);
                }
                let who = [
                    plan.endpoints[endpoint].name.as_str(),
                    plan.models[model].id.as_str(),
                    scenario.as_str(),
                ];
                let mine: Vec<&CellSummary> = of(&state.summaries, who).collect();
                let closed: Vec<&CellSummary> = mine
                    .iter()
                    .copied()
                    .filter(|s| s.cell.load.concurrency.is_some())
                    .collect();
                report.sessions.extend(in_sessions(who, &closed, config));
                report
                    .session_rates
                    .extend(in_session_rates(who, &mine, config));
                if plan.rate_unit == RateUnit::Sessions {
                    // Its rates are session starts: the listed ones are the answer.
                    results::write_json(&path, &report)?;
                    continue;
                }
                let (start, source) = start_rate(&closed, config);
                let mut search = Search::new(
                    start,
                    config,
                    plan.phases.measure.as_secs_f64(),
                    plan.steady.max_trend,
                );
                for s in mine.iter().filter(|s| s.cell.repeat == 1) {
                    if let Some(rps) = s.cell.load.request_rate {
                        let lifetime_s = s.metrics.e2e_ms.as_ref().map(|d| d.p50 / 1e3);
                        search.note_listed(rps, s.phases.measure_s, lifetime_s);
                    }
                }
                while let Some((rps, seconds)) = search.next_probe() {
                    let cell = Cell {
                        endpoint,
                        model,
                        scenario: scenario.clone(),
                        load: plan.rate(rps),
                        repeat: 1,
                        measure: Some(std::time::Duration::from_secs_f64(seconds)),
                    };
                    let rel = plan.cell_label(&cell);
                    let summary = match earlier(state, &cell, plan, seconds) {
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
                let answer = search.finish(who, source, config);
                tracing::info!("capacity {}", answer.answer());
                report.searches.push(answer);
                results::write_json(&path, &report)?;
            }
        }
    }
    Ok(report)
}

/// The summaries of `who` (endpoint, model, scenario) among `summaries`.
fn of<'s>(summaries: &'s [CellSummary], who: [&str; 3]) -> impl Iterator<Item = &'s CellSummary> {
    summaries.iter().filter(move |s| {
        s.cell.endpoint == who[0] && s.cell.model == who[1] && s.cell.scenario == who[2]
    })
}

/// The answer in sessions of `who` from its closed-loop cells (`closed`), logged; `None`
/// when they ran no sessions.
fn in_sessions(
    who: [&str; 3],
    closed: &[&CellSummary],
    config: &CapacityConfig,
) -> Option<SessionCapacity> {
    let dirs: Vec<(String, &CellSummary)> = closed.iter().map(|s| (s.rel_path(), *s)).collect();
    let answer = session_capacity(who, &dirs, config)?;
    tracing::info!("capacity in sessions {}", answer.answer());
    Some(answer)
}

/// The answer in session arrivals of `who` from its cells (`cells`: the open-loop cells of
/// sessions among them are judged), logged; `None` when it has none.
fn in_session_rates(
    who: [&str; 3],
    cells: &[&CellSummary],
    config: &CapacityConfig,
) -> Option<SessionRateCapacity> {
    let dirs: Vec<(String, &CellSummary)> = cells.iter().map(|s| (s.rel_path(), *s)).collect();
    let answer = session_rate_capacity(who, &dirs, config)?;
    tracing::info!("capacity in session arrivals {}", answer.answer());
    Some(answer)
}

/// The summary of `cell` if this run already has it with a Measure of at least `seconds`
/// (a listed rate the search lands on).
fn earlier(state: &State, cell: &Cell, plan: &Plan, seconds: f64) -> Option<CellSummary> {
    let dir = cell.load.dir_name();
    state
        .summaries
        .iter()
        .find(|s| {
            s.cell.endpoint == plan.endpoints[cell.endpoint].name
                && s.cell.model == plan.models[cell.model].id
                && s.cell.scenario == cell.scenario
                && s.cell.repeat == 1
                && s.phases.measure_s + 1e-6 >= seconds
                && s.cell.load.load().map(|l| l.dir_name()) == Some(dir.clone())
        })
        .cloned()
}
