//! `sessions_per_minute_<scenario>`: completed sessions per minute of Measure against N
//! (concurrent sessions, log2 axis), one line per series, from the closed-loop cells'
//! `sessions.sessions_per_minute`; a session scenario's throughput in the unit an operator
//! plans users with.

use plotters::prelude::*;

use super::axes::{self, Ticks};
use super::frame::{self, Area, DrawError, Frame, Swatch};
use super::marks::Shape;
use super::rate::{self, Point};
use super::timeline::file_part;
use crate::matrix::Matrix;
use crate::style;

/// The figure of one scenario.
pub struct SessionRate<'a> {
    /// The cells.
    pub m: &'a Matrix<'a>,
    /// Index into [`Matrix::scenarios`].
    pub scenario: usize,
}

impl SessionRate<'_> {
    /// File name without extension: `sessions_per_minute_D`.
    pub fn name(&self) -> String {
        format!(
            "sessions_per_minute_{}",
            file_part(&self.m.scenarios[self.scenario].id)
        )
    }

    /// Title.
    pub fn title(&self) -> String {
        format!(
            "Sessions per minute vs concurrent sessions, {}",
            self.m.scenarios[self.scenario].title()
        )
    }

    /// `(N, completed sessions per minute)` of series `series`, by N; cells without the
    /// number left out.
    pub fn points(&self, series: usize) -> Vec<(u32, f64)> {
        self.m
            .line(series, self.scenario)
            .into_iter()
            .filter_map(|(n, s)| Some((n, s.metrics.sessions.as_ref()?.sessions_per_minute?)))
            .collect()
    }

    /// The series with a point, in order.
    fn drawn(&self) -> Vec<usize> {
        (0..self.m.series.len())
            .filter(|&s| !self.points(s).is_empty())
            .collect()
    }

    /// Whether the figure has anything to draw.
    pub fn is_empty(&self) -> bool {
        self.drawn().is_empty()
    }

    fn frame(&self) -> Frame {
        let series = frame::series_legend(self.m, Swatch::Line);
        Frame {
            title: self.title(),
            subtitle: format!(
                "{} · sessions whose last turn ended inside Measure, per minute of it",
                self.m.subtitle()
            ),
            legend: self
                .drawn()
                .into_iter()
                .map(|s| series[s].clone())
                .collect(),
        }
    }

    /// Width and height, px.
    pub fn size(&self) -> (u32, u32) {
        self.frame().size(1)
    }

    /// Draws the figure.
    pub fn draw<DB: DrawingBackend>(&self, root: &Area<DB>) -> Result<(), DrawError> {
        let body = self.frame().draw(root)?;
        let drawn = self.drawn();
        let mut ns: Vec<u32> = drawn
            .iter()
            .flat_map(|&s| self.points(s).into_iter().map(|p| p.0))
            .collect();
        ns.sort_unstable();
        ns.dedup();
        let top = drawn
            .iter()
            .flat_map(|&s| self.points(s).into_iter().map(|p| p.1))
            .fold(0.0, f64::max);
        let mut chart = axes::chart(
            &body,
            &self.m.scenarios[self.scenario].title(),
            axes::concurrency_axis(&ns),
            Ticks::linear(axes::up_to(top)),
        )?;
        axes::mesh(
            &mut chart,
            "concurrent sessions N (log2 scale)",
            "completed sessions per minute",
            Some(&axes::concurrency_label),
            None,
        )?;
        for s in drawn {
            let points: Vec<Point> = self
                .points(s)
                .into_iter()
                .map(|(n, y)| Point {
                    x: axes::log2(n),
                    y,
                    overloaded: false,
                    small: false,
                })
                .collect();
            let color = style::series_color(s);
            rate::draw_marked(&mut chart, color, false, &points, Shape::Circle)?;
        }
        Ok(())
    }
}
