//! Request rates against the open loop's target rate: what the server achieved beside what
//! the client offered, and the goodput (requests meeting every SLO per second) beside the
//! achieved rate. One panel per scenario with open-loop cells, one colour per series, the
//! diagonal y = x (the target itself), overloaded cells crossed, and each series' capacity
//! from `capacity.json` as a vertical line.

use plateau_model::results::capacity::CapacityReport;
use plotters::prelude::*;

use super::axes::{self, Ticks};
use super::frame::{self, Area, DrawError, Frame, Swatch};
use super::rate::{self, Point};
use crate::matrix::Matrix;
use crate::quantity::{self as q, Quantity};
use crate::style;

/// One figure: a solid and a dashed quantity per series.
pub struct Spec {
    /// File name without extension.
    pub name: &'static str,
    /// Title.
    pub title: &'static str,
    /// Solid line, then dashed line, each with its legend words.
    pub lines: [(Quantity, &'static str); 2],
}

/// Achieved vs offered.
pub const ACHIEVED: Spec = Spec {
    name: "achieved_vs_offered_rate",
    title: "Achieved vs offered request rate (open loop)",
    lines: [
        (
            q::ACHIEVED_RPS,
            "achieved: requests completed per second in the window",
        ),
        (
            q::OFFERED_RPS,
            "offered: arrivals due per second in the window",
        ),
    ],
};

/// Goodput vs rate (drawn when some open-loop cell has a goodput).
pub const GOODPUT: Spec = Spec {
    name: "goodput_vs_rate",
    title: "Goodput vs request rate (open loop, requests meeting every SLO)",
    lines: [
        (
            q::GOODPUT_RPS,
            "goodput: measured requests meeting every SLO per second",
        ),
        (q::ACHIEVED_RPS, "achieved: requests completed per second"),
    ],
};

/// A rate-vs-rate figure.
pub struct RequestsVsRate<'a> {
    /// The cells.
    pub m: &'a Matrix<'a>,
    /// `capacity.json`, when the run searched for capacity.
    pub capacity: Option<&'a CapacityReport>,
    /// Which figure.
    pub spec: &'static Spec,
}

impl RequestsVsRate<'_> {
    fn frame(&self) -> Frame {
        let mut legend = frame::series_legend(self.m, Swatch::Block);
        let [(_, solid), (_, dashed)] = &self.spec.lines;
        legend.push((Swatch::Line(style::MUTED), (*solid).into()));
        legend.push((Swatch::Dashed(style::MUTED), (*dashed).into()));
        legend.push((
            Swatch::Dashed(style::REFERENCE),
            "y = x: the target rate".into(),
        ));
        let drawn: Vec<Point> = self
            .m
            .open_scenarios()
            .into_iter()
            .flat_map(|k| self.lines(k))
            .flat_map(|l| l.2)
            .collect();
        legend.extend(rate::faces_legend(&drawn));
        if rate::any_capacity(self.capacity, self.m) {
            legend.push(rate::capacity_swatch());
        }
        Frame {
            title: self.spec.title.into(),
            subtitle: self.m.subtitle(),
            legend,
        }
    }

    /// Width and height, px.
    pub fn size(&self) -> (u32, u32) {
        self.frame().size(self.m.open_scenarios().len())
    }

    /// Every line of scenario `k`: series, dashed, points.
    fn lines(&self, k: usize) -> Vec<(usize, bool, Vec<Point>)> {
        rate::lines(self.m, k, &self.spec.lines.map(|(l, _)| l.read))
    }

    /// Draws the figure.
    pub fn draw<DB: DrawingBackend>(&self, root: &Area<DB>) -> Result<(), DrawError> {
        let scenarios = self.m.open_scenarios();
        let panels = self.frame().panels(root, scenarios.len())?;
        for (panel, &k) in panels.iter().zip(&scenarios) {
            let lines = self.lines(k);
            let caps = rate::capacities(self.capacity, self.m, k);
            let x = rate::x_range(self.m, k, caps.iter().map(|c| c.1));
            let top = lines
                .iter()
                .flat_map(|l| l.2.iter().map(|p| p.y))
                .fold(x.end, f64::max);
            let y = axes::up_to(top);
            let mut chart = axes::chart(
                panel,
                &self.m.scenarios[k].title(),
                Ticks::linear(x.clone()),
                Ticks::linear(y.clone()),
            )?;
            axes::mesh(
                &mut chart,
                &rate::rate_desc(self.m),
                "requests/s",
                None,
                None,
            )?;
            rate::rule(&mut chart, (0.0, 0.0), (x.end, x.end), style::REFERENCE)?;
            for &(s, at) in &caps {
                rate::rule(&mut chart, (at, 0.0), (at, y.end), style::series_color(s))?;
            }
            for (s, dashed, points) in &lines {
                rate::draw_points(&mut chart, style::series_color(*s), *dashed, points)?;
            }
        }
        Ok(())
    }
}
