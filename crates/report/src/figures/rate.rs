//! What the open-loop figures share: the request-rate x axis, a series' points in one
//! scenario (overloaded cells hollow with a cross, values from too few samples hollow), the
//! line through them, the legend entries, and the capacity search that belongs to a series
//! and scenario (`capacity.json`).

use std::ops::Range;

use plateau_model::load::LoadInfo;
use plateau_model::results::capacity::{CapacityReport, CapacitySearch};
use plateau_model::results::summary::CellSummary;
use plotters::element::DashedPathElement;
use plotters::prelude::*;

use super::frame::{DrawError, Swatch};
use super::marks::{self, Face, Mark, Shape};
use crate::matrix::Matrix;
use crate::quantity::Reading;
use crate::style;

/// What the rate axis says: the target rate in the unit of `m`'s open-loop cells (session
/// starts per second under `rate_unit: sessions`).
pub fn rate_desc(m: &Matrix) -> String {
    let units = LoadInfo::rate_units(m.open.iter().map(|c| &c.summary.cell.load));
    format!("target rate ({units}, open loop)")
}

/// One open-loop cell on a figure.
#[derive(Clone, Copy, Debug)]
pub struct Point {
    /// Target rate, req/s.
    pub x: f64,
    /// The value shown.
    pub y: f64,
    /// Arrivals outpaced the server (`steady.overloaded`).
    pub overloaded: bool,
    /// The value rests on too few samples (its `small_sample` flag).
    pub small: bool,
}

/// The open-loop cells of `series` in `scenario` that have a value by `read`, by rate.
pub fn points(
    m: &Matrix,
    series: usize,
    scenario: usize,
    read: impl Fn(&CellSummary) -> Option<Reading>,
) -> Vec<Point> {
    m.rate_line(series, scenario)
        .into_iter()
        .filter_map(|(x, s)| {
            let r = read(s)?;
            Some(Point {
                x,
                y: r.value,
                overloaded: s.metrics.steady.overloaded,
                small: r.small_sample,
            })
        })
        .collect()
}

/// The lines of scenario `k`: for each series, one per reading of `reads` (the second
/// and later dashed), as `(series, dashed, points)`.
pub fn lines<R>(m: &Matrix, k: usize, reads: &[R]) -> Vec<(usize, bool, Vec<Point>)>
where
    R: Fn(&CellSummary) -> Option<Reading>,
{
    (0..m.series.len())
        .flat_map(|s| {
            reads
                .iter()
                .enumerate()
                .map(move |(i, read)| (s, i > 0, points(m, s, k, read)))
        })
        .collect()
}

impl Point {
    /// How its marker is filled.
    pub fn face(&self) -> Face {
        Face::of(self.overloaded, self.small)
    }
}

/// `0..` the highest target rate of `scenario` (and `also`), with headroom.
pub fn x_range(m: &Matrix, scenario: usize, also: impl IntoIterator<Item = f64>) -> Range<f64> {
    let top = m
        .open
        .iter()
        .filter(|c| c.scenario == scenario)
        .filter_map(|c| c.load.rate().map(|r| r.rps))
        .chain(also)
        .fold(0.0, f64::max);
    super::axes::up_to(top)
}

/// The search of `capacity` for the series and scenario at these indices of `m`.
pub fn search<'c>(
    capacity: Option<&'c CapacityReport>,
    m: &Matrix,
    series: usize,
    scenario: usize,
) -> Option<&'c CapacitySearch> {
    let (se, sc) = (&m.series[series], &m.scenarios[scenario]);
    capacity?
        .searches
        .iter()
        .find(|s| s.endpoint == se.endpoint && s.model == se.model && s.scenario == sc.id)
}

/// The capacity (`max_rps`) each series found in scenario `k`: `(series, req/s)`.
pub fn capacities(capacity: Option<&CapacityReport>, m: &Matrix, k: usize) -> Vec<(usize, f64)> {
    (0..m.series.len())
        .filter_map(|s| Some((s, search(capacity, m, s, k)?.max_rps?)))
        .collect()
}

/// Whether any series of any open-loop scenario of `m` has a capacity line to draw.
pub fn any_capacity(capacity: Option<&CapacityReport>, m: &Matrix) -> bool {
    m.open_scenarios()
        .into_iter()
        .any(|k| !capacities(capacity, m, k).is_empty())
}

/// The legend entry of the capacity lines.
pub fn capacity_swatch() -> (Swatch, String) {
    (
        Swatch::Dashed(style::TEXT),
        "vertical: capacity found (max req/s within the SLO), series colour".into(),
    )
}

/// The legend entries the squares among `drawn` need: crossed (overloaded), then hollow
/// (too few samples), each only when some point has it.
pub fn faces_legend(drawn: &[Point]) -> Vec<(Swatch, String)> {
    let mut legend = Vec::new();
    if drawn.iter().any(|p| p.overloaded) {
        legend.push(overloaded_swatch());
    }
    if drawn.iter().any(|p| p.face() == Face::Hollow) {
        legend.push(marks::small_sample_swatch(Shape::Square));
    }
    legend
}

/// The legend entry of an overloaded cell.
pub fn overloaded_swatch() -> (Swatch, String) {
    (
        Swatch::Mark(Mark {
            shape: Shape::Square,
            color: style::MUTED,
            face: Face::Crossed,
        }),
        "crossed: overloaded (arrivals outpaced the server; its p99 is not meaningful)".into(),
    )
}

/// A line through `points` (already in the chart's coordinates: log10 values on a log
/// axis) in `color`, dashed or solid, with a square at each, crossed where the cell was
/// overloaded and hollow where its value rests on too few samples.
pub fn draw_points<DB: DrawingBackend>(
    chart: &mut ChartContext<'_, DB, impl CoordTranslate<From = (f64, f64)>>,
    color: RGBColor,
    dashed: bool,
    points: &[Point],
) -> Result<(), DrawError> {
    draw_marked(chart, color, dashed, points, Shape::Square)
}

/// [`draw_points`] with markers of `shape` (a circle for closed-loop cells).
pub fn draw_marked<DB: DrawingBackend>(
    chart: &mut ChartContext<'_, DB, impl CoordTranslate<From = (f64, f64)>>,
    color: RGBColor,
    dashed: bool,
    points: &[Point],
    shape: Shape,
) -> Result<(), DrawError> {
    marks::line(chart, points.iter().map(|p| (p.x, p.y)), color, dashed)?;
    for p in points {
        let mark = Mark {
            shape,
            color,
            face: p.face(),
        };
        marks::draw(chart.plotting_area(), (p.x, p.y), mark)?;
    }
    Ok(())
}

/// A dashed line from `from` to `to` (an SLO, a capacity, the diagonal).
pub fn rule<DB: DrawingBackend>(
    chart: &mut ChartContext<'_, DB, impl CoordTranslate<From = (f64, f64)>>,
    from: (f64, f64),
    to: (f64, f64),
    color: RGBColor,
) -> Result<(), DrawError> {
    chart.plotting_area().draw(&DashedPathElement::new(
        [from, to],
        8,
        6,
        color.stroke_width(2),
    ))?;
    Ok(())
}
