//! Throughput vs p99 latency (the Pareto view): one panel per scenario, server throughput
//! against TTFT p99 or TPOT p99 (log scale), one line per series through its concurrencies,
//! each point labelled with its N. Up and to the left is better. When the run has open-loop
//! cells, one more figure puts them beside the closed-loop ones: a dashed line per series
//! through its request rates, square markers labelled with the rate, hollow where the cell
//! was overloaded.

use plateau_model::load::format_rps;
use plateau_model::results::summary::CellSummary;
use plotters::prelude::*;

use super::axes;
use super::frame::{self, Area, DrawError, Frame, Swatch};
use super::marks::{self, Mark, Shape};
use super::rate;

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
    /// Also the open-loop cells, by rate.
    pub open: bool,
}

/// One point: latency, throughput, its label (`N=4`, `6/s`), overloaded.
type Point = (f64, f64, String, bool);

/// The Pareto figures: against TTFT p99 and against TPOT p99.
pub fn all<'a>(m: &'a Matrix<'a>) -> Vec<Pareto<'a>> {
    vec![
        Pareto {
            m,
            name: "pareto_throughput_vs_ttft_p99",
            title: "Server throughput vs TTFT p99 (up and left is better)",
            latency: q::TTFT_P99,
            open: false,
        },
        Pareto {
            m,
            name: "pareto_throughput_vs_tpot_p99",
            title: "Server throughput vs TPOT p99 (up and left is better)",
            latency: q::TPOT_P99,
            open: false,
        },
    ]
}

/// The closed- and open-loop cells together against TTFT p99 (`None` without open-loop
/// cells).
pub fn with_open<'a>(m: &'a Matrix<'a>) -> Option<Pareto<'a>> {
    (!m.open.is_empty()).then_some(Pareto {
        m,
        name: "pareto_closed_and_open_vs_ttft_p99",
        title: "Server throughput vs TTFT p99, closed and open loop (up and left is better)",
        latency: q::TTFT_P99,
        open: true,
    })
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
        if self.open {
            legend.push((
                Swatch::Mark(Mark {
                    shape: Shape::Square,
                    color: style::MUTED,
                    hollow: false,
                }),
                "open loop, dashed: each square one request rate (labelled req/s)".into(),
            ));
            legend.push(rate::overloaded_swatch());
        }
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

    /// The closed-loop points of one series in one scenario, by concurrency, then (when
    /// [`Pareto::open`]) its open-loop points, by rate.
    fn points(&self, series: usize, scenario: usize) -> [Vec<Point>; 2] {
        let at = |s: &CellSummary, label: String| {
            let x = (self.latency.read)(s)?.value;
            let y = (q::SERVER_TPS.read)(s)?.value;
            (x > 0.0).then_some((x, y, label, s.metrics.steady.overloaded))
        };
        let closed = self.m.line(series, scenario).into_iter();
        let open = self.m.rate_line(series, scenario).into_iter();
        [
            closed
                .filter_map(|(n, s)| at(s, format!("N={n}")))
                .collect(),
            open.filter(|_| self.open)
                .filter_map(|(r, s)| at(s, format!("{}/s", format_rps(r))))
                .collect(),
        ]
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
            let all = lines.iter().flatten().flatten();
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
            for (s, [closed, open]) in lines.iter().enumerate() {
                let color = style::series_color(s);
                let xy = |p: &[Point]| p.iter().map(|p| (p.0.log10(), p.1)).collect::<Vec<_>>();
                chart.draw_series(LineSeries::new(xy(closed), color.stroke_width(3)))?;
                chart.draw_series(
                    xy(closed)
                        .into_iter()
                        .map(|p| Circle::new(p, 5, color.filled())),
                )?;
                if !open.is_empty() {
                    let stroke = color.stroke_width(3);
                    chart.draw_series(DashedLineSeries::new(xy(open), 10, 6, stroke))?;
                }
                for p in open {
                    let mark = Mark {
                        shape: Shape::Square,
                        color,
                        hollow: p.3,
                    };
                    marks::draw(chart.plotting_area(), (p.0.log10(), p.1), mark)?;
                }
                let font = style::small().color(&color);
                chart.draw_series(closed.iter().chain(open).map(|(x, y, label, _)| {
                    EmptyElement::at((x.log10(), *y))
                        + Text::new(label.clone(), (9, 2), font.clone())
                }))?;
            }
        }
        Ok(())
    }
}
