//! Quantities vs concurrency: one panel per scenario, one colour per series, a solid and a
//! dashed line per quantity pair (p50 and p99, direct and derived), 95% confidence
//! intervals as translucent bands, concurrency on a log2 axis; a point whose percentile
//! rests on too few samples (the summary's `small_sample`) is drawn hollow. The legend
//! names the band and the hollow marker only when some point has them.

use plotters::prelude::*;

use super::axes::{self, Ticks};
use super::frame::{self, Area, DrawError, Frame, Swatch};
use super::marks::{self, Face, Mark, Shape};
use crate::matrix::Matrix;
use crate::quantity::{self as q, Quantity};
use crate::style;

/// One line style of a scaling figure.
pub struct Line {
    /// What it shows.
    pub q: Quantity,
    /// Dashed (else solid).
    pub dashed: bool,
    /// The legend's words for it.
    pub legend: &'static str,
}

/// A scaling figure: file name, title, y axis and its lines.
pub struct Spec {
    /// File name without extension.
    pub name: &'static str,
    /// Title.
    pub title: &'static str,
    /// Y axis description.
    pub y_desc: &'static str,
    /// Use a log10 y axis when the values span more than [`LOG_SPAN`] in a panel.
    pub log_y: bool,
    /// One of report.html's key figures.
    pub key: bool,
    /// The lines (drawn per series).
    pub lines: [Line; 2],
}

/// Every scaling figure.
pub const SPECS: [Spec; 5] = [
    Spec {
        name: "server_throughput_vs_concurrency",
        title: "Server throughput vs concurrency",
        y_desc: "output tokens/s (whole server)",
        log_y: false,
        key: true,
        lines: [
            Line {
                q: q::SERVER_TPS,
                dashed: false,
                legend: "direct: tokens arriving in the measure window / window",
            },
            Line {
                q: q::SERVER_DERIVED_TPS,
                dashed: true,
                legend: "derived: mean user throughput × N",
            },
        ],
    },
    Spec {
        name: "user_throughput_vs_concurrency",
        title: "User throughput vs concurrency (what each request sees)",
        y_desc: "output tokens/s per request (n_out / E2E)",
        log_y: false,
        key: false,
        lines: [
            Line {
                q: q::USER_TPS,
                dashed: false,
                legend: "mean",
            },
            Line {
                q: q::USER_TPS_P50,
                dashed: true,
                legend: "p50",
            },
        ],
    },
    Spec {
        name: "ttft_vs_concurrency",
        title: "Time to first token (TTFT) vs concurrency",
        y_desc: "TTFT (ms)",
        log_y: true,
        key: true,
        lines: [
            Line {
                q: q::TTFT_P50,
                dashed: false,
                legend: "p50",
            },
            Line {
                q: q::TTFT_P99,
                dashed: true,
                legend: "p99",
            },
        ],
    },
    Spec {
        name: "tpot_vs_concurrency",
        title: "Time per output token (TPOT) vs concurrency",
        y_desc: "TPOT (ms)",
        log_y: true,
        key: true,
        lines: [
            Line {
                q: q::TPOT_P50,
                dashed: false,
                legend: "p50",
            },
            Line {
                q: q::TPOT_P99,
                dashed: true,
                legend: "p99",
            },
        ],
    },
    Spec {
        name: "jitter_vs_concurrency",
        title: "Jitter vs concurrency (p99 / p50 of inter-token latency)",
        y_desc: "jitter = ITL p99 / ITL p50",
        log_y: false,
        key: false,
        lines: [
            Line {
                q: q::JITTER_CHUNK,
                dashed: false,
                legend: "ITL per chunk",
            },
            Line {
                q: q::JITTER_TOKEN,
                dashed: true,
                legend: "ITL per token",
            },
        ],
    },
];

/// Largest max / min ratio of a panel's values that a linear y axis shows well.
pub const LOG_SPAN: f64 = 20.0;

/// A scaling figure over a matrix.
pub struct Scaling<'a> {
    /// The cells.
    pub m: &'a Matrix<'a>,
    /// Which figure.
    pub spec: &'static Spec,
}

/// One drawn point: position on the log2 axis, value, confidence interval, and whether it
/// rests on too few samples.
type Point = (f64, f64, Option<[f64; 2]>, bool);

impl Scaling<'_> {
    fn frame(&self) -> Frame {
        let mut legend = frame::series_legend(self.m, Swatch::Block);
        for line in &self.spec.lines {
            legend.push((
                Swatch::stroke(style::MUTED, line.dashed),
                line.legend.into(),
            ));
        }
        let drawn = self.drawn(self.log_y());
        if drawn.iter().any(|p| p.2.is_some()) {
            legend.push((Swatch::Band(style::MUTED), "95% confidence interval".into()));
        }
        if drawn.iter().any(|p| p.3) {
            legend.push(marks::small_sample_swatch(Shape::Circle));
        }
        Frame {
            title: self.spec.title.into(),
            subtitle: self.m.subtitle(),
            legend,
        }
    }

    /// Width and height, px.
    pub fn size(&self) -> (u32, u32) {
        self.frame().size(self.m.scenarios.len())
    }

    fn points(&self, series: usize, scenario: usize, line: &Line) -> Vec<Point> {
        self.m
            .line(series, scenario)
            .into_iter()
            .filter_map(|(n, s)| {
                let r = (line.q.read)(s)?;
                Some((axes::log2(n), r.value, r.ci, r.small_sample))
            })
            .collect()
    }

    /// Every point the figure draws (on a `log` axis, as [`to_log`] leaves them), so the
    /// legend lists only what is drawn.
    fn drawn(&self, log: bool) -> Vec<Point> {
        (0..self.m.scenarios.len())
            .flat_map(|k| (0..self.m.series.len()).map(move |s| (s, k)))
            .flat_map(|(s, k)| self.spec.lines.iter().map(move |l| self.points(s, k, l)))
            .flat_map(|p| if log { to_log(p) } else { p })
            .collect()
    }

    /// Whether the y axis is log10: allowed by the spec and some panel spans more than
    /// [`LOG_SPAN`] (one choice for the whole figure, so panels read alike).
    fn log_y(&self) -> bool {
        self.spec.log_y
            && (0..self.m.scenarios.len()).any(|k| {
                let values = (0..self.m.series.len())
                    .flat_map(|s| {
                        self.spec
                            .lines
                            .iter()
                            .flat_map(move |l| self.points(s, k, l))
                    })
                    .map(|p| p.1)
                    .filter(|&v| v > 0.0);
                let (lo, hi) =
                    values.fold((f64::INFINITY, 0.0f64), |a, v| (a.0.min(v), a.1.max(v)));
                hi / lo > LOG_SPAN
            })
    }

    /// Draws the figure.
    pub fn draw<DB: DrawingBackend>(&self, root: &Area<DB>) -> Result<(), DrawError> {
        let panels = self.frame().panels(root, self.m.scenarios.len())?;
        let log = self.log_y();
        let y_desc = axes::log_desc(self.spec.y_desc, log);
        for (k, panel) in panels.iter().enumerate() {
            let lines: Vec<(usize, &Line, Vec<Point>)> = (0..self.m.series.len())
                .flat_map(|s| {
                    self.spec
                        .lines
                        .iter()
                        .map(move |l| (s, l, self.points(s, k, l)))
                })
                .map(|(s, l, p)| (s, l, if log { to_log(p) } else { p }))
                .collect();
            let all = || lines.iter().flat_map(|(_, _, p)| p.iter());
            let hi = all()
                .map(|&(_, v, ci, _)| ci.map_or(v, |c| c[1].max(v)))
                .fold(f64::NEG_INFINITY, f64::max);
            let y = if log {
                let lo = all()
                    .map(|&(_, v, ci, _)| ci.map_or(v, |c| c[0].min(v)))
                    .fold(f64::INFINITY, f64::min);
                let (lo, hi) = if lo.is_finite() && hi.is_finite() {
                    (10f64.powf(lo) / 1.2, 10f64.powf(hi) * 1.2)
                } else {
                    (1.0, 10.0)
                };
                axes::log_axis(lo, hi)
            } else {
                Ticks::linear(axes::up_to(hi))
            };
            let mut chart = axes::chart(
                panel,
                &self.m.scenarios[k].title(),
                axes::concurrency_axis(&self.m.concurrencies),
                y,
            )?;
            axes::mesh(
                &mut chart,
                axes::CONCURRENCY_DESC,
                &y_desc,
                Some(&axes::concurrency_label),
                log.then_some(&axes::log_label as &dyn Fn(&f64) -> String),
            )?;
            for (s, line, points) in &lines {
                draw_line(&mut chart, style::series_color(*s), line.dashed, points)?;
            }
        }
        Ok(())
    }
}

/// `points` with values and intervals as `log10`, points at or below 0 left out.
fn to_log(points: Vec<Point>) -> Vec<Point> {
    points
        .into_iter()
        .filter(|p| p.1 > 0.0)
        .map(|(x, v, ci, small)| {
            let ci = ci
                .filter(|c| c[0] > 0.0)
                .map(|c| [c[0].log10(), c[1].log10()]);
            (x, v.log10(), ci, small)
        })
        .collect()
}

/// A line with markers and, where consecutive points have intervals, a band between them
/// (whiskers where a point's neighbours have none).
fn draw_line<DB: DrawingBackend>(
    chart: &mut ChartContext<'_, DB, impl CoordTranslate<From = (f64, f64)>>,
    color: RGBColor,
    dashed: bool,
    points: &[Point],
) -> Result<(), DrawError> {
    let band = color.mix(if dashed { 0.12 } else { 0.2 }).filled();
    for pair in points.windows(2) {
        if let [(x0, _, Some(a), _), (x1, _, Some(b), _)] = pair {
            chart.plotting_area().draw(&Polygon::new(
                vec![(*x0, a[0]), (*x1, b[0]), (*x1, b[1]), (*x0, a[1])],
                band,
            ))?;
        }
    }
    for &(x, _, ci, _) in points {
        if let Some([lo, hi]) = ci {
            chart
                .plotting_area()
                .draw(&PathElement::new(vec![(x, lo), (x, hi)], color.mix(0.6)))?;
        }
    }
    marks::line(
        chart,
        points.iter().map(|&(x, v, _, _)| (x, v)),
        color,
        dashed,
    )?;
    // Filled markers on both lines; hollow only where the percentile rests on too few
    // samples, so a reader does not read the knee off a p99 of 30 requests.
    for &(x, v, _, small) in points {
        let mark = Mark {
            shape: Shape::Circle,
            color,
            face: Face::of(false, small),
        };
        marks::draw(chart.plotting_area(), (x, v), mark)?;
    }
    Ok(())
}
