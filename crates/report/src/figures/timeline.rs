//! One cell over its whole life: output tokens/s and requests in flight (the core's
//! [`timeline`]) with Fill, Stabilize, Measure and Drain shaded, the per-second series the
//! steady-state verdict judged, and the verdict in the subtitle, so a reader can see the
//! measure window was steady. A closed-loop cell shows its target N as a line; an open-loop
//! cell names its target rate in the legend (requests outstanding have no target). When the
//! server's `/metrics` was scraped, its own running and waiting counts share the in-flight
//! axis and its KV-cache usage is drawn with 100% at that axis' top, each as [`steps`]: a
//! scraped level holds until the next scrape. Failed requests are red crosses at the
//! instant they ended, and requests the server turned away (429, 503, no connection) red
//! triangles, both along the bottom; neither is drawn, nor in the legend, when there are
//! none (requests cut by Ctrl-C are not failures of the server). The legend names the
//! per-second series and each phase only when drawn.

use plateau_model::load::Load;
use plateau_model::metrics::{TimelinePoint, timeline};
use plateau_model::phase::Phase;
use plateau_model::results::summary::CellSummary;
use plateau_model::sample::{Outcome, Sample};
use plateau_model::scrape::summary::Point;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::axes;
use super::frame::{Area, DrawError, Frame, Swatch};
use super::marks::{self, Face, Mark, Shape};
use super::steps::steps;
use crate::style;

/// Bucket lengths to choose from, us: the shortest giving at most 100 buckets, 1 s at most.
const BUCKETS_US: [u64; 5] = [100_000, 200_000, 250_000, 500_000, 1_000_000];

const TOKENS: RGBColor = RGBColor(0, 114, 178);
const IN_FLIGHT: RGBColor = RGBColor(213, 94, 0);
const SERVER_RUNNING: RGBColor = RGBColor(0, 158, 115);
const SERVER_WAITING: RGBColor = RGBColor(204, 121, 167);
const SERVER_KV: RGBColor = RGBColor(86, 180, 233);

/// The timeline figure of one cell.
pub struct Timeline<'a> {
    /// The cell.
    pub cell: &'a CellSummary,
    /// Its load.
    pub load: Load,
    /// Its timeline.
    pub points: Vec<TimelinePoint>,
    /// Bucket length, s.
    pub bucket_s: f64,
    /// The server's own gauges at each scrape of its `/metrics` (empty when not scraped).
    pub server: Vec<Point>,
    /// When each failed request ended, s, and whether the server turned it away.
    pub errors: Vec<(f64, bool)>,
}

/// The mark of a failed request (`rejected`: turned away).
fn error_mark(rejected: bool) -> Mark {
    Mark {
        shape: if rejected {
            Shape::Triangle
        } else {
            Shape::Cross
        },
        color: style::ALERT,
        face: Face::Solid,
    }
}

impl<'a> Timeline<'a> {
    /// The timeline of `cell` (at `load`) from its request records.
    pub fn new(cell: &'a CellSummary, load: Load, samples: &[Sample]) -> Timeline<'a> {
        let end_us = cell.phases.end_us;
        let bucket_us = BUCKETS_US
            .into_iter()
            .find(|&b| end_us.div_ceil(b) <= 100)
            .unwrap_or(1_000_000);
        Timeline {
            cell,
            load,
            points: timeline(samples, end_us, bucket_us),
            bucket_s: bucket_us as f64 / 1e6,
            server: Vec::new(),
            errors: samples
                .iter()
                .filter(|s| s.outcome.is_error() && s.outcome != Outcome::Interrupted)
                .map(|s| (s.t_end_us as f64 / 1e6, s.outcome.is_rejected()))
                .collect(),
        }
    }

    /// The same figure with the server's running, waiting and KV usage drawn over it.
    pub fn with_server(mut self, server: Vec<Point>) -> Self {
        self.server = server;
        self
    }

    /// The server's gauge `f` as (s, value) where scraped.
    fn server_line(&self, f: impl Fn(&Point) -> Option<f64>) -> Vec<(f64, f64)> {
        self.server
            .iter()
            .filter_map(|p| f(p).map(|v| (p.t_us as f64 / 1e6, v)))
            .collect()
    }

    /// Fill, Stabilize, Measure and Drain as (from, to), s.
    fn phase_spans(&self) -> [(f64, f64); 4] {
        let p = &self.cell.phases;
        let s = |us: u64| us as f64 / 1e6;
        [
            (0.0, p.fill_s),
            (p.fill_s, s(p.m0_us)),
            (s(p.m0_us), s(p.m1_us)),
            (s(p.m1_us), s(p.drain_end_us)),
        ]
    }

    /// File name without extension: `timeline_<endpoint>_<model>_<scenario>_<c8|r2.5>`.
    pub fn name(&self) -> String {
        let c = &self.cell.cell;
        format!(
            "timeline_{}_{}_{}_{}",
            file_part(&c.endpoint),
            file_part(&c.model),
            file_part(&c.scenario),
            file_part(&self.load.dir_name())
        )
    }

    /// Title.
    pub fn title(&self) -> String {
        let c = &self.cell.cell;
        format!(
            "Timeline of {}/{}/{}/{}",
            c.endpoint,
            c.model,
            c.scenario,
            self.load.dir_name()
        )
    }

    fn frame(&self) -> Frame {
        let c = &self.cell.cell;
        let steady = &self.cell.metrics.steady;
        let verdict = if steady.steady {
            let cv = steady.cv.map_or("–".into(), |v| format!("{v:.2}"));
            let trend = steady.trend.map_or("–".into(), |v| format!("{v:+.2}"));
            format!("steady (cv {cv}, trend {trend})")
        } else {
            format!("NOT steady: {}", steady.reasons.join("; "))
        };
        let mut legend = vec![(
            Swatch::Line(TOKENS),
            format!("output tokens/s, {} s buckets (left axis)", self.bucket_s),
        )];
        if !steady.output_tps_per_second.is_empty() {
            legend.push((
                Swatch::Dot(style::TEXT),
                "per-second series the steady verdict judged".into(),
            ));
        }
        legend.push((
            Swatch::Line(IN_FLIGHT),
            "requests in flight (right axis)".into(),
        ));
        legend.push(match self.load {
            Load::Concurrency(n) => (Swatch::Dashed(style::MUTED), format!("target N = {n}")),
            Load::Rate(_) => (Swatch::Block(WHITE), format!("target {}", self.load)),
        });
        let has = |f: fn(&Point) -> Option<f64>| self.server.iter().any(|p| f(p).is_some());
        if has(|p| p.running) {
            legend.push((
                Swatch::Line(SERVER_RUNNING),
                "server: requests running, as scraped (right axis)".into(),
            ));
        }
        if has(|p| p.waiting) {
            legend.push((
                Swatch::Line(SERVER_WAITING),
                "server: requests waiting, as scraped (right axis)".into(),
            ));
        }
        if has(|p| p.kv_cache_usage) {
            legend.push((
                Swatch::Line(SERVER_KV),
                "server: KV-cache usage (100% at the right axis' top)".into(),
            ));
        }
        let rejected = self.errors.iter().filter(|e| e.1).count();
        let failed = self.errors.len() - rejected;
        if failed > 0 {
            legend.push((
                Swatch::Mark(error_mark(false)),
                format!("failed request, at its end ({failed})"),
            ));
        }
        if rejected > 0 {
            legend.push((
                Swatch::Mark(error_mark(true)),
                format!("turned away: 429, 503 or no connection ({rejected})"),
            ));
        }
        for ((phase, color), (a, b)) in Phase::ALL.iter().zip(style::PHASES).zip(self.phase_spans())
        {
            if b > a {
                legend.push((Swatch::Block(color), phase.name().into()));
            }
        }
        Frame {
            title: self.title(),
            subtitle: format!(
                "{} ({}) · model {} · scenario {} {} · {verdict}",
                c.endpoint,
                c.engine.as_str(),
                c.model_name,
                c.scenario,
                self.cell.workload.name
            ),
            legend,
        }
    }

    /// Width and height, px.
    pub fn size(&self) -> (u32, u32) {
        let w = 1400;
        (w, self.frame().height(w) + 520)
    }

    /// Draws the figure.
    pub fn draw<DB: DrawingBackend>(&self, root: &Area<DB>) -> Result<(), DrawError> {
        let body = self.frame().draw(root)?;
        let end = (self.cell.phases.end_us as f64 / 1e6).max(self.bucket_s);
        let steady = &self.cell.metrics.steady.output_tps_per_second;
        let top = self
            .points
            .iter()
            .map(|p| p.output_tps)
            .chain(steady.iter().copied())
            .fold(0.0, f64::max);
        let n = self.load.concurrency().map(f64::from);
        let flight_top = self
            .points
            .iter()
            .map(|p| p.in_flight)
            .chain(
                self.server
                    .iter()
                    .flat_map(|p| [p.running, p.waiting])
                    .flatten(),
            )
            .fold(n.unwrap_or(0.0), f64::max)
            * 1.15;
        let y = axes::up_to(top);
        let mut chart = ChartBuilder::on(&body)
            .margin_left(8)
            .margin_right(8)
            .margin_bottom(8)
            .x_label_area_size(50)
            .y_label_area_size(80)
            .right_y_label_area_size(70)
            .build_cartesian_2d(0.0..end, y.clone())?
            .set_secondary_coord(0.0..end, 0.0..flight_top.max(1.0));
        let spans = self.phase_spans();
        for (((a, b), color), phase) in spans.into_iter().zip(style::PHASES).zip(Phase::ALL) {
            if b <= a {
                continue;
            }
            let area = chart.plotting_area();
            area.draw(&Rectangle::new([(a, 0.0), (b, y.end)], color.filled()))?;
            if (b - a) / end > 0.07 {
                let font = style::label()
                    .color(&style::MUTED)
                    .pos(Pos::new(HPos::Center, VPos::Top));
                area.draw(&Text::new(
                    phase.name(),
                    ((a + b) / 2.0, y.end * 0.985),
                    font,
                ))?;
            }
        }
        axes::mesh(
            &mut chart,
            "time since the cell started (s)",
            "output tokens/s",
            None,
            None,
        )?;
        let tick = |v: &f64| style::tick(*v);
        chart
            .configure_secondary_axes()
            .y_desc("requests in flight")
            .y_label_formatter(&tick)
            .axis_desc_style(style::label().color(&style::TEXT))
            .label_style(style::small().color(&style::TEXT))
            .draw()?;
        let step = |f: fn(&TimelinePoint) -> f64| {
            let levels: Vec<(f64, f64)> = self.points.iter().map(|q| (q.t_s, f(q))).collect();
            steps(&levels, end)
        };
        if let Some(n) = n {
            chart.draw_secondary_series(DashedLineSeries::new(
                [(0.0, n), (end, n)],
                8,
                6,
                style::MUTED.stroke_width(2),
            ))?;
        }
        chart.draw_secondary_series(LineSeries::new(
            step(|q| q.in_flight),
            IN_FLIGHT.stroke_width(2),
        ))?;
        let kv_scale = flight_top.max(1.0);
        for (line, color) in [
            (self.server_line(|p| p.running), SERVER_RUNNING),
            (self.server_line(|p| p.waiting), SERVER_WAITING),
            (
                self.server_line(|p| p.kv_cache_usage.map(|u| u * kv_scale)),
                SERVER_KV,
            ),
        ] {
            if !line.is_empty() {
                chart.draw_secondary_series(LineSeries::new(
                    steps(&line, end),
                    color.stroke_width(2),
                ))?;
            }
        }
        chart.draw_series(LineSeries::new(
            step(|q| q.output_tps),
            TOKENS.stroke_width(2),
        ))?;
        let m0 = spans[2].0;
        chart.draw_series(
            steady
                .iter()
                .enumerate()
                .map(|(k, &v)| Circle::new((m0 + k as f64 + 0.5, v), 4, style::TEXT.filled())),
        )?;
        for &(t, rejected) in &self.errors {
            let row = if rejected { 0.09 } else { 0.04 };
            marks::draw(
                chart.plotting_area(),
                (t.min(end), y.end * row),
                error_mark(rejected),
            )?;
        }
        Ok(())
    }
}

/// `text` made safe for a file name: letters, digits, `.`, `-` and `_` kept, anything else
/// becomes `-`.
pub fn file_part(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_') {
                c
            } else {
                '-'
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::file_part;

    #[test]
    fn file_names_are_safe() {
        assert_eq!(file_part("meta-llama/Llama 3.1"), "meta-llama-Llama-3.1");
        assert_eq!(file_part("sim-8b"), "sim-8b");
    }
}
