//! The run as a matrix: which series (endpoint x model), scenarios and loads it holds, and
//! each cell's summary at its coordinates. Closed-loop cells sit on the concurrency axis
//! ([`Matrix::cells`]), open-loop cells on the request-rate axis ([`Matrix::open`]). Figures
//! and tables read cells through [`Matrix`]; nothing here computes a number.

use std::collections::BTreeSet;
use std::fmt::Write;
use std::path::Path;

use plateau_model::load::Load;
use plateau_model::results::ResultsError;
use plateau_model::results::dir::{CellFiles, ResultsDir};
use plateau_model::results::summary::CellSummary;

/// One line in the figures: an endpoint (with its engine) serving a model.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Series {
    /// Endpoint name.
    pub endpoint: String,
    /// Engine name (`vllm`, `sim`, ...).
    pub engine: String,
    /// Model id.
    pub model: String,
    /// The model's request name.
    pub model_name: String,
    /// What the legend says: only the parts that differ between series.
    pub label: String,
}

/// A scenario: id and human name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Scenario {
    /// Id (`A1`).
    pub id: String,
    /// Name (`Same Short`).
    pub name: String,
}

impl Scenario {
    /// `A1 · Same Short`.
    pub fn title(&self) -> String {
        if self.name.is_empty() || self.name == self.id {
            self.id.clone()
        } else {
            format!("{} · {}", self.id, self.name)
        }
    }
}

/// A cell with its place in the matrix.
#[derive(Clone, Copy, Debug)]
pub struct Cell<'a> {
    /// Path relative to the results directory.
    pub rel: &'a str,
    /// The cell directory.
    pub dir: &'a Path,
    /// Its summary.
    pub summary: &'a CellSummary,
    /// Index into [`Matrix::series`].
    pub series: usize,
    /// Index into [`Matrix::scenarios`].
    pub scenario: usize,
    /// Its load: N (closed loop) or a request rate (open loop).
    pub load: Load,
}

/// The readable cells of a results directory: closed-loop cells ordered by series,
/// scenario, concurrency; open-loop cells by series, scenario, target rate.
#[derive(Debug)]
pub struct Matrix<'a> {
    /// Closed-loop cells in order.
    pub cells: Vec<Cell<'a>>,
    /// Open-loop cells in order.
    pub open: Vec<Cell<'a>>,
    /// Series in the run's order of endpoints and models (`run.json`), others after in the
    /// order the directory lists their cells (by path; a merged directory run by run).
    pub series: Vec<Series>,
    /// Scenarios in the run's order (`run.json`), others after, sorted.
    pub scenarios: Vec<Scenario>,
    /// Every concurrency present, ascending.
    pub concurrencies: Vec<u32>,
    /// Series of the run left out of this matrix ([`Matrix::first_series`]): figures say
    /// so in their subtitle.
    pub hidden_series: usize,
}

/// Where a cell sorts on its axis: N, or the rate.
fn position(load: &Load) -> f64 {
    match load {
        Load::Concurrency(n) => f64::from(*n),
        Load::Rate(r) => r.rps,
    }
}

impl<'a> Matrix<'a> {
    /// The matrix of the cells of `dir` whose summary could be read.
    pub fn new(dir: &'a ResultsDir) -> Matrix<'a> {
        let read: Vec<_> = dir
            .cells
            .iter()
            .filter_map(|c| c.summary.as_ref().ok().map(|s| (c, s)))
            .collect();
        let config = dir.run_info().map(|r| &r.config);
        // Listed order: a merged directory lists run by run (the baseline first), one
        // results directory by path.
        let mut keys: Vec<(&str, &str)> = Vec::new();
        for (_, s) in &read {
            let key = (s.cell.endpoint.as_str(), s.cell.model.as_str());
            if !keys.contains(&key) {
                keys.push(key);
            }
        }
        let rank = |endpoint: &str, model: &str| {
            let e = config.and_then(|c| c.endpoints.iter().position(|x| x.name == endpoint));
            let m = config.and_then(|c| c.models.iter().position(|x| x.id == model));
            (e.unwrap_or(usize::MAX), m.unwrap_or(usize::MAX))
        };
        // Stable: series `run.json` does not name keep their listed order.
        keys.sort_by_key(|&(e, m)| rank(e, m));
        let endpoints: BTreeSet<&str> = keys.iter().map(|k| k.0).collect();
        let models: BTreeSet<&str> = keys.iter().map(|k| k.1).collect();
        let series: Vec<Series> = keys
            .iter()
            .map(|&(endpoint, model)| {
                let s = read
                    .iter()
                    .map(|(_, s)| s)
                    .find(|s| s.cell.endpoint == endpoint && s.cell.model == model)
                    .map(|s| &s.cell);
                let engine = s.map(|c| c.engine.as_str()).unwrap_or_default();
                let model_name = s.map(|c| c.model_name.clone()).unwrap_or_default();
                let ep = endpoint_label(endpoint, engine);
                let label = match (endpoints.len() > 1, models.len() > 1) {
                    (_, false) => ep,
                    (false, true) => model.to_owned(),
                    (true, true) => format!("{ep} · {model}"),
                };
                Series {
                    endpoint: endpoint.to_owned(),
                    engine: engine.to_owned(),
                    model: model.to_owned(),
                    model_name,
                    label,
                }
            })
            .collect();

        let mut order: Vec<String> = dir
            .run_info()
            .map(|r| r.config.scenarios.clone())
            .unwrap_or_default();
        let mut others: Vec<&str> = read
            .iter()
            .map(|(_, s)| s.cell.scenario.as_str())
            .filter(|id| !order.iter().any(|o| o == id))
            .collect();
        others.sort_unstable();
        others.dedup();
        order.extend(others.into_iter().map(str::to_owned));
        let scenarios: Vec<Scenario> = order
            .into_iter()
            .filter_map(|id| {
                let s = read.iter().find(|(_, s)| s.cell.scenario == id)?.1;
                Some(Scenario {
                    name: s.workload.name.clone(),
                    id,
                })
            })
            .collect();

        // Repeats past the first are in the Repeats section (`repeats.json`), not on axes.
        let (mut cells, mut open): (Vec<Cell>, Vec<Cell>) = read
            .iter()
            .filter(|(_, s)| s.cell.repeat <= 1)
            .filter_map(|&(c, s)| {
                Some(Cell {
                    rel: &c.rel,
                    dir: &c.dir,
                    summary: s,
                    series: series
                        .iter()
                        .position(|x| x.endpoint == s.cell.endpoint && x.model == s.cell.model)?,
                    scenario: scenarios.iter().position(|x| x.id == s.cell.scenario)?,
                    load: s.cell.load.load()?,
                })
            })
            .partition(|c| matches!(c.load, Load::Concurrency(_)));
        for list in [&mut cells, &mut open] {
            list.sort_by(|a, b| {
                (a.series, a.scenario)
                    .cmp(&(b.series, b.scenario))
                    .then(position(&a.load).total_cmp(&position(&b.load)))
            });
        }
        let concurrencies: BTreeSet<u32> =
            cells.iter().filter_map(|c| c.load.concurrency()).collect();
        Matrix {
            cells,
            open,
            series,
            scenarios,
            concurrencies: concurrencies.into_iter().collect(),
            hidden_series: 0,
        }
    }

    /// The matrix of the first `k` series alone (their cells, the concurrencies they ran),
    /// or `None` when it has no more than `k`: what a figure draws of a run of more series
    /// than its lines can tell apart.
    pub fn first_series(&self, k: usize) -> Option<Matrix<'a>> {
        if self.series.len() <= k {
            return None;
        }
        let keep = |list: &[Cell<'a>]| list.iter().filter(|c| c.series < k).copied().collect();
        let cells: Vec<Cell<'a>> = keep(&self.cells);
        let concurrencies: BTreeSet<u32> =
            cells.iter().filter_map(|c| c.load.concurrency()).collect();
        Some(Matrix {
            cells,
            open: keep(&self.open),
            series: self.series[..k].to_vec(),
            scenarios: self.scenarios.clone(),
            concurrencies: concurrencies.into_iter().collect(),
            hidden_series: self.hidden_series + self.series.len() - k,
        })
    }

    /// Every cell, closed loop then open loop.
    pub fn all(&self) -> impl Iterator<Item = &Cell<'a>> {
        self.cells.iter().chain(&self.open)
    }

    /// The summary at (`series`, `scenario`, `concurrency`), if that cell exists.
    pub fn get(&self, series: usize, scenario: usize, concurrency: u32) -> Option<&'a CellSummary> {
        self.cells
            .iter()
            .find(|c| {
                c.series == series
                    && c.scenario == scenario
                    && c.load.concurrency() == Some(concurrency)
            })
            .map(|c| c.summary)
    }

    /// The closed-loop cells of one series in one scenario: `(N, summary)` by concurrency.
    pub fn line(&self, series: usize, scenario: usize) -> Vec<(u32, &'a CellSummary)> {
        self.cells
            .iter()
            .filter(|c| c.series == series && c.scenario == scenario)
            .filter_map(|c| Some((c.load.concurrency()?, c.summary)))
            .collect()
    }

    /// The open-loop cells of one series in one scenario: `(target req/s, summary)` by rate.
    pub fn rate_line(&self, series: usize, scenario: usize) -> Vec<(f64, &'a CellSummary)> {
        self.open
            .iter()
            .filter(|c| c.series == series && c.scenario == scenario)
            .filter_map(|c| Some((c.load.rate()?.rps, c.summary)))
            .collect()
    }

    /// The scenarios (indices into [`Matrix::scenarios`]) with open-loop cells, in order.
    pub fn open_scenarios(&self) -> Vec<usize> {
        (0..self.scenarios.len())
            .filter(|&k| self.open.iter().any(|c| c.scenario == k))
            .collect()
    }

    /// What every figure's subtitle says: the models and endpoints behind the series, in
    /// the series' order.
    pub fn subtitle(&self) -> String {
        let mut models: Vec<String> = self
            .series
            .iter()
            .map(|s| {
                if s.model_name.is_empty() || s.model_name == s.model {
                    s.model.clone()
                } else {
                    format!("{} ({})", s.model, s.model_name)
                }
            })
            .collect();
        models.dedup();
        let mut endpoints: Vec<String> = Vec::new();
        for s in &self.series {
            let label = endpoint_label(&s.endpoint, &s.engine);
            if !endpoints.contains(&label) {
                endpoints.push(label);
            }
        }
        let engine = if endpoints.len() == 1 {
            "engine"
        } else {
            "engines"
        };
        let mut out = format!(
            "model {} · {engine} {}",
            models.join(", "),
            endpoints.join(", ")
        );
        if self.hidden_series > 0 {
            let all = self.series.len() + self.hidden_series;
            let _ = write!(
                out,
                " · the first {} of {all} series (every cell is in the tables)",
                self.series.len()
            );
        }
        out
    }
}

/// How [`merge`] names the endpoints of each run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Naming {
    /// Prefix an endpoint with its run's label (`run-a/vllm`) only when another run has an
    /// endpoint of the same name.
    OnCollision,
    /// Every run is a series of its own: a run with one endpoint x model is named by its
    /// label alone, others `label/endpoint`.
    ByRun,
}

/// Several results directories read as one, without copying them: each `(label, dir)`'s
/// readable cells (first repeats only: a repeat `c8-2` would draw a second point at N = 8)
/// with endpoints renamed by `naming`, cell paths prefixed with the label, and the files that
/// could not be read kept as errors. The merged directory has no `run.json`.
pub fn merge(runs: &[(String, &ResultsDir)], naming: Naming) -> ResultsDir {
    let endpoints = |d: &ResultsDir| -> BTreeSet<(String, String)> {
        d.summaries()
            .map(|s| (s.cell.endpoint.clone(), s.cell.model.clone()))
            .collect()
    };
    let series: Vec<_> = runs.iter().map(|(_, d)| endpoints(d)).collect();
    let labelled = |label: &str, e: &ResultsError| ResultsError::Format {
        path: label.into(),
        line: None,
        message: e.to_string(),
    };
    let mut cells = Vec::new();
    for (k, (label, dir)) in runs.iter().enumerate() {
        let collides = |endpoint: &str| {
            series
                .iter()
                .enumerate()
                .any(|(j, s)| j != k && s.iter().any(|(e, _)| e == endpoint))
        };
        for c in &dir.cells {
            let summary = match &c.summary {
                Ok(s) => {
                    if s.cell.repeat > 1 {
                        continue;
                    }
                    let mut s = s.clone();
                    s.cell.endpoint = match naming {
                        Naming::ByRun if series[k].len() == 1 => label.clone(),
                        Naming::ByRun => format!("{label}/{}", s.cell.endpoint),
                        Naming::OnCollision if collides(&s.cell.endpoint) => {
                            format!("{label}/{}", s.cell.endpoint)
                        }
                        Naming::OnCollision => s.cell.endpoint,
                    };
                    Ok(s)
                }
                Err(e) => Err(labelled(label, e)),
            };
            cells.push(CellFiles {
                rel: format!("{label}/{}", c.rel),
                dir: c.dir.clone(),
                summary,
            });
        }
    }
    ResultsDir {
        root: runs.first().map(|r| r.1.root.clone()).unwrap_or_default(),
        run: None,
        cells,
        orphans: runs
            .iter()
            .flat_map(|(label, d)| d.orphans.iter().map(move |o| format!("{label}/{o}")))
            .collect(),
        skipped: runs
            .iter()
            .flat_map(|(label, d)| d.skipped.iter().map(|e| labelled(label, e)))
            .collect(),
        warnings: runs.iter().flat_map(|(_, d)| d.warnings.clone()).collect(),
    }
}

/// `vllm` when the endpoint is named after its engine, else `gpu-a (vllm)`.
fn endpoint_label(endpoint: &str, engine: &str) -> String {
    if endpoint == engine || engine.is_empty() {
        endpoint.to_owned()
    } else {
        format!("{endpoint} ({engine})")
    }
}
