//! Which cells of two runs are the same experiment: cells grouped with their repeats, and
//! the groups of a candidate matched to the baseline's by (endpoint, model, scenario, load),
//! or by (scenario, load) when each run holds a single endpoint x model under different
//! names (vllm against sglang).

use std::collections::BTreeMap;

use plateau_model::load::Load;
use plateau_model::results::dir::{CellFiles, ResultsDir};
use plateau_model::results::summary::CellSummary;

/// One cell of a run and its repeats (repeat 1 first).
#[derive(Debug)]
pub struct Group<'a> {
    /// Endpoint name.
    pub endpoint: &'a str,
    /// Model id.
    pub model: &'a str,
    /// Scenario id.
    pub scenario: &'a str,
    /// The load (N or a rate).
    pub load: Load,
    /// `(repeat, files, summary)`, by repeat.
    pub cells: Vec<(u32, &'a CellFiles, &'a CellSummary)>,
}

impl Group<'_> {
    /// `vllm/llama-8b/A1/c8`.
    pub fn name(&self) -> String {
        format!(
            "{}/{}/{}/{}",
            self.endpoint,
            self.model,
            self.scenario,
            self.load.dir_name()
        )
    }

    /// `A1/c8`.
    pub fn place(&self) -> String {
        format!("{}/{}", self.scenario, self.load.dir_name())
    }
}

/// What the groups were matched on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MatchBy {
    /// Endpoint, model, scenario and load.
    Cell,
    /// Scenario and load: each run has one endpoint x model, named differently.
    ScenarioLoad,
}

/// Groups of a candidate paired with the baseline's.
#[derive(Debug)]
pub struct Matching<'g, 'a> {
    /// What was matched on.
    pub by: MatchBy,
    /// `(baseline, candidate)` in the baseline's order.
    pub pairs: Vec<(&'g Group<'a>, &'g Group<'a>)>,
    /// Baseline groups without a partner.
    pub only_baseline: Vec<&'g Group<'a>>,
    /// Candidate groups without a partner.
    pub only_candidate: Vec<&'g Group<'a>>,
}

/// The readable cells of `dir` grouped with their repeats, ordered by endpoint, model,
/// scenario and load.
pub fn groups(dir: &ResultsDir) -> Vec<Group<'_>> {
    let mut map: BTreeMap<(&str, &str, &str, u64, String), Group> = BTreeMap::new();
    for files in &dir.cells {
        let Ok(s) = &files.summary else { continue };
        let Some(load) = s.cell.load.load() else {
            continue;
        };
        let position = match load {
            Load::Concurrency(n) => u64::from(n),
            Load::Rate(r) => (r.rps * 1000.0).round() as u64 + (1 << 40),
        };
        let c = &s.cell;
        let key = (
            c.endpoint.as_str(),
            c.model.as_str(),
            c.scenario.as_str(),
            position,
            load.dir_name(),
        );
        map.entry(key)
            .or_insert_with(|| Group {
                endpoint: &c.endpoint,
                model: &c.model,
                scenario: &c.scenario,
                load,
                cells: Vec::new(),
            })
            .cells
            .push((s.cell.repeat, files, s));
    }
    let mut out: Vec<Group> = map.into_values().collect();
    for g in &mut out {
        g.cells.sort_by_key(|c| c.0);
    }
    out
}

/// The distinct (endpoint, model) pairs of `gs`.
fn series<'a>(gs: &[Group<'a>]) -> Vec<(&'a str, &'a str)> {
    let mut s: Vec<(&str, &str)> = gs.iter().map(|g| (g.endpoint, g.model)).collect();
    s.sort_unstable();
    s.dedup();
    s
}

/// Pairs the groups of `cand` with those of `base`.
pub fn matching<'g, 'a>(base: &'g [Group<'a>], cand: &'g [Group<'a>]) -> Matching<'g, 'a> {
    let (sb, sc) = (series(base), series(cand));
    let by = if sb.len() == 1 && sc.len() == 1 && sb != sc {
        MatchBy::ScenarioLoad
    } else {
        MatchBy::Cell
    };
    let same = |a: &Group, b: &Group| {
        a.scenario == b.scenario
            && a.load.dir_name() == b.load.dir_name()
            && (by == MatchBy::ScenarioLoad || (a.endpoint == b.endpoint && a.model == b.model))
    };
    let pairs: Vec<_> = base
        .iter()
        .filter_map(|b| Some((b, cand.iter().find(|c| same(b, c))?)))
        .collect();
    Matching {
        by,
        only_baseline: base
            .iter()
            .filter(|b| !cand.iter().any(|c| same(b, c)))
            .collect(),
        only_candidate: cand
            .iter()
            .filter(|c| !base.iter().any(|b| same(b, c)))
            .collect(),
        pairs,
    }
}
