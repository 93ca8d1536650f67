//! Energy efficiency by load, one figure per scenario whose cells sampled the GPUs
//! (`energy_<scenario>`): output tokens per joule over Measure (`gpu.output_tokens_per_joule`)
//! against the load, one line per series; a panel against concurrency N (log2 axis) for the
//! closed-loop cells and one against the request rate for the open-loop cells, as the
//! scenario has them. Overloaded open-loop cells are crossed, as in the other rate figures.

use plateau_model::quantity::GPU_TOKENS_PER_JOULE;
use plotters::prelude::*;

use super::axes::{self, Ticks};
use super::frame::{self, Area, DrawError, Frame, Swatch};
use super::marks::Shape;
use super::rate::{self, Point};
use super::timeline::file_part;
use crate::matrix::Matrix;
use crate::style;

/// Which cells a panel draws.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Axis {
    /// Closed-loop cells, against concurrency N.
    Concurrency,
    /// Open-loop cells, against the target request rate.
    Rate,
}

/// The energy figure of one scenario.
pub struct Energy<'a> {
    /// The cells.
    pub m: &'a Matrix<'a>,
    /// Index into [`Matrix::scenarios`].
    pub scenario: usize,
}

/// One figure per scenario with a cell that has tokens per joule, in the matrix's order.
pub fn all<'a>(m: &'a Matrix<'a>) -> Vec<Energy<'a>> {
    (0..m.scenarios.len())
        .map(|scenario| Energy { m, scenario })
        .filter(|e| !e.axes().is_empty())
        .collect()
}

impl Energy<'_> {
    /// File name without extension.
    pub fn name(&self) -> String {
        format!("energy_{}", file_part(&self.m.scenarios[self.scenario].id))
    }

    /// Title.
    pub fn title(&self) -> String {
        format!(
            "Energy efficiency vs load: output tokens per joule · {}",
            self.m.scenarios[self.scenario].title()
        )
    }

    /// The cells of `series` on `axis` that have tokens per joule: `x` is N or the target
    /// rate, `y` tokens per joule, by load.
    pub fn points(&self, series: usize, axis: Axis) -> Vec<Point> {
        let read = GPU_TOKENS_PER_JOULE.read;
        match axis {
            Axis::Rate => rate::points(self.m, series, self.scenario, read),
            Axis::Concurrency => self
                .m
                .line(series, self.scenario)
                .into_iter()
                .filter_map(|(n, s)| {
                    Some(Point {
                        x: f64::from(n),
                        y: read(s)?.value,
                        overloaded: false,
                        small: false,
                    })
                })
                .collect(),
        }
    }

    /// The panels drawn: the axes some series has a point on.
    pub fn axes(&self) -> Vec<Axis> {
        [Axis::Concurrency, Axis::Rate]
            .into_iter()
            .filter(|&a| (0..self.m.series.len()).any(|s| !self.points(s, a).is_empty()))
            .collect()
    }

    fn frame(&self) -> Frame {
        let mut legend = frame::series_legend(self.m, Swatch::Block);
        let drawn: Vec<Point> = (0..self.m.series.len())
            .flat_map(|s| self.points(s, Axis::Rate))
            .collect();
        legend.extend(rate::faces_legend(&drawn));
        Frame {
            title: self.title(),
            subtitle: format!(
                "{} · GPU energy over Measure (gpu_metrics), every GPU sampled",
                self.m.subtitle()
            ),
            legend,
        }
    }

    /// Width and height, px.
    pub fn size(&self) -> (u32, u32) {
        self.frame().size(self.axes().len())
    }

    /// Draws the figure.
    pub fn draw<DB: DrawingBackend>(&self, root: &Area<DB>) -> Result<(), DrawError> {
        let axes_drawn = self.axes();
        let panels = self.frame().panels(root, axes_drawn.len())?;
        let y_desc = GPU_TOKENS_PER_JOULE.axis_label();
        for (panel, &axis) in panels.iter().zip(&axes_drawn) {
            let mut lines: Vec<Vec<Point>> = (0..self.m.series.len())
                .map(|s| self.points(s, axis))
                .collect();
            let hi = lines.iter().flatten().map(|p| p.y).fold(0.0, f64::max);
            let y = Ticks::linear(axes::up_to(hi));
            let scenario = self.m.scenarios[self.scenario].title();
            match axis {
                Axis::Concurrency => {
                    let mut ns: Vec<u32> = lines.iter().flatten().map(|p| p.x as u32).collect();
                    ns.sort_unstable();
                    ns.dedup();
                    for p in lines.iter_mut().flatten() {
                        p.x = axes::log2(p.x as u32);
                    }
                    let caption = format!("{scenario} · closed loop");
                    let mut chart = axes::chart(panel, &caption, axes::concurrency_axis(&ns), y)?;
                    axes::mesh(
                        &mut chart,
                        axes::CONCURRENCY_DESC,
                        &y_desc,
                        Some(&axes::concurrency_label),
                        None,
                    )?;
                    for (s, points) in lines.iter().enumerate() {
                        let color = style::series_color(s);
                        rate::draw_marked(&mut chart, color, false, points, Shape::Circle)?;
                    }
                }
                Axis::Rate => {
                    let x = Ticks::linear(rate::x_range(self.m, self.scenario, std::iter::empty()));
                    let caption = format!("{scenario} · open loop");
                    let mut chart = axes::chart(panel, &caption, x, y)?;
                    axes::mesh(&mut chart, &rate::rate_desc(self.m), &y_desc, None, None)?;
                    for (s, points) in lines.iter().enumerate() {
                        rate::draw_points(&mut chart, style::series_color(s), false, points)?;
                    }
                }
            }
        }
        Ok(())
    }
}
