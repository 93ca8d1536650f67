//! Latency distributions: the empirical CDF of TTFT, or of ITL per chunk, over each cell's
//! measured successful requests ([`super::requests`]), one panel per scenario, one line
//! per load coloured from low to high ([`load_colors`]), solid for the first series and
//! dashed for the others; the latency axis is log10 when a panel spans more than
//! [`LOG_SPAN`]. A line's height at x is the share of requests (gaps) at or below x.

use plateau_model::load::Load;
use plotters::prelude::*;

use super::axes::{self, Ticks};
use super::frame::{Area, DrawError, Frame, Swatch};
use super::requests::{Cdf, CellRequests};
use super::scaling::LOG_SPAN;
use crate::matrix::{Cell, Matrix};
use crate::style;

/// Which distribution a figure shows.
pub struct Spec {
    /// File name without extension.
    pub name: &'static str,
    /// Title.
    pub title: &'static str,
    /// X axis description.
    pub x_desc: &'static str,
    /// Y axis description.
    pub y_desc: &'static str,
    /// The distribution in a cell's requests.
    pub read: fn(&CellRequests) -> &Cdf,
}

/// The TTFT and the ITL distributions.
pub const SPECS: [Spec; 2] = [
    Spec {
        name: "ttft_cdf",
        title: "TTFT distribution per load (CDF of the measured requests)",
        x_desc: "TTFT (ms)",
        y_desc: "share of requests with TTFT ≤ x",
        read: |r| &r.ttft_ms,
    },
    Spec {
        name: "itl_cdf",
        title: "Inter-token latency distribution per load (CDF of every chunk gap)",
        x_desc: "ITL per chunk (ms)",
        y_desc: "share of gaps ≤ x",
        read: |r| &r.itl_ms,
    },
];

/// Every load of `m` (concurrencies ascending, then request rates ascending) with its
/// colour: dark (low) to light (high), stopping short of viridis' pale yellow.
pub fn load_colors(m: &Matrix) -> Vec<(Load, RGBColor)> {
    let mut loads: Vec<Load> = m
        .concurrencies
        .iter()
        .map(|&n| Load::Concurrency(n))
        .collect();
    let mut rates: Vec<&Cell> = m.open.iter().collect();
    rates.sort_by(|a, b| {
        let rps = |c: &Cell| c.load.rate().map_or(0.0, |r| r.rps);
        rps(a).total_cmp(&rps(b))
    });
    for c in rates {
        if !loads.contains(&c.load) {
            loads.push(c.load);
        }
    }
    let last = loads.len().saturating_sub(1).max(1) as f64;
    loads
        .iter()
        .enumerate()
        .map(|(i, &l)| (l, style::scale(0.85 * i as f64 / last)))
        .collect()
}

/// The colour of `load` among `colors`.
pub fn color_of(colors: &[(Load, RGBColor)], load: Load) -> RGBColor {
    colors
        .iter()
        .find(|c| c.0 == load)
        .map_or(style::MUTED, |c| c.1)
}

/// The legend entries of the loads and, with several series, of the series' line styles.
pub fn legend(m: &Matrix, colors: &[(Load, RGBColor)]) -> Vec<(Swatch, String)> {
    let mut legend: Vec<(Swatch, String)> = colors
        .iter()
        .map(|(l, c)| (Swatch::Line(*c), l.to_string()))
        .collect();
    if m.series.len() > 1 {
        for (s, series) in m.series.iter().enumerate() {
            legend.push((Swatch::stroke(style::MUTED, s > 0), series.label.clone()));
        }
    }
    legend
}

/// A distribution figure.
pub struct CdfPlot<'a> {
    /// The cells.
    pub m: &'a Matrix<'a>,
    /// The cells whose requests were read, with what was read.
    pub requests: &'a [(Cell<'a>, CellRequests)],
    /// Which distribution.
    pub spec: &'static Spec,
}

impl CdfPlot<'_> {
    /// The scenarios (indices) with a cell that has the distribution.
    fn scenarios(&self) -> Vec<usize> {
        (0..self.m.scenarios.len())
            .filter(|&k| self.lines(k).next().is_some())
            .collect()
    }

    /// Whether the figure has anything to draw.
    pub fn is_empty(&self) -> bool {
        self.scenarios().is_empty()
    }

    /// The cells of scenario `k` with the distribution.
    fn lines(&self, k: usize) -> impl Iterator<Item = (&Cell<'_>, &Cdf)> {
        self.requests
            .iter()
            .filter(move |(c, _)| c.scenario == k)
            .map(|(c, r)| (c, (self.spec.read)(r)))
            .filter(|(_, cdf)| !cdf.at.is_empty())
    }

    fn frame(&self) -> Frame {
        Frame {
            title: self.spec.title.into(),
            subtitle: format!(
                "{} · measured successful requests, started in the measure window",
                self.m.subtitle()
            ),
            legend: legend(self.m, &load_colors(self.m)),
        }
    }

    /// Width and height, px.
    pub fn size(&self) -> (u32, u32) {
        self.frame().size(self.scenarios().len())
    }

    /// Draws the figure.
    pub fn draw<DB: DrawingBackend>(&self, root: &Area<DB>) -> Result<(), DrawError> {
        let colors = load_colors(self.m);
        let scenarios = self.scenarios();
        let panels = self.frame().panels(root, scenarios.len())?;
        for (panel, &k) in panels.iter().zip(&scenarios) {
            let (lo, hi) = self
                .lines(k)
                .flat_map(|(_, cdf)| cdf.at.iter().copied())
                .filter(|&v| v > 0.0)
                .fold((f64::INFINITY, 0.0f64), |a, v| (a.0.min(v), a.1.max(v)));
            let log = lo.is_finite() && hi / lo > LOG_SPAN;
            let x = if log {
                axes::log_axis(lo / 1.2, hi * 1.2)
            } else {
                Ticks::linear(axes::up_to(hi))
            };
            let x_desc = axes::log_desc(self.spec.x_desc, log);
            let mut chart = axes::chart(
                panel,
                &self.m.scenarios[k].title(),
                x,
                Ticks::linear(0.0..1.0),
            )?;
            axes::mesh(
                &mut chart,
                &x_desc,
                self.spec.y_desc,
                log.then_some(&axes::log_label as &dyn Fn(&f64) -> String),
                None,
            )?;
            for (cell, cdf) in self.lines(k) {
                let color = color_of(&colors, cell.load);
                let points: Vec<(f64, f64)> = cdf
                    .points()
                    .filter(|p| !log || p.0 > 0.0)
                    .map(|(v, q)| (if log { v.log10() } else { v }, q))
                    .collect();
                let stroke = color.stroke_width(2);
                if cell.series == 0 {
                    chart.draw_series(LineSeries::new(points, stroke))?;
                } else {
                    chart.draw_series(DashedLineSeries::new(points, 8, 5, stroke))?;
                }
            }
        }
        Ok(())
    }
}
