//! TTFT against prompt length for multi-turn scenarios (D: each turn resends the growing
//! history): every measured successful request as a dot at (prompt tokens, TTFT), coloured
//! by its cell's load ([`super::cdf::load_colors`]), one panel per series and multi-turn
//! scenario. A server that reuses the cached history keeps TTFT flat as prompts grow; one
//! that prefills every prompt again shows TTFT climbing with its length.

use plotters::prelude::*;

use super::axes::{self, Ticks};
use super::cdf::{color_of, load_colors};
use super::frame::{Area, DrawError, Frame, Swatch};
use super::requests::{CellRequests, MAX_POINTS};
use crate::matrix::{Cell, Matrix};

/// Dot radius, px.
const R: i32 = 3;

/// The figure.
pub struct PromptTtft<'a> {
    /// The cells.
    pub m: &'a Matrix<'a>,
    /// The cells whose requests were read, with what was read.
    pub requests: &'a [(Cell<'a>, CellRequests)],
}

impl PromptTtft<'_> {
    /// File name without extension.
    pub const NAME: &'static str = "ttft_vs_prompt_length";

    /// Title.
    pub const TITLE: &'static str = "TTFT vs prompt length, multi-turn scenarios";

    /// `(series, scenario)` panels: those with a multi-turn cell that has points.
    fn panels(&self) -> Vec<(usize, usize)> {
        let mut out: Vec<(usize, usize)> = self
            .requests
            .iter()
            .filter(|(_, r)| r.multi_turn && !r.prompt_ttft.is_empty())
            .map(|(c, _)| (c.series, c.scenario))
            .collect();
        out.sort_unstable_by_key(|&(s, k)| (k, s));
        out.dedup();
        out
    }

    /// Whether the figure has anything to draw (no multi-turn cell: nothing).
    pub fn is_empty(&self) -> bool {
        self.panels().is_empty()
    }

    fn frame(&self) -> Frame {
        let drawn = |load| {
            self.requests
                .iter()
                .any(|(c, r)| c.load == load && r.multi_turn && !r.prompt_ttft.is_empty())
        };
        let legend: Vec<(Swatch, String)> = load_colors(self.m)
            .into_iter()
            .filter(|&(load, _)| drawn(load))
            .map(|(load, c)| (Swatch::Dot(c), load.to_string()))
            .collect();
        let thinned = self
            .requests
            .iter()
            .any(|(_, r)| r.prompt_n > r.prompt_ttft.len());
        let mut subtitle = format!(
            "{} · each dot one measured successful request",
            self.m.subtitle()
        );
        if thinned {
            subtitle.push_str(&format!(" (at most {MAX_POINTS} per cell, evenly spaced)"));
        }
        Frame {
            title: Self::TITLE.into(),
            subtitle,
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
        let panels = self.panels();
        let areas = self.frame().panels(root, panels.len())?;
        for (panel, &(s, k)) in areas.iter().zip(&panels) {
            let cells: Vec<&(Cell, CellRequests)> = self
                .requests
                .iter()
                .filter(|(c, _)| c.series == s && c.scenario == k)
                .collect();
            let points = || cells.iter().flat_map(|(_, r)| r.prompt_ttft.iter());
            let x_top = points().map(|p| p.0).fold(0.0, f64::max);
            let y_top = points().map(|p| p.1).fold(0.0, f64::max);
            let caption = if self.m.series.len() > 1 {
                format!(
                    "{} · {}",
                    self.m.scenarios[k].title(),
                    self.m.series[s].label
                )
            } else {
                self.m.scenarios[k].title()
            };
            let mut chart = axes::chart(
                panel,
                &caption,
                Ticks::linear(axes::up_to(x_top)),
                Ticks::linear(axes::up_to(y_top)),
            )?;
            axes::mesh(&mut chart, "prompt tokens", "TTFT (ms)", None, None)?;
            for (cell, r) in cells {
                let color = color_of(&colors, cell.load);
                chart.draw_series(
                    r.prompt_ttft
                        .iter()
                        .map(|&p| Circle::new(p, R, color.mix(0.7).filled())),
                )?;
            }
        }
        Ok(())
    }
}
