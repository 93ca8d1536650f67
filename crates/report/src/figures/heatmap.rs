//! Scenario x concurrency heatmaps of one quantity (server throughput, TTFT p99): one panel
//! per series, the value written in each cell, one colour scale over the whole figure
//! ([`ColourScale`]: logarithmic where the values span more than [`LOG_COLOUR_SPAN`], so one
//! slow cell does not paint every other one the same colour), and a red outline on cells
//! whose measure window was not steady. The legend names the scale and lists the outline
//! and the empty cell only when the figure has one.

use plateau_model::results::summary::CellSummary;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::axes;
use super::frame::{self, Area, DrawError, Frame, Swatch};
use crate::matrix::Matrix;
use crate::quantity::{self as q, Quantity};
use crate::style;

/// A heatmap figure.
pub struct Heatmap<'a> {
    /// The cells.
    pub m: &'a Matrix<'a>,
    /// File name without extension.
    pub name: &'static str,
    /// Title.
    pub title: &'static str,
    /// The quantity coloured.
    pub q: Quantity,
}

/// The heatmaps of a matrix: server throughput and TTFT p99.
pub fn all<'a>(m: &'a Matrix<'a>) -> Vec<Heatmap<'a>> {
    vec![
        Heatmap {
            m,
            name: "heatmap_server_throughput",
            title: "Server throughput (output tokens/s) by scenario and concurrency",
            q: q::SERVER_TPS,
        },
        Heatmap {
            m,
            name: "heatmap_ttft_p99",
            title: "TTFT p99 (ms) by scenario and concurrency",
            q: q::TTFT_P99,
        },
    ]
}

/// Values whose highest is more than this many times their lowest (both above 0) are
/// coloured on a log scale: on a linear one, a 1,347 ms cell leaves every 20-100 ms cell
/// the same dark colour.
pub const LOG_COLOUR_SPAN: f64 = 10.0;

/// How a heatmap turns a value into a colour position in `[0, 1]`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ColourScale {
    /// Evenly from `lo` to `hi`.
    Linear {
        /// The lowest value (position 0).
        lo: f64,
        /// The highest value (position 1).
        hi: f64,
    },
    /// By `log(value)` from `lo` to `hi` (both above 0).
    Log {
        /// The lowest value (position 0).
        lo: f64,
        /// The highest value (position 1).
        hi: f64,
    },
}

impl ColourScale {
    /// The scale of values from `lo` to `hi`: [`ColourScale::Log`] when both are above 0 and
    /// `hi / lo` is more than [`LOG_COLOUR_SPAN`], else [`ColourScale::Linear`].
    pub fn of(lo: f64, hi: f64) -> ColourScale {
        if lo > 0.0 && hi / lo > LOG_COLOUR_SPAN {
            ColourScale::Log { lo, hi }
        } else {
            ColourScale::Linear { lo, hi }
        }
    }

    /// Where `v` sits, `[0, 1]` (clamped); 0.5 when every value is the same.
    pub fn position(&self, v: f64) -> f64 {
        let (v, lo, hi) = match *self {
            ColourScale::Linear { lo, hi } => (v, lo, hi),
            ColourScale::Log { lo, hi } => (v.max(lo).ln(), lo.ln(), hi.ln()),
        };
        if hi > lo {
            ((v - lo) / (hi - lo)).clamp(0.0, 1.0)
        } else {
            0.5
        }
    }

    /// The value at position 0.5: the arithmetic or the geometric middle.
    pub fn middle(&self) -> f64 {
        match *self {
            ColourScale::Linear { lo, hi } => (lo + hi) / 2.0,
            ColourScale::Log { lo, hi } => (lo * hi).sqrt(),
        }
    }

    /// The legend's words for the middle swatch's scale.
    fn describe(&self) -> String {
        match *self {
            ColourScale::Linear { .. } => "linear colour scale".into(),
            ColourScale::Log { lo, hi } => format!(
                "log colour scale: the values span {}×",
                style::number(hi / lo)
            ),
        }
    }
}

const CELL_W: u32 = 96;
const CELL_H: u32 = 56;

impl Heatmap<'_> {
    /// The colour scale over every value of the figure.
    pub fn scale(&self) -> ColourScale {
        let values = self
            .m
            .cells
            .iter()
            .filter_map(|c| (self.q.read)(c.summary).map(|r| r.value));
        let (lo, hi) = values.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
            (lo.min(v), hi.max(v))
        });
        ColourScale::of(lo, hi)
    }

    /// Every square of the grid: series, scenario, concurrency and the cell there.
    fn squares(&self) -> impl Iterator<Item = (usize, usize, u32, Option<&CellSummary>)> {
        (0..self.m.series.len()).flat_map(move |s| {
            (0..self.m.scenarios.len()).flat_map(move |k| {
                self.m
                    .concurrencies
                    .iter()
                    .map(move |&n| (s, k, n, self.m.get(s, k, n)))
            })
        })
    }

    fn frame(&self) -> Frame {
        let scale = self.scale();
        let (lo, hi) = match scale {
            ColourScale::Linear { lo, hi } | ColourScale::Log { lo, hi } => (lo, hi),
        };
        let mut legend = vec![
            (
                Swatch::Block(style::scale(0.0)),
                format!("lowest: {}", style::number(lo)),
            ),
            (
                Swatch::Block(style::scale(0.5)),
                format!(
                    "middle: {} ({})",
                    style::number(scale.middle()),
                    scale.describe()
                ),
            ),
            (
                Swatch::Block(style::scale(1.0)),
                format!("highest: {}", style::number(hi)),
            ),
        ];
        let squares: Vec<_> = self.squares().map(|sq| sq.3).collect();
        if squares
            .iter()
            .any(|c| c.is_some_and(|c| !c.metrics.steady.steady))
        {
            legend.push((
                Swatch::Outline(style::ALERT),
                "measure window not steady".into(),
            ));
        }
        if squares
            .iter()
            .any(|c| c.and_then(|c| (self.q.read)(c)).is_none())
        {
            legend.push((
                Swatch::Block(style::EMPTY),
                "–: no such cell or no value".into(),
            ));
        }
        Frame {
            title: self.title.into(),
            subtitle: self.m.subtitle(),
            legend,
        }
    }

    fn panel_size(&self) -> (u32, u32) {
        let cols = self.m.concurrencies.len() as u32;
        let rows = self.m.scenarios.len() as u32;
        (
            (cols * CELL_W + 190).max(style::PANEL_W),
            rows * CELL_H + 150,
        )
    }

    /// Width and height, px.
    pub fn size(&self) -> (u32, u32) {
        frame::size(&self.frame(), self.m.series.len(), self.panel_size())
    }

    /// Draws the figure.
    pub fn draw<DB: DrawingBackend>(&self, root: &Area<DB>) -> Result<(), DrawError> {
        let body = self.frame().draw(root)?;
        let scale = self.scale();
        let cols = self.m.concurrencies.len();
        let rows = self.m.scenarios.len();
        let x_label = |v: &f64| {
            let i = v.floor() as usize;
            self.m
                .concurrencies
                .get(i)
                .map(|n| n.to_string())
                .unwrap_or_default()
        };
        let y_label = |v: &f64| {
            let i = rows.saturating_sub(1 + v.floor() as usize);
            self.m
                .scenarios
                .get(i)
                .map(|s| s.id.clone())
                .unwrap_or_default()
        };
        for (s, panel) in frame::panels(&body, self.m.series.len()).iter().enumerate() {
            let mut chart = axes::chart(
                panel,
                &self.m.series[s].label,
                axes::Ticks::categories(cols),
                axes::Ticks::categories(rows),
            )?;
            chart
                .configure_mesh()
                .disable_mesh()
                .x_desc("concurrency N")
                .y_desc("scenario")
                .x_label_formatter(&x_label)
                .y_label_formatter(&y_label)
                .axis_desc_style(style::label().color(&style::TEXT))
                .label_style(style::label().color(&style::TEXT))
                .draw()?;
            for (i, &n) in self.m.concurrencies.iter().enumerate() {
                for k in 0..rows {
                    let (x0, y0) = (i as f64, (rows - 1 - k) as f64);
                    let summary = self.m.get(s, k, n);
                    let value = summary.and_then(|c| (self.q.read)(c)).map(|r| r.value);
                    let t = value.map_or(f64::NAN, |v| scale.position(v));
                    let fill = if t.is_nan() {
                        style::EMPTY
                    } else {
                        style::scale(t)
                    };
                    let area = chart.plotting_area();
                    area.draw(&Rectangle::new(
                        [(x0, y0), (x0 + 1.0, y0 + 1.0)],
                        fill.filled(),
                    ))?;
                    area.draw(&Rectangle::new(
                        [(x0, y0), (x0 + 1.0, y0 + 1.0)],
                        WHITE.stroke_width(2),
                    ))?;
                    if summary.is_some_and(|c| !c.metrics.steady.steady) {
                        let mut outline = Rectangle::new(
                            [(x0, y0), (x0 + 1.0, y0 + 1.0)],
                            style::ALERT.stroke_width(4),
                        );
                        outline.set_margin(3, 3, 3, 3);
                        area.draw(&outline)?;
                    }
                    let text = value.map_or("–".into(), style::number);
                    let ink = if t.is_nan() || t > 0.6 { BLACK } else { WHITE };
                    let font = style::label()
                        .color(&ink)
                        .pos(Pos::new(HPos::Center, VPos::Center));
                    area.draw(&Text::new(text, (x0 + 0.5, y0 + 0.5), font))?;
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::ColourScale;

    #[test]
    fn past_a_tenfold_span_the_scale_is_logarithmic() {
        // 20 to 200 ms is exactly tenfold: linear; a hair more, or 23.7 to 1346: log.
        assert_eq!(
            ColourScale::of(20.0, 200.0),
            ColourScale::Linear {
                lo: 20.0,
                hi: 200.0
            }
        );
        assert!(matches!(
            ColourScale::of(20.0, 200.1),
            ColourScale::Log { .. }
        ));
        let log = ColourScale::of(23.7, 1346.0);
        assert!(matches!(log, ColourScale::Log { .. }));
        // Zero or below cannot be on a log scale.
        assert!(matches!(
            ColourScale::of(0.0, 500.0),
            ColourScale::Linear { .. }
        ));
        // Log: the geometric middle sits half way; 10x the lowest sits at log(10)/log(56.8).
        assert_eq!(log.position(23.7), 0.0);
        assert_eq!(log.position(1346.0), 1.0);
        let middle = log.middle();
        assert!((middle - (23.7f64 * 1346.0).sqrt()).abs() < 1e-9);
        assert!((log.position(middle) - 0.5).abs() < 1e-12);
        let ten = (10.0f64).ln() / (1346.0f64 / 23.7).ln();
        assert!((log.position(237.0) - ten).abs() < 1e-12);
        // Linear: evenly; out of range clamped; one value in the middle.
        let linear = ColourScale::of(100.0, 300.0);
        assert_eq!(linear.position(150.0), 0.25);
        assert_eq!(linear.position(900.0), 1.0);
        assert_eq!(linear.middle(), 200.0);
        assert_eq!(ColourScale::of(42.0, 42.0).position(42.0), 0.5);
    }
}
