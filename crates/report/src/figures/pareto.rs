//! Throughput vs p99 latency (the Pareto view): one panel per scenario, server throughput
//! against TTFT p99 or TPOT p99 (log scale), each point one concurrency N labelled with it.
//! Up and to the left is better. Per series, the line is the frontier: the points no other
//! point of the series beats on both latency and throughput ([`frontier`]), joined by
//! latency; dominated points are marks left unconnected. A percentile from too few samples
//! is hollow. When the run has open-loop cells, one more figure puts them beside the
//! closed-loop ones: squares labelled with the rate, their own frontier dashed, overloaded
//! cells crossed.

use plateau_model::load::format_rps;
use plateau_model::results::summary::CellSummary;
use plotters::prelude::*;

use super::axes;
use super::frame::{self, Area, DrawError, Frame, Swatch};
use super::marks::{self, Face, Mark, Shape};
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
    /// One of report.html's key figures.
    pub key: bool,
}

/// One point of a Pareto panel.
#[derive(Clone, Debug)]
struct Point {
    /// The latency.
    x: f64,
    /// Server throughput.
    y: f64,
    /// `N=4`, `6/s`.
    label: String,
    /// How its marker is filled (overloaded, small sample).
    face: Face,
}

/// The frontier ([`frontier`]) of the points that kept up: an overloaded cell's p99 says
/// only how long its window was, so it is neither on the frontier nor dominating.
fn kept_up(points: &[Point]) -> Vec<usize> {
    let keep: Vec<usize> = (0..points.len())
        .filter(|&i| points[i].face != Face::Crossed)
        .collect();
    let xy: Vec<(f64, f64)> = keep.iter().map(|&i| (points[i].x, points[i].y)).collect();
    frontier(&xy).into_iter().map(|j| keep[j]).collect()
}

/// The indices of the points (latency, throughput) that no other point dominates (as low
/// a latency and as high a throughput, one of them strictly), ordered by latency: the
/// frontier. Of identical points the first listed is kept.
pub fn frontier(points: &[(f64, f64)]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..points.len()).collect();
    order.sort_by(|&a, &b| {
        let (p, q) = (points[a], points[b]);
        p.0.total_cmp(&q.0).then(q.1.total_cmp(&p.1))
    });
    let mut best = f64::NEG_INFINITY;
    let mut out = Vec::new();
    for i in order {
        if points[i].1 > best {
            best = points[i].1;
            out.push(i);
        }
    }
    out
}

/// The Pareto figures: against TTFT p99 and against TPOT p99.
pub fn all<'a>(m: &'a Matrix<'a>) -> Vec<Pareto<'a>> {
    vec![
        Pareto {
            m,
            name: "pareto_throughput_vs_ttft_p99",
            title: "Server throughput vs TTFT p99 (up and left is better)",
            latency: q::TTFT_P99,
            open: false,
            key: true,
        },
        Pareto {
            m,
            name: "pareto_throughput_vs_tpot_p99",
            title: "Server throughput vs TPOT p99 (up and left is better)",
            latency: q::TPOT_P99,
            open: false,
            key: false,
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
        key: false,
    })
}

impl Pareto<'_> {
    fn frame(&self) -> Frame {
        let mut legend = frame::series_legend(self.m, Swatch::Line);
        legend.push((
            Swatch::Dot(style::MUTED),
            "each point is one concurrency N (labelled)".into(),
        ));
        legend.push((
            Swatch::Line(style::MUTED),
            if self.open {
                "line: the frontier (no other point is both faster and higher; overloaded \
                 cells left out); unconnected points are dominated"
            } else {
                "line: the frontier (no other point is both faster and higher); unconnected \
                 points are dominated"
            }
            .into(),
        ));
        if self.open {
            legend.push((
                Swatch::Mark(Mark {
                    shape: Shape::Square,
                    color: style::MUTED,
                    face: Face::Solid,
                }),
                "open loop, dashed frontier: each square one request rate (labelled req/s)".into(),
            ));
            legend.push(rate::overloaded_swatch());
        }
        let all = (0..self.m.series.len())
            .flat_map(|s| (0..self.m.scenarios.len()).map(move |k| (s, k)))
            .flat_map(|(s, k)| self.points(s, k))
            .flatten()
            .collect::<Vec<_>>();
        if all.iter().any(|p| p.face == Face::Hollow) {
            legend.push(marks::small_sample_swatch(Shape::Circle));
        }
        Frame {
            title: self.title.into(),
            subtitle: self.m.subtitle(),
            legend,
        }
    }

    /// Width and height, px.
    pub fn size(&self) -> (u32, u32) {
        self.frame().size(self.m.scenarios.len())
    }

    /// The closed-loop points of one series in one scenario, by concurrency, then (when
    /// [`Pareto::open`]) its open-loop points, by rate.
    fn points(&self, series: usize, scenario: usize) -> [Vec<Point>; 2] {
        let at = |s: &CellSummary, label: String| {
            let latency = (self.latency.read)(s)?;
            let y = (q::SERVER_TPS.read)(s)?.value;
            let face = Face::of(s.metrics.steady.overloaded, latency.small_sample);
            (latency.value > 0.0).then_some(Point {
                x: latency.value,
                y,
                label,
                face,
            })
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
        let panels = self.frame().panels(root, self.m.scenarios.len())?;
        for (k, panel) in panels.iter().enumerate() {
            let lines: Vec<_> = (0..self.m.series.len())
                .map(|s| self.points(s, k))
                .collect();
            let all = lines.iter().flatten().flatten();
            let (lo, hi, top) = all.fold((f64::INFINITY, 0.0f64, 0.0f64), |a, p| {
                (a.0.min(p.x), a.1.max(p.x), a.2.max(p.y))
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
                &axes::log_desc(&self.latency.axis_label(), true),
                "server throughput (output tokens/s)",
                Some(&axes::log_label),
                None,
            )?;
            for (s, [closed, open]) in lines.iter().enumerate() {
                let color = style::series_color(s);
                for (points, shape) in [(closed, Shape::Circle), (open, Shape::Square)] {
                    if points.is_empty() {
                        continue;
                    }
                    let xy: Vec<(f64, f64)> = points.iter().map(|p| (p.x.log10(), p.y)).collect();
                    let line = kept_up(points).into_iter().map(|i| xy[i]);
                    marks::line(&mut chart, line, color, shape == Shape::Square)?;
                    for (p, &at) in points.iter().zip(&xy) {
                        let mark = Mark {
                            shape,
                            color,
                            face: p.face,
                        };
                        marks::draw(chart.plotting_area(), at, mark)?;
                    }
                }
                let font = style::small().color(&color);
                chart.draw_series(closed.iter().chain(open).map(|p| {
                    EmptyElement::at((p.x.log10(), p.y))
                        + Text::new(p.label.clone(), (9, 2), font.clone())
                }))?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::{Face, Point, frontier, kept_up};

    #[test]
    fn an_overloaded_point_is_left_off_the_frontier() {
        let point = |x: f64, y: f64, face: Face| Point {
            x,
            y,
            label: String::new(),
            face,
        };
        // 2, 4, 6, 8 req/s: 8 is overloaded with the highest throughput; without it the
        // frontier ends at 6. A point from too few samples (hollow) still counts.
        let points = [
            point(29.0, 24.0, Face::Hollow),
            point(34.0, 48.0, Face::Hollow),
            point(39.0, 72.0, Face::Solid),
            point(767.0, 83.5, Face::Crossed),
        ];
        assert_eq!(kept_up(&points), vec![0, 1, 2]);
    }

    #[test]
    fn the_frontier_keeps_what_nothing_beats_by_latency() {
        // (latency, throughput) in N order; N=4 (index 2) is slower than N=2 and no
        // faster: dominated. N=8 is slower still but higher: on the frontier.
        let points = [(10.0, 100.0), (20.0, 180.0), (30.0, 150.0), (50.0, 200.0)];
        assert_eq!(frontier(&points), vec![0, 1, 3]);
        // Listed out of latency order: the frontier comes back ordered by latency.
        let shuffled = [(50.0, 200.0), (10.0, 100.0), (30.0, 150.0), (20.0, 180.0)];
        assert_eq!(frontier(&shuffled), vec![1, 3, 0]);
        // Same latency: only the higher throughput; same throughput: only the faster.
        assert_eq!(frontier(&[(10.0, 5.0), (10.0, 7.0)]), vec![1]);
        assert_eq!(frontier(&[(12.0, 7.0), (10.0, 7.0)]), vec![1]);
        // Identical points: the first listed.
        assert_eq!(frontier(&[(10.0, 7.0), (10.0, 7.0)]), vec![0]);
        assert_eq!(frontier(&[]), Vec::<usize>::new());
    }
}
