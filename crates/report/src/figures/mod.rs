//! Figures (SPEC section 8), each written as PNG and SVG: every figure is a [`Plot`], drawn
//! by the same code on both backends ([`save`]).
//!
//! - [`scaling`]: server and user throughput, TTFT, TPOT and jitter vs concurrency, one panel
//!   per scenario, one line per series, confidence intervals as bands;
//! - [`heatmap`]: scenario x concurrency grids of one quantity, one panel per series;
//! - [`compare`]: every series side by side at one concurrency;
//! - [`pareto`]: server throughput against a p99 latency, one panel per scenario (and the
//!   closed- and open-loop cells together);
//! - [`latency_vs_rate`]: TTFT and TPOT vs the open loop's request rate, with the SLO and
//!   the capacity found;
//! - [`requests_vs_rate`]: achieved vs offered request rate, and goodput, vs the rate;
//! - [`timeline`]: one cell over its whole life, phases shaded, failed requests marked;
//! - [`cdf`]: TTFT and ITL distributions, one line per load, from the cells' requests
//!   ([`requests`]);
//! - [`prompt`]: TTFT against prompt length in multi-turn scenarios;
//! - [`ttft_parts`]: per scenario, TTFT taken apart by load (the server's queue, prefill,
//!   the rest of its TTFT, the gap) at p50 and p99, for cells with the server's timing;
//! - [`energy`]: per scenario, output tokens per joule vs the load, for cells with GPU
//!   energy.
//! - [`sessions`]: per session scenario, TTFT and the prefix cache (observed vs ideal) by
//!   turn, one line per N; [`session_rate`]: sessions per minute vs N.
//!
//! The open-loop figures are drawn only when the run has open-loop cells; the server's
//! side (`ttft_parts`, `energy`) only when some cell has the server's timing or GPU energy. [`frame`],
//! [`axes`], [`marks`], [`rate`] and [`steps`] hold what figures share: title, subtitle,
//! legend, panel grid, axes, point markers, the rate axis, levels drawn as steps.

pub mod axes;
pub mod cdf;
pub mod compare;
pub mod energy;
pub mod frame;
pub mod heatmap;
pub mod latency_vs_rate;
pub mod marks;
pub mod pareto;
pub mod prompt;
pub mod rate;
pub mod requests;
pub mod requests_vs_rate;
pub mod scaling;
pub mod session_rate;
pub mod sessions;
pub mod steps;
pub mod timeline;
pub mod ttft_parts;

use std::path::{Path, PathBuf};

use plateau_model::results::capacity::CapacityReport;
use plotters::prelude::*;

pub use compare::comparison_concurrency;
pub use timeline::Timeline;

use crate::error::ReportError;
use crate::matrix::{Cell, Matrix};
use frame::{Area, DrawError};

/// One figure, ready to draw.
pub enum Plot<'a> {
    /// A quantity (or two) vs concurrency.
    Scaling(scaling::Scaling<'a>),
    /// Scenario x concurrency grid.
    Heatmap(heatmap::Heatmap<'a>),
    /// Series side by side at one concurrency.
    Compare(compare::Compare<'a>),
    /// Throughput against p99 latency.
    Pareto(pareto::Pareto<'a>),
    /// A latency vs request rate.
    LatencyVsRate(latency_vs_rate::LatencyVsRate<'a>),
    /// Request rates vs the target rate.
    RequestsVsRate(requests_vs_rate::RequestsVsRate<'a>),
    /// One cell over time.
    Timeline(Timeline<'a>),
    /// A latency distribution per load.
    Cdf(cdf::CdfPlot<'a>),
    /// TTFT against prompt length.
    Prompt(prompt::PromptTtft<'a>),
    /// TTFT taken apart by load, one scenario.
    TtftParts(ttft_parts::TtftParts<'a>),
    /// Tokens per joule vs load, one scenario.
    Energy(energy::Energy<'a>),
    /// TTFT or the prefix cache by turn, in a session scenario.
    SessionTurns(sessions::SessionTurns<'a>),
    /// Sessions per minute vs N, in a session scenario.
    SessionRate(session_rate::SessionRate<'a>),
}

impl Plot<'_> {
    /// File name without extension.
    pub fn name(&self) -> String {
        match self {
            Plot::Scaling(p) => p.spec.name.into(),
            Plot::Heatmap(p) => p.name.into(),
            Plot::Compare(p) => p.name(),
            Plot::Pareto(p) => p.name.into(),
            Plot::LatencyVsRate(p) => p.spec.name.into(),
            Plot::RequestsVsRate(p) => p.spec.name.into(),
            Plot::Timeline(p) => p.name(),
            Plot::Cdf(p) => p.spec.name.into(),
            Plot::Prompt(_) => prompt::PromptTtft::NAME.into(),
            Plot::TtftParts(p) => p.name(),
            Plot::Energy(p) => p.name(),
            Plot::SessionTurns(p) => p.name(),
            Plot::SessionRate(p) => p.name(),
        }
    }

    /// The figure's title.
    pub fn title(&self) -> String {
        match self {
            Plot::Scaling(p) => p.spec.title.into(),
            Plot::Heatmap(p) => p.title.into(),
            Plot::Compare(p) => p.title(),
            Plot::Pareto(p) => p.title.into(),
            Plot::LatencyVsRate(p) => p.spec.title.into(),
            Plot::RequestsVsRate(p) => p.title(),
            Plot::Timeline(p) => p.title(),
            Plot::Cdf(p) => p.spec.title.into(),
            Plot::Prompt(_) => prompt::PromptTtft::TITLE.into(),
            Plot::TtftParts(p) => p.title(),
            Plot::Energy(p) => p.title(),
            Plot::SessionTurns(p) => p.title(),
            Plot::SessionRate(p) => p.title(),
        }
    }

    /// The scenario a timeline belongs to (`A1 · Same Short`); `None` for the others.
    pub fn scenario(&self) -> Option<String> {
        match self {
            Plot::Timeline(p) => Some(
                crate::matrix::Scenario {
                    id: p.cell.cell.scenario.clone(),
                    name: p.cell.workload.name.clone(),
                }
                .title(),
            ),
            _ => None,
        }
    }

    /// Whether report.html shows it among the key figures, right under the summary table:
    /// throughput, TTFT and TPOT against the load, the heatmaps and the Pareto view against
    /// TTFT p99 (the others follow them).
    pub fn key(&self) -> bool {
        match self {
            Plot::Scaling(p) => p.spec.key,
            Plot::Heatmap(_) | Plot::LatencyVsRate(_) => true,
            Plot::Pareto(p) => p.key,
            Plot::Compare(_)
            | Plot::RequestsVsRate(_)
            | Plot::Timeline(_)
            | Plot::Cdf(_)
            | Plot::Prompt(_)
            | Plot::TtftParts(_)
            | Plot::Energy(_)
            | Plot::SessionTurns(_)
            | Plot::SessionRate(_) => false,
        }
    }

    fn size(&self) -> (u32, u32) {
        match self {
            Plot::Scaling(p) => p.size(),
            Plot::Heatmap(p) => p.size(),
            Plot::Compare(p) => p.size(),
            Plot::Pareto(p) => p.size(),
            Plot::LatencyVsRate(p) => p.size(),
            Plot::RequestsVsRate(p) => p.size(),
            Plot::Timeline(p) => p.size(),
            Plot::Cdf(p) => p.size(),
            Plot::Prompt(p) => p.size(),
            Plot::TtftParts(p) => p.size(),
            Plot::Energy(p) => p.size(),
            Plot::SessionTurns(p) => p.size(),
            Plot::SessionRate(p) => p.size(),
        }
    }

    fn draw<DB: DrawingBackend>(&self, root: &Area<DB>) -> Result<(), DrawError> {
        match self {
            Plot::Scaling(p) => p.draw(root),
            Plot::Heatmap(p) => p.draw(root),
            Plot::Compare(p) => p.draw(root),
            Plot::Pareto(p) => p.draw(root),
            Plot::LatencyVsRate(p) => p.draw(root),
            Plot::RequestsVsRate(p) => p.draw(root),
            Plot::Timeline(p) => p.draw(root),
            Plot::Cdf(p) => p.draw(root),
            Plot::Prompt(p) => p.draw(root),
            Plot::TtftParts(p) => p.draw(root),
            Plot::Energy(p) => p.draw(root),
            Plot::SessionTurns(p) => p.draw(root),
            Plot::SessionRate(p) => p.draw(root),
        }
    }
}

/// A figure as written.
#[derive(Clone, Debug)]
pub struct Rendered {
    /// File name without extension.
    pub name: String,
    /// Title.
    pub title: String,
    /// The scenario of a timeline ([`Plot::scenario`]).
    pub scenario: Option<String>,
    /// Width and height, px.
    pub size: (u32, u32),
    /// The PNG and SVG files.
    pub files: [PathBuf; 2],
    /// The SVG's text (report.html embeds it: a fifth of the PNG's size, sharp at any zoom).
    pub svg: String,
    /// One of the key figures ([`Plot::key`]).
    pub key: bool,
}

/// Draws `plot` into `dir` as `<name>.png` and `<name>.svg`.
pub fn save(plot: &Plot, dir: &Path) -> Result<Rendered, ReportError> {
    let name = plot.name();
    let size = plot.size();
    let png = dir.join(format!("{name}.png"));
    let svg = dir.join(format!("{name}.svg"));
    let failed = |path: &Path| {
        let path = path.to_owned();
        move |e: DrawError| ReportError::Draw { path, message: e.0 }
    };
    {
        let root = BitMapBackend::new(&png, size).into_drawing_area();
        plot.draw(&root).map_err(failed(&png))?;
        root.present().map_err(|e| failed(&png)(e.into()))?;
    }
    let mut text = String::new();
    {
        let root = SVGBackend::with_string(&mut text, size).into_drawing_area();
        plot.draw(&root).map_err(failed(&svg))?;
        root.present().map_err(|e| failed(&svg)(e.into()))?;
    }
    std::fs::write(&svg, &text).map_err(|source| ReportError::Write {
        path: svg.clone(),
        source,
    })?;
    Ok(Rendered {
        title: plot.title(),
        scenario: plot.scenario(),
        key: plot.key(),
        name,
        size,
        files: [png, svg],
        svg: text,
    })
}

/// The figures over the whole matrix (all but the timelines), in the report's order: the
/// closed-loop figures when there are closed-loop cells (with each session scenario's
/// figures when its cells ran sessions, [`session_figures`]), the engine comparison at
/// `compare_at` (see [`comparison_concurrency`]), then the open-loop figures when there are
/// open-loop cells (SLO and capacity lines from `capacity`; goodput only when some cell has
/// one), then the server's side per scenario: TTFT taken apart where cells have the
/// server's timing, tokens per joule where they have GPU energy.
pub fn overview<'a>(
    m: &'a Matrix<'a>,
    compare_at: Option<u32>,
    capacity: Option<&'a CapacityReport>,
) -> Vec<Plot<'a>> {
    let mut plots: Vec<Plot> = Vec::new();
    if !m.cells.is_empty() {
        plots.extend(
            scaling::SPECS
                .iter()
                .map(|spec| Plot::Scaling(scaling::Scaling { m, spec })),
        );
        plots.extend(heatmap::all(m).into_iter().map(Plot::Heatmap));
    }
    if let Some(at) = compare_at {
        plots.push(Plot::Compare(compare::Compare { m, at }));
    }
    if !m.cells.is_empty() {
        plots.extend(pareto::all(m).into_iter().map(Plot::Pareto));
        plots.extend(session_figures(m));
    }
    if !m.open.is_empty() {
        open_loop(m, capacity, &mut plots);
    }
    plots.extend(ttft_parts::all(m).into_iter().map(Plot::TtftParts));
    plots.extend(energy::all(m).into_iter().map(Plot::Energy));
    plots
}

/// The open-loop figures, after the others.
fn open_loop<'a>(
    m: &'a Matrix<'a>,
    capacity: Option<&'a CapacityReport>,
    plots: &mut Vec<Plot<'a>>,
) {
    plots.extend(
        latency_vs_rate::SPECS
            .iter()
            .map(|spec| Plot::LatencyVsRate(latency_vs_rate::LatencyVsRate { m, capacity, spec })),
    );
    let rates = |spec| Plot::RequestsVsRate(requests_vs_rate::RequestsVsRate { m, capacity, spec });
    plots.push(rates(&requests_vs_rate::ACHIEVED));
    if m.open.iter().any(|c| c.summary.metrics.goodput.is_some()) {
        plots.push(rates(&requests_vs_rate::GOODPUT));
    }
    plots.extend(pareto::with_open(m).map(Plot::Pareto));
}

/// The figures drawn from the cells' requests (`requests`: the cells whose records were
/// read): the TTFT and ITL distributions, and TTFT against prompt length when a scenario is
/// multi-turn; a figure with nothing to draw is left out.
pub fn distributions<'a>(
    m: &'a Matrix<'a>,
    requests: &'a [(Cell<'a>, requests::CellRequests)],
) -> Vec<Plot<'a>> {
    let mut plots: Vec<Plot> = cdf::SPECS
        .iter()
        .map(|spec| cdf::CdfPlot { m, requests, spec })
        .filter(|p| !p.is_empty())
        .map(Plot::Cdf)
        .collect();
    let prompt = prompt::PromptTtft { m, requests };
    if !prompt.is_empty() {
        plots.push(Plot::Prompt(prompt));
    }
    plots
}

/// The session figures of each scenario whose closed-loop cells ran sessions: TTFT by turn,
/// the prefix cache by turn, sessions per minute vs N; each only when it has something to
/// draw.
pub fn session_figures<'a>(m: &'a Matrix<'a>) -> Vec<Plot<'a>> {
    let mut plots = Vec::new();
    for scenario in 0..m.scenarios.len() {
        for kind in [sessions::Kind::Ttft, sessions::Kind::Cache] {
            let p = sessions::SessionTurns { m, scenario, kind };
            if !p.is_empty() {
                plots.push(Plot::SessionTurns(p));
            }
        }
        let p = session_rate::SessionRate { m, scenario };
        if !p.is_empty() {
            plots.push(Plot::SessionRate(p));
        }
    }
    plots
}
