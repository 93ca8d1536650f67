//! The comparison's figures: the runs merged into one matrix, each run one series
//! ([`crate::matrix::merge`] with [`Naming::ByRun`]), drawn with the report's own figures:
//! server throughput, TTFT and TPOT vs N per scenario, and for open-loop cells TTFT and TPOT
//! vs the offered rate.

use std::path::Path;

use plateau_model::results::dir::ResultsDir;

use crate::error::ReportError;
use crate::figures::{self, Plot, Rendered, latency_vs_rate, scaling};
use crate::matrix::{self, Matrix, Naming};

/// The scaling figures compared: server throughput, TTFT and TPOT vs concurrency.
const SCALING: [&str; 3] = [
    "server_throughput_vs_concurrency",
    "ttft_vs_concurrency",
    "tpot_vs_concurrency",
];

/// Draws the figures of `runs` (label, directory; baseline first) into `dir`.
pub fn draw(runs: &[(String, &ResultsDir)], dir: &Path) -> Result<Vec<Rendered>, ReportError> {
    let merged = matrix::merge(runs, Naming::ByRun);
    let m = Matrix::new(&merged);
    let mut plots: Vec<Plot> = Vec::new();
    if !m.cells.is_empty() {
        plots.extend(
            scaling::SPECS
                .iter()
                .filter(|s| SCALING.contains(&s.name))
                .map(|spec| Plot::Scaling(scaling::Scaling { m: &m, spec })),
        );
    }
    if !m.open.is_empty() {
        plots.extend(latency_vs_rate::SPECS.iter().map(|spec| {
            Plot::LatencyVsRate(latency_vs_rate::LatencyVsRate {
                m: &m,
                capacity: None,
                spec,
            })
        }));
    }
    plots.iter().map(|p| figures::save(p, dir)).collect()
}
