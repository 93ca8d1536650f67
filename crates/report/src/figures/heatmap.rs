//! Scenario x concurrency heatmaps of one quantity (server throughput, TTFT p99): one panel
//! per series, the value written in each cell, one colour scale over the whole figure, and
//! a red outline on cells whose measure window was not steady.

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

const CELL_W: u32 = 96;
const CELL_H: u32 = 56;

impl Heatmap<'_> {
    fn range(&self) -> (f64, f64) {
        let values = self
            .m
            .cells
            .iter()
            .filter_map(|c| (self.q.read)(c.summary).map(|r| r.value));
        values.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
            (lo.min(v), hi.max(v))
        })
    }

    fn frame(&self) -> Frame {
        let (lo, hi) = self.range();
        let mut legend = vec![
            (
                Swatch::Block(style::scale(0.0)),
                format!("lowest: {}", style::number(lo)),
            ),
            (
                Swatch::Block(style::scale(1.0)),
                format!("highest: {}", style::number(hi)),
            ),
            (
                Swatch::Outline(style::ALERT),
                "measure window not steady".into(),
            ),
        ];
        if self.m.series.len() > 1 {
            legend.push((Swatch::Block(style::EMPTY), "no such cell".into()));
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
        let (lo, hi) = self.range();
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
                    let t = match value {
                        Some(v) if hi > lo => (v - lo) / (hi - lo),
                        Some(_) => 0.5,
                        None => f64::NAN,
                    };
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
