//! Session figures by turn, one per session scenario, from the cells' `sessions.by_turn`
//! (turn buckets 1, 2-4, 5-9, 10+): `session_ttft_<scenario>`, TTFT p50 (solid) and p99
//! (dashed) by turn bucket, and `session_cache_<scenario>`, the share of prompt tokens the
//! server reused from its cache (solid) against the share an ideal prefix cache holding
//! each session's history could reuse (dashed); one panel per series, one colour per N
//! ([`super::cdf::load_colors`]). A p99 resting on too few turns is drawn hollow.

use plateau_model::load::Load;
use plateau_model::metrics::{TurnBucket, turn_buckets};
use plotters::prelude::*;

use super::axes::{self, Ticks};
use super::cdf::{color_of, load_colors};
use super::frame::{Area, DrawError, Frame, Swatch};
use super::marks::{self, Shape};
use super::rate::{self, Point};
use super::timeline::file_part;
use crate::matrix::Matrix;
use crate::style;

/// Which by-turn figure.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// TTFT p50 and p99 by turn bucket.
    Ttft,
    /// Cached share (observed) and ideal share by turn bucket.
    Cache,
}

/// One line of a panel: the closed-loop cell at N, solid or dashed, its points as
/// `(bucket index on the x axis, value, rests on too few turns)`.
#[derive(Clone, Debug, PartialEq)]
pub struct TurnLine {
    /// N: concurrent sessions.
    pub n: u32,
    /// Dashed (p99, ideal share) or solid (p50, cached share).
    pub dashed: bool,
    /// Its points, by bucket.
    pub points: Vec<(usize, f64, bool)>,
}

/// A by-turn figure of one scenario.
pub struct SessionTurns<'a> {
    /// The cells.
    pub m: &'a Matrix<'a>,
    /// Index into [`Matrix::scenarios`].
    pub scenario: usize,
    /// Which figure.
    pub kind: Kind,
}

impl SessionTurns<'_> {
    /// File name without extension: `session_ttft_D`, `session_cache_D`.
    pub fn name(&self) -> String {
        let what = match self.kind {
            Kind::Ttft => "ttft",
            Kind::Cache => "cache",
        };
        format!(
            "session_{what}_{}",
            file_part(&self.m.scenarios[self.scenario].id)
        )
    }

    /// Title.
    pub fn title(&self) -> String {
        let what = match self.kind {
            Kind::Ttft => "TTFT by turn",
            Kind::Cache => "Prefix cache by turn: cached share observed vs ideal",
        };
        format!("{what}, {}", self.m.scenarios[self.scenario].title())
    }

    /// The turn buckets some cell of the scenario has, in order: the x axis.
    pub fn buckets(&self) -> Vec<&'static str> {
        let present = |name: &str| {
            (0..self.m.series.len()).any(|s| {
                self.m.line(s, self.scenario).iter().any(|(_, c)| {
                    c.metrics
                        .sessions
                        .as_ref()
                        .is_some_and(|x| x.by_turn.iter().any(|b| b.turns == name))
                })
            })
        };
        turn_buckets().into_iter().filter(|b| present(b)).collect()
    }

    /// The lines of series `series`: per N ascending, the solid then the dashed one, those
    /// without a point left out.
    pub fn lines(&self, series: usize) -> Vec<TurnLine> {
        let buckets = self.buckets();
        let mut out = Vec::new();
        for (n, cell) in self.m.line(series, self.scenario) {
            let Some(sessions) = &cell.metrics.sessions else {
                continue;
            };
            for dashed in [false, true] {
                let points: Vec<(usize, f64, bool)> = sessions
                    .by_turn
                    .iter()
                    .filter_map(|b| {
                        let x = buckets.iter().position(|&name| name == b.turns)?;
                        let (v, small) = self.value(b, dashed)?;
                        Some((x, v, small))
                    })
                    .collect();
                if !points.is_empty() {
                    out.push(TurnLine { n, dashed, points });
                }
            }
        }
        out
    }

    /// The value a bucket gives the solid or the dashed line, and whether it rests on too
    /// few turns.
    fn value(&self, b: &TurnBucket, dashed: bool) -> Option<(f64, bool)> {
        match (self.kind, dashed) {
            (Kind::Ttft, false) => b.ttft_ms.as_ref().map(|d| (d.p50, false)),
            (Kind::Ttft, true) => b
                .ttft_ms
                .as_ref()
                .map(|d| (d.p99, d.small_sample.iter().any(|p| p == "p99"))),
            (Kind::Cache, false) => b.cached_share.map(|v| (v, false)),
            (Kind::Cache, true) => b.ideal_share.map(|v| (v, false)),
        }
    }

    /// The series with a line to draw, in order: one panel each.
    fn panels(&self) -> Vec<usize> {
        (0..self.m.series.len())
            .filter(|&s| !self.lines(s).is_empty())
            .collect()
    }

    /// Whether the figure has anything to draw.
    pub fn is_empty(&self) -> bool {
        self.panels().is_empty()
    }

    fn frame(&self) -> Frame {
        let lines: Vec<TurnLine> = self.panels().iter().flat_map(|&s| self.lines(s)).collect();
        let mut legend: Vec<(Swatch, String)> = load_colors(self.m)
            .into_iter()
            .filter_map(|(load, c)| {
                let n = load.concurrency()?;
                lines
                    .iter()
                    .any(|l| l.n == n)
                    .then(|| (Swatch::Line(c), format!("N = {n} sessions")))
            })
            .collect();
        let (solid, dashed) = match self.kind {
            Kind::Ttft => ("p50", "p99"),
            Kind::Cache => (
                "observed: cached prompt tokens / prompt tokens (server's count)",
                "ideal: earlier turns' tokens / prompt tokens",
            ),
        };
        for (is_dashed, words) in [(false, solid), (true, dashed)] {
            if lines.iter().any(|l| l.dashed == is_dashed) {
                legend.push((Swatch::stroke(style::MUTED, is_dashed), words.into()));
            }
        }
        if lines.iter().flat_map(|l| &l.points).any(|p| p.2) {
            legend.push(marks::small_sample_swatch(Shape::Circle));
        }
        Frame {
            title: self.title(),
            subtitle: format!(
                "{} · measured successful turns, by turn index (counted from 1)",
                self.m.subtitle()
            ),
            legend,
        }
    }

    /// Width and height, px.
    pub fn size(&self) -> (u32, u32) {
        self.frame().size(self.panels().len())
    }

    /// Draws the figure.
    pub fn draw<DB: DrawingBackend>(&self, root: &Area<DB>) -> Result<(), DrawError> {
        let colors = load_colors(self.m);
        let buckets = self.buckets();
        let panels = self.panels();
        let areas = self.frame().panels(root, panels.len())?;
        let (y_desc, fixed_top) = match self.kind {
            Kind::Ttft => ("TTFT (ms)", None),
            Kind::Cache => ("share of prompt tokens", Some(1.0)),
        };
        let label = |x: &f64| {
            let i = (x - 0.5).round();
            let name = (i >= 0.0).then(|| buckets.get(i as usize)).flatten();
            name.map_or(String::new(), |b| (*b).to_owned())
        };
        for (panel, &s) in areas.iter().zip(&panels) {
            let lines = self.lines(s);
            let top = lines
                .iter()
                .flat_map(|l| l.points.iter().map(|p| p.1))
                .fold(fixed_top.unwrap_or(0.0), f64::max);
            let caption = if self.m.series.len() > 1 {
                self.m.series[s].label.clone()
            } else {
                self.m.scenarios[self.scenario].title()
            };
            let mut chart = axes::chart(
                panel,
                &caption,
                Ticks::categories(buckets.len()),
                Ticks::linear(axes::up_to(top)),
            )?;
            axes::mesh(&mut chart, "turns", y_desc, Some(&label), None)?;
            for line in &lines {
                let color = color_of(&colors, Load::Concurrency(line.n));
                let points: Vec<Point> = line
                    .points
                    .iter()
                    .map(|&(x, y, small)| Point {
                        x: x as f64 + 0.5,
                        y,
                        overloaded: false,
                        small,
                    })
                    .collect();
                rate::draw_marked(&mut chart, color, line.dashed, &points, Shape::Circle)?;
            }
        }
        Ok(())
    }
}
