//! The axes every figure shares: a chart on a panel in the figures' style, the mesh, the
//! log2 concurrency axis, a log10 axis, category axes and value ranges.

use std::ops::Range;

use plotters::coord::ranged1d::{
    AsRangedCoord, DefaultFormatting, KeyPointHint, Ranged, ValueFormatter,
};
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;

use super::frame::{Area, DrawError};
use crate::style;

/// A chart over `X` and `Y` axes on a drawing area.
pub type Chart<'a, DB, X, Y> = ChartContext<
    'a,
    DB,
    Cartesian2d<<X as AsRangedCoord>::CoordDescType, <Y as AsRangedCoord>::CoordDescType>,
>;

/// A chart on `panel` with a bold caption and room for tick labels and axis descriptions.
pub fn chart<'a, DB: DrawingBackend, X: AsRangedCoord, Y: AsRangedCoord>(
    panel: &'a Area<DB>,
    caption: &str,
    x: X,
    y: Y,
) -> Result<Chart<'a, DB, X, Y>, DrawError> {
    Ok(ChartBuilder::on(panel)
        .caption(caption, style::caption().color(&style::TEXT))
        .margin_left(8)
        .margin_right(22)
        .margin_top(6)
        .margin_bottom(8)
        .x_label_area_size(50)
        .y_label_area_size(72)
        .build_cartesian_2d(x, y)?)
}

/// An axis description, with ` (log scale)` after it when the axis is `log`.
pub fn log_desc(desc: &str, log: bool) -> String {
    if log {
        format!("{desc} (log scale)")
    } else {
        desc.to_owned()
    }
}

/// Draws the mesh of `chart` in the figures' style: axis descriptions, grid lines at the
/// ticks only, tick labels by `x_fmt` and `y_fmt` (default [`style::tick`]).
pub fn mesh<DB, X, Y>(
    chart: &mut ChartContext<'_, DB, Cartesian2d<X, Y>>,
    x_desc: &str,
    y_desc: &str,
    x_fmt: Option<&dyn Fn(&f64) -> String>,
    y_fmt: Option<&dyn Fn(&f64) -> String>,
) -> Result<(), DrawError>
where
    DB: DrawingBackend,
    X: Ranged<ValueType = f64> + ValueFormatter<f64>,
    Y: Ranged<ValueType = f64> + ValueFormatter<f64>,
{
    let tick = |v: &f64| style::tick(*v);
    chart
        .configure_mesh()
        .x_desc(x_desc)
        .y_desc(y_desc)
        .axis_desc_style(style::label().color(&style::TEXT))
        .label_style(style::small().color(&style::TEXT))
        .light_line_style(TRANSPARENT)
        .bold_line_style(style::GRID)
        .x_labels(10)
        .y_labels(8)
        .x_label_formatter(x_fmt.unwrap_or(&tick))
        .y_label_formatter(y_fmt.unwrap_or(&tick))
        .draw()?;
    Ok(())
}

/// A linear axis with ticks (and grid lines) at chosen positions (concurrencies on a log2
/// axis, categories at the centres of their slots, powers on a log10 axis) or plotters'
/// own round numbers ([`Ticks::linear`]).
#[derive(Clone)]
pub struct Ticks {
    range: RangedCoordf64,
    at: Option<Vec<f64>>,
}

impl Ticks {
    /// `range` with ticks at `at`.
    pub fn new(range: Range<f64>, at: Vec<f64>) -> Ticks {
        Ticks {
            range: range.into(),
            at: Some(at),
        }
    }

    /// `range` with ticks at round numbers.
    pub fn linear(range: Range<f64>) -> Ticks {
        Ticks {
            range: range.into(),
            at: None,
        }
    }

    /// `n` categories, one per unit: range `0..n`, ticks at `0.5, 1.5, ...`.
    pub fn categories(n: usize) -> Ticks {
        Ticks::new(
            0.0..n.max(1) as f64,
            (0..n).map(|i| i as f64 + 0.5).collect(),
        )
    }
}

impl Ranged for Ticks {
    type FormatOption = DefaultFormatting;
    type ValueType = f64;

    fn map(&self, value: &f64, limit: (i32, i32)) -> i32 {
        self.range.map(value, limit)
    }

    fn key_points<H: KeyPointHint>(&self, hint: H) -> Vec<f64> {
        match &self.at {
            _ if hint.weight().allow_light_points() => Vec::new(),
            Some(at) => at.clone(),
            None => self.range.key_points(hint),
        }
    }

    fn range(&self) -> Range<f64> {
        self.range.range()
    }
}

/// The log2 concurrency axis: positions are `log2(N)`, ticks at each concurrency present.
pub fn concurrency_axis(concurrencies: &[u32]) -> Ticks {
    let logs: Vec<f64> = concurrencies.iter().map(|&n| log2(n)).collect();
    let lo = logs.first().copied().unwrap_or(0.0);
    let hi = logs.last().copied().unwrap_or(0.0);
    let pad = ((hi - lo) * 0.06).max(0.35);
    Ticks::new((lo - pad)..(hi + pad), logs)
}

/// A log10 axis from `lo` to `hi` (both above 0): positions are `log10(value)`, ticks at
/// the sparsest of 1, 2, 5 / 1, 2, 3, 5 / ... x 10^k that puts at least 3 inside the range
/// and leaves no stretch without a tick wider than half the axis.
pub fn log_axis(lo: f64, hi: f64) -> Ticks {
    const SETS: [&[f64]; 4] = [
        &[1.0, 2.0, 5.0],
        &[1.0, 2.0, 3.0, 5.0],
        &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0],
        &[1.0, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0],
    ];
    let (a, b) = (lo.log10(), hi.log10());
    let ticks = |multiples: &[f64]| {
        (a.floor() as i32..=b.ceil() as i32)
            .flat_map(|k| multiples.iter().map(move |m| m * 10f64.powi(k)))
            .filter(|v| (lo..=hi).contains(v))
            .map(f64::log10)
            .collect::<Vec<_>>()
    };
    let covers = |t: &Vec<f64>| {
        let edges = std::iter::once(a).chain(t.iter().copied()).chain([b]);
        let widest = edges
            .clone()
            .zip(edges.skip(1))
            .map(|(p, q)| q - p)
            .fold(0.0, f64::max);
        t.len() >= 3 && widest <= (b - a) / 2.0
    };
    let at = SETS
        .iter()
        .map(|set| ticks(set))
        .find(covers)
        .unwrap_or_else(|| ticks(SETS[3]));
    Ticks::new(a..b, at)
}

/// The value at position `x` of a [`log_axis`] (the tick label).
pub fn log_label(x: &f64) -> String {
    let v = 10f64.powf(*x);
    style::tick((v * 1000.0).round() / 1000.0)
}

/// `log2(n)`: where concurrency `n` sits on the concurrency axis.
pub fn log2(n: u32) -> f64 {
    f64::from(n.max(1)).log2()
}

/// The concurrency at axis position `x` (the tick label).
pub fn concurrency_label(x: &f64) -> String {
    format!("{}", 2f64.powf(*x).round())
}

/// What the concurrency axis says.
pub const CONCURRENCY_DESC: &str = "concurrency N (requests in flight, log2 scale)";

/// `0..max` with 10% headroom (`0..1` when there is nothing above 0).
pub fn up_to(max: f64) -> Range<f64> {
    if max.is_finite() && max > 0.0 {
        0.0..max * 1.1
    } else {
        0.0..1.0
    }
}
