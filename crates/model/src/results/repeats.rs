//! `repeats.json`: with `repeats: K`, how much each headline number moved from one run of
//! a cell to the next. Per cell (endpoint x model x scenario x load): the value of every
//! complete run, their mean, sample standard deviation, coefficient of variation, and a 95%
//! confidence interval of the mean (Student's t with K - 1 degrees of freedom: the runs are
//! taken as independent draws of the same setup). Runs that did not complete are left out
//! and named. Its JSON Schema is checked in at `schemas/repeats.schema.json`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use statrs::distribution::{ContinuousCDF, StudentsT};

use crate::load::LoadInfo;
use crate::quantity::HEADLINES;
use crate::results::summary::{CellStatus, CellSummary};

/// File name, at the top of the results directory.
pub const REPEATS_FILE: &str = "repeats.json";

/// Every repeated cell of a run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RepeatsReport {
    /// Runs planned per cell (config `repeats`).
    pub repeats: u32,
    /// One entry per cell, in run order.
    pub cells: Vec<RepeatedCell>,
}

/// The runs of one cell.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RepeatedCell {
    /// Endpoint name.
    pub endpoint: String,
    /// Model id.
    pub model: String,
    /// Scenario id.
    pub scenario: String,
    /// Its load.
    #[serde(flatten)]
    pub load: LoadInfo,
    /// The repeats counted (complete), from 1.
    pub runs: Vec<u32>,
    /// Repeats left out because they did not complete (failed, interrupted).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub left_out: Vec<u32>,
    /// The spread of each headline number present in at least one counted run.
    pub metrics: Vec<Spread>,
}

/// One headline number across runs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Spread {
    /// Its path in `summary.json` (`ttft_ms.p50`).
    pub metric: String,
    /// Unit, empty for fractions.
    pub unit: String,
    /// The value of each counted run, in repeat order.
    pub values: Vec<f64>,
    /// Mean of the values.
    pub mean: f64,
    /// Sample standard deviation (n - 1); absent with one value.
    pub std: Option<f64>,
    /// `std / |mean|`; absent with one value or a mean of 0.
    pub cv: Option<f64>,
    /// 95% confidence interval of the mean, `mean ± t(0.975, n-1) std / sqrt(n)`; absent
    /// with one value.
    pub ci95: Option<[f64; 2]>,
}

impl Spread {
    /// The spread of `values` (at least one, all finite).
    pub fn of(metric: &str, unit: &str, values: Vec<f64>) -> Option<Spread> {
        if values.is_empty() || values.iter().any(|v| !v.is_finite()) {
            return None;
        }
        let n = values.len() as f64;
        let mean = values.iter().sum::<f64>() / n;
        let std = (values.len() > 1).then(|| {
            let ss: f64 = values.iter().map(|v| (v - mean).powi(2)).sum();
            (ss / (n - 1.0)).sqrt()
        });
        let cv = std.filter(|_| mean != 0.0).map(|s| s / mean.abs());
        let ci95 = std.and_then(|s| {
            let t = StudentsT::new(0.0, 1.0, n - 1.0).ok()?.inverse_cdf(0.975);
            let half = t * s / n.sqrt();
            Some([mean - half, mean + half])
        });
        Some(Spread {
            metric: metric.into(),
            unit: unit.into(),
            values,
            mean,
            std,
            cv,
            ci95,
        })
    }
}

/// Groups `summaries` (a run's cells, in run order) by cell and computes each headline
/// number's spread across the complete runs.
pub fn aggregate(summaries: &[CellSummary], repeats: u32) -> RepeatsReport {
    let mut groups: Vec<Vec<&CellSummary>> = Vec::new();
    for s in summaries {
        match groups.iter_mut().find(|g| same_cell(g[0], s)) {
            Some(group) => group.push(s),
            None => groups.push(vec![s]),
        }
    }
    let cells = groups
        .into_iter()
        .map(|mut group| {
            group.sort_by_key(|s| s.cell.repeat);
            let (counted, left): (Vec<&CellSummary>, Vec<&CellSummary>) =
                group.iter().partition(|s| s.status == CellStatus::Complete);
            let metrics = HEADLINES
                .iter()
                .filter_map(|h| {
                    let values = counted.iter().filter_map(|s| h.value(s)).collect();
                    Spread::of(h.field, h.unit, values)
                })
                .collect();
            let first = &group[0].cell;
            RepeatedCell {
                endpoint: first.endpoint.clone(),
                model: first.model.clone(),
                scenario: first.scenario.clone(),
                load: first.load,
                runs: counted.iter().map(|s| s.cell.repeat).collect(),
                left_out: left.iter().map(|s| s.cell.repeat).collect(),
                metrics,
            }
        })
        .collect();
    RepeatsReport { repeats, cells }
}

/// Whether `a` and `b` are runs of the same cell (everything but the repeat).
fn same_cell(a: &CellSummary, b: &CellSummary) -> bool {
    let (a, b) = (&a.cell, &b.cell);
    a.endpoint == b.endpoint && a.model == b.model && a.scenario == b.scenario && a.load == b.load
}

#[cfg(test)]
mod tests;
