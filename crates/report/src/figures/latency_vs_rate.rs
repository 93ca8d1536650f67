//! TTFT and TPOT (p50 solid, p99 dashed) vs the open loop's target request rate: one panel
//! per scenario with open-loop cells, one colour per series, overloaded cells crossed,
//! percentiles from too few samples hollow, the SLO's p99 bound as a red horizontal line
//! and each series' capacity (`max_rps` of its search in `capacity.json`) as a vertical
//! line in its colour.

use plateau_model::config::CapacitySlo;
use plateau_model::results::capacity::CapacityReport;
use plotters::prelude::*;

use super::axes::{self, Ticks};
use super::frame::{self, Area, DrawError, Frame, Swatch};
use super::rate::{self, Point};
use super::scaling::LOG_SPAN;
use crate::matrix::Matrix;
use crate::quantity::{self as q, Quantity};
use crate::style;

/// One latency figure.
pub struct Spec {
    /// File name without extension.
    pub name: &'static str,
    /// Title.
    pub title: &'static str,
    /// Y axis description.
    pub y_desc: &'static str,
    /// p50 (solid) and p99 (dashed).
    pub lines: [Quantity; 2],
    /// The SLO's bound on the p99, from `capacity.json`.
    pub slo: fn(&CapacitySlo) -> Option<f64>,
    /// What the SLO line is (`TTFT p99`).
    pub slo_label: &'static str,
}

/// TTFT and TPOT vs rate.
pub const SPECS: [Spec; 2] = [
    Spec {
        name: "ttft_vs_rate",
        title: "Time to first token (TTFT) vs request rate (open loop)",
        y_desc: "TTFT from the intended send (ms)",
        lines: [q::TTFT_P50, q::TTFT_P99],
        slo: |s| s.ttft_p99_ms,
        slo_label: "TTFT p99",
    },
    Spec {
        name: "tpot_vs_rate",
        title: "Time per output token (TPOT) vs request rate (open loop)",
        y_desc: "TPOT (ms)",
        lines: [q::TPOT_P50, q::TPOT_P99],
        slo: |s| s.tpot_p99_ms,
        slo_label: "TPOT p99",
    },
];

/// A latency-vs-rate figure.
pub struct LatencyVsRate<'a> {
    /// The cells.
    pub m: &'a Matrix<'a>,
    /// `capacity.json`, when the run searched for capacity.
    pub capacity: Option<&'a CapacityReport>,
    /// Which figure.
    pub spec: &'static Spec,
}

impl LatencyVsRate<'_> {
    fn slo(&self) -> Option<f64> {
        self.capacity.and_then(|c| (self.spec.slo)(&c.slo))
    }

    fn frame(&self) -> Frame {
        let mut legend = frame::series_legend(self.m, Swatch::Block);
        legend.push((Swatch::Line(style::MUTED), "p50".into()));
        legend.push((Swatch::Dashed(style::MUTED), "p99".into()));
        let scenarios = self.m.open_scenarios();
        let drawn: Vec<Point> = scenarios
            .iter()
            .flat_map(|&k| self.lines(k))
            .flat_map(|l| l.2)
            .collect();
        legend.extend(rate::faces_legend(&drawn));
        if let Some(limit) = self.slo() {
            legend.push((
                Swatch::Dashed(style::ALERT),
                format!("SLO: {} ≤ {} ms", self.spec.slo_label, style::tick(limit)),
            ));
        }
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

    /// Every line of scenario `k`: series, dashed (p99), points.
    fn lines(&self, k: usize) -> Vec<(usize, bool, Vec<Point>)> {
        rate::lines(self.m, k, &self.spec.lines.map(|l| l.read))
    }

    /// Whether the y axis is log10: some panel spans more than [`LOG_SPAN`] (overloaded
    /// cells' latencies grow with the window).
    fn log_y(&self) -> bool {
        self.m.open_scenarios().into_iter().any(|k| {
            let values = self.lines(k).into_iter().flat_map(|l| l.2).map(|p| p.y);
            let (lo, hi) = values
                .filter(|&v| v > 0.0)
                .fold((f64::INFINITY, 0.0f64), |a, v| (a.0.min(v), a.1.max(v)));
            hi / lo > LOG_SPAN
        })
    }

    /// Draws the figure.
    pub fn draw<DB: DrawingBackend>(&self, root: &Area<DB>) -> Result<(), DrawError> {
        let scenarios = self.m.open_scenarios();
        let panels = self.frame().panels(root, scenarios.len())?;
        let log = self.log_y();
        let slo = self.slo();
        let y_desc = axes::log_desc(self.spec.y_desc, log);
        for (panel, &k) in panels.iter().zip(&scenarios) {
            let mut lines = self.lines(k);
            if log {
                for (_, _, points) in &mut lines {
                    points.retain(|p| p.y > 0.0);
                    points.iter_mut().for_each(|p| p.y = p.y.log10());
                }
            }
            let values = lines.iter().flat_map(|l| l.2.iter().map(|p| p.y));
            let (lo, hi) = values.fold((f64::INFINITY, f64::NEG_INFINITY), |a, v| {
                (a.0.min(v), a.1.max(v))
            });
            let caps = rate::capacities(self.capacity, self.m, k);
            let y = if log {
                let (lo, hi) = if lo.is_finite() {
                    let slo = slo.unwrap_or(10f64.powf(lo));
                    (10f64.powf(lo).min(slo) / 1.2, 10f64.powf(hi).max(slo) * 1.2)
                } else {
                    (1.0, 10.0)
                };
                axes::log_axis(lo, hi)
            } else {
                Ticks::linear(axes::up_to(hi.max(slo.unwrap_or(0.0))))
            };
            let top = y.range().end;
            let bottom = y.range().start;
            let mut chart = axes::chart(
                panel,
                &self.m.scenarios[k].title(),
                Ticks::linear(rate::x_range(self.m, k, caps.iter().map(|c| c.1))),
                y,
            )?;
            axes::mesh(
                &mut chart,
                &rate::rate_desc(self.m),
                &y_desc,
                None,
                log.then_some(&axes::log_label as &dyn Fn(&f64) -> String),
            )?;
            let x_end = chart.x_range().end;
            if let Some(limit) = slo {
                let at = if log { limit.log10() } else { limit };
                rate::rule(&mut chart, (0.0, at), (x_end, at), style::ALERT)?;
            }
            for &(s, x) in &caps {
                rate::rule(&mut chart, (x, bottom), (x, top), style::series_color(s))?;
            }
            for (s, dashed, points) in &lines {
                rate::draw_points(&mut chart, style::series_color(*s), *dashed, points)?;
            }
        }
        Ok(())
    }
}
