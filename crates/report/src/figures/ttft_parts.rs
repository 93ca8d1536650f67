//! TTFT taken apart by load, one figure per scenario (`ttft_parts_<scenario>`), for the
//! cells with the server's own timing (`server_timing`): stacked bars of the server's queue,
//! its prefill, the rest of its TTFT and the gap (plateau's TTFT from the send minus the
//! server's), at p50 and at p99, one row of two panels per series, one bar per load (each
//! N, then each rate). Each part is its own percentile over the matched requests, so the
//! stack need not reach plateau's TTFT at that percentile, drawn as a black tick: the
//! subtitle says so. A server that reports no queue and prefill shows its TTFT whole;
//! llama.cpp's `timings` show the prefill and a gap that holds the wait for a slot.

use plateau_model::load::Load;
use plateau_model::metrics::Distribution;
use plateau_model::server_timing::{GapBasis, ServerTimingSummary, client_ttft_ms};
use plotters::prelude::*;

use super::axes::{self, Ticks};
use super::frame::{Area, DrawError, Frame, Swatch};
use super::timeline::file_part;
use crate::matrix::{Matrix, Scenario};
use crate::style;

/// One part of a stacked bar.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Part {
    /// The server's queue (`queue_ms`).
    Queue,
    /// The server's prefill (`prefill_ms`).
    Prefill,
    /// The rest of the server's TTFT (`other_ms`).
    Rest,
    /// The server's TTFT whole, when it does not report its queue and prefill (`ttft_ms`).
    Server,
    /// The gap: plateau's TTFT from the send minus the server's (`gap_ms`).
    Gap,
}

impl Part {
    /// Every part, in stacking order (bottom first).
    pub const ALL: [Part; 5] = [
        Part::Queue,
        Part::Prefill,
        Part::Rest,
        Part::Server,
        Part::Gap,
    ];

    /// The distribution of this part in `st`, if the bar shows it: the queue, prefill and
    /// rest when the server reports the rest (its TTFT minus queue and prefill, per request);
    /// the server's TTFT whole when it does not; the prefill alone for llama.cpp.
    pub fn of(self, st: &ServerTimingSummary) -> Option<&Distribution> {
        let divided = st.other_ms.is_some();
        match self {
            Part::Queue if divided => st.queue_ms.as_ref(),
            Part::Prefill if divided || st.gap_basis == GapBasis::ServerPrefill => {
                st.prefill_ms.as_ref()
            }
            Part::Rest => st.other_ms.as_ref(),
            Part::Server if !divided && st.gap_basis == GapBasis::ServerTtft => st.ttft_ms.as_ref(),
            Part::Gap => st.gap_ms.as_ref(),
            _ => None,
        }
    }

    /// The legend's words.
    pub fn label(self) -> &'static str {
        match self {
            Part::Queue => "server queue",
            Part::Prefill => "server prefill",
            Part::Rest => "rest of the server's TTFT",
            Part::Server => "server TTFT (not divided by the engine)",
            Part::Gap => "gap: plateau's TTFT − the server's (network, HTTP, API layer)",
        }
    }

    fn color(self) -> RGBColor {
        match self {
            Part::Queue => style::series_color(1),
            Part::Prefill => style::series_color(0),
            Part::Rest => style::series_color(4),
            Part::Server => style::series_color(3),
            Part::Gap => style::series_color(5),
        }
    }
}

/// Reads one percentile of a distribution.
pub type Percentile = fn(&Distribution) -> f64;

/// The two percentiles drawn, one panel each.
pub const PERCENTILES: [(&str, Percentile); 2] = [("p50", |d| d.p50), ("p99", |d| d.p99)];

/// One stacked bar: a cell at one percentile.
#[derive(Clone, Debug, PartialEq)]
pub struct Bar {
    /// Index into [`Matrix::series`].
    pub series: usize,
    /// The cell's load.
    pub load: Load,
    /// The parts the summary has, in stacking order, ms.
    pub parts: Vec<(Part, f64)>,
    /// plateau's TTFT at this percentile from the send, ms.
    pub client: Option<f64>,
}

/// The TTFT parts of one scenario.
pub struct TtftParts<'a> {
    /// The cells.
    pub m: &'a Matrix<'a>,
    /// Index into [`Matrix::scenarios`].
    pub scenario: usize,
}

/// One figure per scenario with a cell that has the server's timing, in the matrix's order.
pub fn all<'a>(m: &'a Matrix<'a>) -> Vec<TtftParts<'a>> {
    (0..m.scenarios.len())
        .map(|scenario| TtftParts { m, scenario })
        .filter(|p| !p.loads().is_empty())
        .collect()
}

impl TtftParts<'_> {
    fn scenario(&self) -> &Scenario {
        &self.m.scenarios[self.scenario]
    }

    /// File name without extension.
    pub fn name(&self) -> String {
        format!("ttft_parts_{}", file_part(&self.scenario().id))
    }

    /// Title.
    pub fn title(&self) -> String {
        format!(
            "TTFT taken apart by load: server queue, prefill and the gap · {}",
            self.scenario().title()
        )
    }

    /// The loads with the server's timing in this scenario, closed loop (by N) then open
    /// loop (by rate): the x axis of every panel.
    pub fn loads(&self) -> Vec<Load> {
        let mut loads: Vec<Load> = Vec::new();
        for cell in self.m.all() {
            if cell.scenario == self.scenario
                && cell.summary.server_timing.is_some()
                && !loads.contains(&cell.load)
            {
                loads.push(cell.load);
            }
        }
        let key = |l: &Load| match l {
            Load::Concurrency(n) => (0, f64::from(*n)),
            Load::Rate(r) => (1, r.rps),
        };
        loads.sort_by(|a, b| key(a).0.cmp(&key(b).0).then(key(a).1.total_cmp(&key(b).1)));
        loads
    }

    /// The series with the server's timing in this scenario: one row of panels each.
    pub fn series(&self) -> Vec<usize> {
        (0..self.m.series.len())
            .filter(|&s| !self.bars(s, PERCENTILES[0].1).is_empty())
            .collect()
    }

    /// The bars of `series` at the percentile `at` reads, by load.
    pub fn bars(&self, series: usize, at: Percentile) -> Vec<Bar> {
        self.m
            .all()
            .filter(|c| c.scenario == self.scenario && c.series == series)
            .filter_map(|c| {
                let st = c.summary.server_timing.as_ref()?;
                let parts: Vec<(Part, f64)> = Part::ALL
                    .iter()
                    .filter_map(|&p| Some((p, at(p.of(st)?))))
                    .collect();
                (!parts.is_empty()).then(|| Bar {
                    series,
                    load: c.load,
                    parts,
                    client: client_ttft_ms(&c.summary.metrics).map(at),
                })
            })
            .collect()
    }

    fn frame(&self) -> Frame {
        let drawn: Vec<Part> = Part::ALL
            .into_iter()
            .filter(|p| {
                self.series().into_iter().any(|s| {
                    let bars = self.bars(s, PERCENTILES[0].1);
                    bars.iter().any(|b| b.parts.iter().any(|x| x.0 == *p))
                })
            })
            .collect();
        let mut legend: Vec<(Swatch, String)> = drawn
            .into_iter()
            .map(|p| (Swatch::Block(p.color()), p.label().into()))
            .collect();
        legend.push((
            Swatch::Line(style::TEXT),
            "tick: plateau's TTFT at the percentile, from the send".into(),
        ));
        Frame {
            title: self.title(),
            subtitle: format!(
                "{} · each part is its own percentile over the requests the server timed: the \
                 parts' percentiles do not add up exactly to the tick",
                self.m.subtitle()
            ),
            legend,
        }
    }

    /// Width and height, px: two panels a row, one row per series, wide enough for the bars.
    pub fn size(&self) -> (u32, u32) {
        let panel_w = (self.loads().len() as u32 * 56 + 200).max(style::PANEL_W);
        let w = (2 * panel_w).max(self.frame().min_width());
        let rows = self.series().len().max(1) as u32;
        (w, self.frame().height(w) + rows * style::PANEL_H)
    }

    /// Draws the figure.
    pub fn draw<DB: DrawingBackend>(&self, root: &Area<DB>) -> Result<(), DrawError> {
        let body = self.frame().draw(root)?;
        let series = self.series();
        let loads = self.loads();
        let panels = body.split_evenly((series.len().max(1), 2));
        let cells = series
            .iter()
            .flat_map(|&s| PERCENTILES.iter().map(move |&(q, at)| (s, q, at)));
        for (panel, (s, q, at)) in panels.iter().zip(cells) {
            let bars = self.bars(s, at);
            self.panel(panel, s, q, &loads, &bars)?;
        }
        Ok(())
    }

    fn panel<DB: DrawingBackend>(
        &self,
        panel: &Area<DB>,
        series: usize,
        q: &str,
        loads: &[Load],
        bars: &[Bar],
    ) -> Result<(), DrawError> {
        let sum = |b: &Bar, positive: bool| -> f64 {
            b.parts
                .iter()
                .map(|p| p.1)
                .filter(|v| (*v >= 0.0) == positive)
                .sum()
        };
        let hi = bars
            .iter()
            .map(|b| sum(b, true).max(b.client.unwrap_or(0.0)))
            .fold(0.0, f64::max);
        let lo = bars.iter().map(|b| sum(b, false)).fold(0.0, f64::min);
        let top = axes::up_to(hi).end;
        let y = Ticks::linear(if lo < 0.0 { lo * 1.1..top } else { 0.0..top });
        let caption = format!("{} · {q}", self.m.series[series].label);
        let mut chart = axes::chart(panel, &caption, Ticks::categories(loads.len()), y)?;
        let label = |v: &f64| {
            loads
                .get(v.floor() as usize)
                .map(ToString::to_string)
                .unwrap_or_default()
        };
        let y_desc = format!("TTFT {q} and its parts (ms)");
        axes::mesh(&mut chart, "load", &y_desc, Some(&label), None)?;
        let area = chart.plotting_area();
        for b in bars {
            let Some(x) = loads.iter().position(|l| *l == b.load) else {
                continue;
            };
            let (x0, x1) = (x as f64 + 0.2, x as f64 + 0.8);
            let (mut up, mut down) = (0.0, 0.0);
            for &(part, v) in &b.parts {
                let base = if v >= 0.0 { &mut up } else { &mut down };
                area.draw(&Rectangle::new(
                    [(x0, *base), (x1, *base + v)],
                    part.color().filled(),
                ))?;
                *base += v;
            }
            if let Some(c) = b.client {
                area.draw(&PathElement::new(
                    vec![(x0 - 0.08, c), (x1 + 0.08, c)],
                    style::TEXT.stroke_width(3),
                ))?;
            }
        }
        Ok(())
    }
}
