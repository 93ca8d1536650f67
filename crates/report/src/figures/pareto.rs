//! Throughput vs p99 latency (the Pareto view): one panel per scenario, server throughput
//! against TTFT p99 or TPOT p99 (log scale), one line per series through its concurrencies,
//! each point labelled with its N. Up and to the left is better.

use plotters::prelude::*;

use super::axes;
use super::frame::{self, Area, DrawError, Frame, Swatch};
use crate::matrix::Matrix;
use crate::quantity::{self as q, Quantity};
use crate::style;

/// A Pareto figure: server throughput against one latency.
pub struct Pareto<'a> {
    /// The cells.
    pub m: &'a Matrix<'a>,
    /// File name without extension.
    pub name: &'static str,
    /// Title.
    pub title: &'static str,
    /// The latency on the x axis.
    pub latency: Quantity,
}

/// The Pareto figures: against TTFT p99 and against TPOT p99.
pub fn all<'a>(m: &'a Matrix<'a>) -> Vec<Pareto<'a>> {
    vec![
        Pareto {
            m,
            name: "pareto_throughput_vs_ttft_p99",
            title: "Server throughput vs TTFT p99 (up and left is better)",
            latency: q::TTFT_P99,
        },
        Pareto {
            m,
            name: "pareto_throughput_vs_tpot_p99",
            title: "Server throughput vs TPOT p99 (up and left is better)",
            latency: q::TPOT_P99,
        },
    ]
}

impl Pareto<'_> {
    fn frame(&self) -> Frame {
        let mut legend: Vec<(Swatch, String)> = self
            .m
            .series
            .iter()
            .enumerate()
            .map(|(i, s)| (Swatch::Line(style::series_color(i)), s.label.clone()))
            .collect();
        legend.push((
            Swatch::Dot(style::MUTED),
            "each point is one concurrency N (labelled)".into(),
        ));
        Frame {
            title: self.title.into(),
            subtitle: self.m.subtitle(),
            legend,
        }
    }

    /// Width and height, px.
    pub fn size(&self) -> (u32, u32) {
        frame::size(
            &self.frame(),
            self.m.scenarios.len(),
            (style::PANEL_W, style::PANEL_H),
        )
    }

    /// `(latency, throughput, N)` of one series in one scenario, by concurrency.
    fn points(&self, series: usize, scenario: usize) -> Vec<(f64, f64, u32)> {
        self.m
            .line(series, scenario)
            .into_iter()
            .filter_map(|s| {
                let x = (self.latency.read)(s)?.value;
                let y = (q::SERVER_TPS.read)(s)?.value;
                (x > 0.0).then_some((x, y, s.cell.load.concurrency.unwrap_or_default()))
            })
            .collect()
    }

    /// Draws the figure.
    pub fn draw<DB: DrawingBackend>(&self, root: &Area<DB>) -> Result<(), DrawError> {
        let body = self.frame().draw(root)?;
        for (k, panel) in frame::panels(&body, self.m.scenarios.len())
            .iter()
            .enumerate()
        {
            let lines: Vec<_> = (0..self.m.series.len())
                .map(|s| self.points(s, k))
                .collect();
            let all = lines.iter().flatten();
            let (lo, hi, top) = all.fold((f64::INFINITY, 0.0f64, 0.0f64), |a, p| {
                (a.0.min(p.0), a.1.max(p.0), a.2.max(p.1))
            });
            let (lo, hi) = if lo.is_finite() && hi > 0.0 {
                (lo / 1.25, hi * 1.25)
            } else {
                (1.0, 10.0)
            };
            let mut chart = axes::chart(
                panel,
                &self.m.scenarios[k].title(),
                axes::log_axis(lo, hi),
                axes::up_to(top),
            )?;
            axes::mesh(
                &mut chart,
                &format!("{} (log scale)", self.latency.axis_label()),
                "server throughput (output tokens/s)",
                Some(&axes::log_label),
                None,
            )?;
            for (s, points) in lines.iter().enumerate() {
                let color = style::series_color(s);
                let xy = points.iter().map(|&(x, y, _)| (x.log10(), y));
                chart.draw_series(LineSeries::new(xy.clone(), color.stroke_width(3)))?;
                chart.draw_series(xy.map(|p| Circle::new(p, 5, color.filled())))?;
                let font = style::small().color(&color);
                chart.draw_series(points.iter().map(|&(x, y, n)| {
                    EmptyElement::at((x.log10(), y))
                        + Text::new(format!("N={n}"), (9, 2), font.clone())
                }))?;
            }
        }
        Ok(())
    }
}
