//! The server's own view of a cell: its Prometheus `/metrics` scraped a few times a second
//! on the cell's clock, beside the requests (core's `scrape::poll` runs the scraper, never
//! disturbing the cell: its own connection, a timeout, failures only counted). [`prom`]
//! parses the text; [`engines`] maps each engine's names to the
//! quantities plateau summarizes; [`summary`] turns the scrapes into per-phase
//! [`ServerMetrics`] for `summary.json`. The raw scrapes are kept in the cell directory
//! ([`SERVER_METRICS_FILE`]), one [`Scrape`] per line.

pub mod engines;
pub mod prom;
pub mod summary;

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

pub use crate::results::dir::SERVER_METRICS_FILE;
use crate::results::summary::PhaseBounds;
use crate::results::{self, ResultsError};
pub use prom::info_labels;
pub use summary::ServerMetrics;

/// One scrape: when it was sent (us since the cell's start) and the mapped series' values,
/// keyed by series (`name{label="v",...}`), histogram buckets included.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Scrape {
    /// When the scrape was sent, us since the cell's start.
    pub t_us: u64,
    /// Every mapped series' value.
    pub values: BTreeMap<String, f64>,
}

/// Writes `scrapes` to `path` as gzipped JSON lines, atomically.
pub fn write(path: &Path, scrapes: &[Scrape]) -> Result<(), ResultsError> {
    results::write_jsonl_gz(path, scrapes)
}

/// Reads a cell's scrapes back.
pub fn read(path: &Path) -> Result<Vec<Scrape>, ResultsError> {
    results::read_jsonl_gz(path)
}

/// Summarizes a cell's scrapes (and the count of scrapes that failed) per phase with
/// `table` (see [`summary`]).
pub fn summarize(
    scrapes: &[Scrape],
    failed: u64,
    table: &engines::Table,
    bounds: &PhaseBounds,
    interval_ms: u64,
) -> ServerMetrics {
    let [fill, stabilize, measure, drain] = summary::spans(bounds);
    let phase = |span| summary::phase(scrapes, table, span);
    let measure = phase(measure);
    ServerMetrics {
        engine: table.name.into(),
        file: SERVER_METRICS_FILE.into(),
        interval_ms,
        scrapes: scrapes.len() as u64,
        failed_scrapes: failed,
        absent: table.absent().into_iter().map(String::from).collect(),
        saturated: summary::saturated(&measure),
        fill: phase(fill),
        stabilize: phase(stabilize),
        measure,
        drain: phase(drain),
    }
}

#[cfg(test)]
mod tests;
