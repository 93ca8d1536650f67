//! The engine comparison: every series side by side at one concurrency, grouped bars per
//! scenario, one panel per quantity (server and user throughput, TTFT and TPOT p99, with
//! confidence intervals as whiskers where the summary has them; the legend names the
//! whiskers only when one is drawn). With one series it compares scenarios, and says so.

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::axes;
use super::frame::{self, Area, DrawError, Frame, Swatch};
use crate::matrix::Matrix;
use crate::quantity::{self as q, Quantity};
use crate::style;

/// The quantities compared, one panel each.
const PANELS: [Quantity; 4] = [q::SERVER_TPS, q::USER_TPS, q::TTFT_P99, q::TPOT_P99];

/// The comparison at concurrency `at`.
pub struct Compare<'a> {
    /// The cells.
    pub m: &'a Matrix<'a>,
    /// The concurrency compared.
    pub at: u32,
}

/// The concurrency to compare at: `requested` when given (`None` if no cell has it), else the
/// largest concurrency every series has, else the largest there is.
pub fn comparison_concurrency(m: &Matrix, requested: Option<u32>) -> Option<u32> {
    let has = |series: usize, n: u32| {
        m.cells
            .iter()
            .any(|c| c.series == series && c.load.concurrency() == Some(n))
    };
    if let Some(n) = requested {
        return m.concurrencies.contains(&n).then_some(n);
    }
    let common = m
        .concurrencies
        .iter()
        .rev()
        .find(|&&n| (0..m.series.len()).all(|s| has(s, n)));
    common.or(m.concurrencies.last()).copied()
}

impl Compare<'_> {
    /// File name without extension: `engine_comparison_c<N>`, or
    /// `scenario_comparison_c<N>` with one series.
    pub fn name(&self) -> String {
        let what = if self.m.series.len() > 1 {
            "engine"
        } else {
            "scenario"
        };
        format!("{what}_comparison_c{}", self.at)
    }

    /// Title.
    pub fn title(&self) -> String {
        match self.m.series.as_slice() {
            [one] => format!(
                "Scenario comparison at concurrency N = {} ({})",
                self.at, one.label
            ),
            _ => format!("Engine comparison at concurrency N = {}", self.at),
        }
    }

    /// The bars of one panel: scenario, series, value, interval.
    fn bars(&self, quantity: &Quantity) -> Vec<(usize, usize, f64, Option<[f64; 2]>)> {
        let n_se = self.m.series.len().max(1);
        (0..self.m.scenarios.len())
            .flat_map(|k| (0..n_se).map(move |s| (k, s)))
            .filter_map(|(k, s)| {
                let r = (quantity.read)(self.m.get(s, k, self.at)?)?;
                Some((k, s, r.value, r.ci))
            })
            .collect()
    }

    fn frame(&self) -> Frame {
        let mut legend = frame::series_legend(self.m, Swatch::Block);
        let whiskers = PANELS
            .iter()
            .any(|q| self.bars(q).iter().any(|b| b.3.is_some()));
        if whiskers {
            legend.push((
                Swatch::Line(style::TEXT),
                "whisker: 95% confidence interval (where the summary has one)".into(),
            ));
        }
        Frame {
            title: self.title(),
            subtitle: self.m.subtitle(),
            legend,
        }
    }

    /// Width and height, px: two panels a row, wide enough for every bar.
    pub fn size(&self) -> (u32, u32) {
        let bars = (self.m.scenarios.len() * self.m.series.len()) as u32;
        let panel_w = (bars * 40 + 260).max(style::PANEL_W + 140);
        let w = 2 * panel_w;
        (w, self.frame().height(w) + 2 * style::PANEL_H)
    }

    /// Draws the figure.
    pub fn draw<DB: DrawingBackend>(&self, root: &Area<DB>) -> Result<(), DrawError> {
        let body = self.frame().draw(root)?;
        let n_sc = self.m.scenarios.len();
        let n_se = self.m.series.len().max(1);
        let slot = 0.8 / n_se as f64;
        for (panel, quantity) in body.split_evenly((2, 2)).iter().zip(PANELS) {
            let bars = self.bars(&quantity);
            let max = bars
                .iter()
                .map(|&(_, _, v, ci)| ci.map_or(v, |c| c[1].max(v)))
                .fold(0.0, f64::max);
            let mut chart = axes::chart(
                panel,
                &quantity.axis_label(),
                axes::Ticks::categories(n_sc),
                axes::up_to(max),
            )?;
            let label = |v: &f64| {
                self.m
                    .scenarios
                    .get(v.floor() as usize)
                    .map(|s| s.id.clone())
                    .unwrap_or_default()
            };
            axes::mesh(
                &mut chart,
                "scenario",
                &quantity.axis_label(),
                Some(&label),
                None,
            )?;
            for &(k, s, v, ci) in &bars {
                let x0 = k as f64 + 0.1 + s as f64 * slot;
                let color = style::series_color(s);
                let area = chart.plotting_area();
                area.draw(&Rectangle::new(
                    [(x0 + 0.01, 0.0), (x0 + slot - 0.01, v)],
                    color.filled(),
                ))?;
                let mid = x0 + slot / 2.0;
                if let Some([lo, hi]) = ci {
                    area.draw(&PathElement::new(
                        vec![(mid, lo), (mid, hi)],
                        style::TEXT.stroke_width(2),
                    ))?;
                }
                let font = style::small()
                    .color(&style::TEXT)
                    .pos(Pos::new(HPos::Center, VPos::Bottom));
                let top = ci.map_or(v, |c| c[1].max(v));
                area.draw(&Text::new(style::number(v), (mid, top + max * 0.01), font))?;
            }
        }
        Ok(())
    }
}
