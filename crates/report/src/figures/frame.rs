//! The frame every figure shares: title, subtitle, one legend for all panels, the panel
//! grid, and the axis helpers (log2 concurrency axis, value ranges, mesh styling).

use std::ops::Range;

use plotters::coord::Shift;
use plotters::coord::ranged1d::{
    AsRangedCoord, DefaultFormatting, KeyPointHint, Ranged, ValueFormatter,
};
use plotters::coord::types::RangedCoordf64;
use plotters::element::DashedPathElement;
use plotters::prelude::*;

use crate::style;

/// A drawing area in pixels.
pub type Area<DB> = DrawingArea<DB, Shift>;

/// A figure that could not be drawn.
#[derive(Debug)]
pub struct DrawError(pub String);

impl<E: std::error::Error + Send + Sync> From<DrawingAreaErrorKind<E>> for DrawError {
    fn from(e: DrawingAreaErrorKind<E>) -> Self {
        DrawError(e.to_string())
    }
}

/// What a legend entry looks like.
#[derive(Clone, Copy, Debug)]
pub enum Swatch {
    /// A solid line with a dot.
    Line(RGBColor),
    /// A dashed line.
    Dashed(RGBColor),
    /// A translucent band.
    Band(RGBColor),
    /// A filled box.
    Block(RGBColor),
    /// An outlined box.
    Outline(RGBColor),
    /// A dot.
    Dot(RGBColor),
}

/// Title, subtitle and legend of a figure.
#[derive(Clone, Debug)]
pub struct Frame {
    /// Title.
    pub title: String,
    /// Subtitle (model, engines, context).
    pub subtitle: String,
    /// Legend entries, shown once for all panels.
    pub legend: Vec<(Swatch, String)>,
}

const LEFT: i32 = 24;
const HEADER_H: u32 = 84;
const ROW_H: u32 = 28;
const SWATCH_W: i32 = 30;
const GAP: i32 = 26;

impl Frame {
    /// The narrowest width that shows the title and subtitle whole.
    pub fn min_width(&self) -> u32 {
        let title = text_width(&self.title, &style::title());
        let subtitle = text_width(&self.subtitle, &style::subtitle());
        (title.max(subtitle) + 2 * LEFT).max(0) as u32
    }

    /// Height of the title, subtitle and legend at `width`.
    pub fn height(&self, width: u32) -> u32 {
        HEADER_H + self.rows(width).len() as u32 * ROW_H + 10
    }

    /// Legend entries laid out in rows that fit `width`.
    fn rows(&self, width: u32) -> Vec<Vec<usize>> {
        let mut rows: Vec<Vec<usize>> = Vec::new();
        let mut x = LEFT;
        for (i, (_, label)) in self.legend.iter().enumerate() {
            let w = SWATCH_W + 8 + text_width(label, &style::label()) + GAP;
            if rows.is_empty() || (x + w > width as i32 - LEFT && x > LEFT) {
                rows.push(Vec::new());
                x = LEFT;
            }
            if let Some(row) = rows.last_mut() {
                row.push(i);
            }
            x += w;
        }
        rows
    }

    /// Draws the frame on `root` (white background) and returns the area left below it.
    pub fn draw<DB: DrawingBackend>(&self, root: &Area<DB>) -> Result<Area<DB>, DrawError> {
        root.fill(&WHITE)?;
        let width = root.dim_in_pixel().0;
        root.draw(&Text::new(
            self.title.as_str(),
            (LEFT, 14),
            style::title().color(&style::TEXT),
        ))?;
        root.draw(&Text::new(
            self.subtitle.as_str(),
            (LEFT, 52),
            style::subtitle().color(&style::MUTED),
        ))?;
        for (r, row) in self.rows(width).iter().enumerate() {
            let y = (HEADER_H + r as u32 * ROW_H + ROW_H / 2) as i32;
            let mut x = LEFT;
            for &i in row {
                let (swatch, label) = &self.legend[i];
                draw_swatch(root, *swatch, x, y)?;
                let tx = x + SWATCH_W + 8;
                root.draw(&Text::new(
                    label.as_str(),
                    (tx, y - 9),
                    style::label().color(&style::TEXT),
                ))?;
                x = tx + text_width(label, &style::label()) + GAP;
            }
        }
        Ok(root.split_vertically(self.height(width)).1)
    }
}

fn draw_swatch<DB: DrawingBackend>(
    area: &Area<DB>,
    swatch: Swatch,
    x: i32,
    y: i32,
) -> Result<(), DrawError> {
    let line = [(x, y), (x + SWATCH_W, y)];
    match swatch {
        Swatch::Line(c) => {
            area.draw(&PathElement::new(line, c.stroke_width(3)))?;
            area.draw(&Circle::new((x + SWATCH_W / 2, y), 4, c.filled()))?;
        }
        Swatch::Dashed(c) => {
            area.draw(&DashedPathElement::new(line, 6, 4, c.stroke_width(3)))?;
        }
        Swatch::Band(c) => {
            area.draw(&Rectangle::new(
                [(x, y - 8), (x + SWATCH_W, y + 8)],
                c.mix(0.2).filled(),
            ))?;
        }
        Swatch::Block(c) => {
            area.draw(&Rectangle::new(
                [(x, y - 8), (x + SWATCH_W, y + 8)],
                c.filled(),
            ))?;
        }
        Swatch::Dot(c) => {
            area.draw(&Circle::new((x + SWATCH_W / 2, y), 5, c.filled()))?;
        }
        Swatch::Outline(c) => {
            area.draw(&Rectangle::new(
                [(x, y - 8), (x + SWATCH_W, y + 8)],
                c.stroke_width(3),
            ))?;
        }
    }
    Ok(())
}

/// Width of `text` in `font`, px (an estimate when the font cannot measure it).
pub fn text_width(text: &str, font: &FontDesc) -> i32 {
    font.box_size(text)
        .map_or(text.chars().count() as i32 * 9, |(w, _)| w as i32)
}

/// Rows and columns of a grid of `n` panels: at most 3 per row.
pub fn grid(n: usize) -> (usize, usize) {
    let cols = n.clamp(1, 3);
    (n.div_ceil(cols).max(1), cols)
}

/// Size of a figure with `frame` over `n` panels of at least `panel` px (wider when the
/// title needs it).
pub fn size(frame: &Frame, n: usize, panel: (u32, u32)) -> (u32, u32) {
    let (rows, cols) = grid(n);
    let w = (cols as u32 * panel.0).max(frame.min_width());
    (w, frame.height(w) + rows as u32 * panel.1)
}

/// The first `n` panels of the grid over `area`.
pub fn panels<DB: DrawingBackend>(area: &Area<DB>, n: usize) -> Vec<Area<DB>> {
    let (rows, cols) = grid(n);
    area.split_evenly((rows, cols))
        .into_iter()
        .take(n)
        .collect()
}

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

/// Draws the mesh of `chart` in the figures' style: axis descriptions, grid lines at the
/// ticks only, y ticks by [`style::tick`], x ticks by `x_fmt` (default [`style::tick`]).
pub fn mesh<DB, X, Y>(
    chart: &mut ChartContext<'_, DB, Cartesian2d<X, Y>>,
    x_desc: &str,
    y_desc: &str,
    x_fmt: Option<&dyn Fn(&f64) -> String>,
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
        .y_label_formatter(&tick)
        .draw()?;
    Ok(())
}

/// A linear axis with ticks (and grid lines) only at chosen positions: concurrencies on a
/// log2 axis, categories at the centres of their slots.
#[derive(Clone)]
pub struct Ticks {
    range: RangedCoordf64,
    at: Vec<f64>,
}

impl Ticks {
    /// `range` with ticks at `at`.
    pub fn new(range: Range<f64>, at: Vec<f64>) -> Ticks {
        Ticks {
            range: range.into(),
            at,
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
        if hint.weight().allow_light_points() {
            Vec::new()
        } else {
            self.at.clone()
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
