//! The frame every figure shares: title, subtitle, one legend for all panels (with the
//! series' and line styles' entries most figures start it with), and the grid of panels
//! under them. Axes are in [`super::axes`].

use plotters::coord::Shift;
use plotters::element::DashedPathElement;
use plotters::prelude::*;

use super::marks::{self, Mark};
use crate::matrix::Matrix;
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
    /// A point marker ([`marks`]).
    Mark(Mark),
}

impl Swatch {
    /// A line in `color`: dashed, or solid with a dot.
    pub fn stroke(color: RGBColor, dashed: bool) -> Swatch {
        if dashed {
            Swatch::Dashed(color)
        } else {
            Swatch::Line(color)
        }
    }
}

/// One legend entry per series of `m`, in its colour ([`style::series_color`]), drawn as
/// `swatch` (a [`Swatch::Block`] where colour tells series apart, a [`Swatch::Line`] where
/// each series is one line).
pub fn series_legend(m: &Matrix, swatch: fn(RGBColor) -> Swatch) -> Vec<(Swatch, String)> {
    m.series
        .iter()
        .enumerate()
        .map(|(i, s)| (swatch(style::series_color(i)), s.label.clone()))
        .collect()
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

    /// Size of the figure over `n` panels of the usual size ([`style::PANEL_W`] x
    /// [`style::PANEL_H`]), see [`size`].
    pub fn size(&self, n: usize) -> (u32, u32) {
        size(self, n, (style::PANEL_W, style::PANEL_H))
    }

    /// Draws the frame on `root` ([`Frame::draw`]) and returns the first `n` panels of the
    /// grid below it ([`panels`]).
    pub fn panels<DB: DrawingBackend>(
        &self,
        root: &Area<DB>,
        n: usize,
    ) -> Result<Vec<Area<DB>>, DrawError> {
        Ok(panels(&self.draw(root)?, n))
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
        Swatch::Mark(mark) => marks::draw(area, (x + SWATCH_W / 2, y), mark)?,
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
