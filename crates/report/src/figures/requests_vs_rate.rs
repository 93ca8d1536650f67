//! Request rates against the open loop's target rate: what the server achieved beside what
//! the client offered, and the goodput (requests meeting every SLO per second) beside the
//! achieved rate. One panel per scenario with open-loop cells, one colour per series, the
//! diagonal y = x (the target itself), overloaded cells crossed, and each series' capacity
//! from `capacity.json` as a vertical line. Where the rates count session starts
//! (`rate_unit: sessions`), achieved and offered are session starts per second, in the
//! target's unit; goodput stays in requests per second, so its figure then has no diagonal.

use plateau_model::config::RateUnit;
use plateau_model::results::capacity::CapacityReport;
use plateau_model::results::summary::CellSummary;
use plotters::prelude::*;

use super::axes::{self, Ticks};
use super::frame::{self, Area, DrawError, Frame, Swatch};
use super::rate::{self, Point};
use crate::matrix::Matrix;
use crate::quantity::{self as q, Quantity, Reading};
use crate::style;

/// A reading of a cell and the legend's words for it.
pub type Read = (fn(&CellSummary) -> Option<Reading>, &'static str);

/// One line per series: what it reads from a cell whose rate counts requests, and from one
/// whose rate counts session starts.
pub struct Line {
    /// The quantity for request-rate cells, with its legend words.
    pub requests: (Quantity, &'static str),
    /// The reading for session-rate cells (in sessions/s); `None`: the requests' quantity
    /// for them too, so the y axis counts requests whatever the x axis counts.
    pub sessions: Option<Read>,
}

impl Line {
    /// The value of cell `s` on this line, in its own rate's unit where the line has one.
    pub fn read(&self, s: &CellSummary) -> Option<Reading> {
        match self.sessions {
            Some((read, _)) if s.cell.load.rate_unit == Some(RateUnit::Sessions) => read(s),
            _ => (self.requests.0.read)(s),
        }
    }
}

/// One figure: a solid and a dashed line per series.
pub struct Spec {
    /// File name without extension.
    pub name: &'static str,
    /// Title, and the title when every open-loop cell's rate counts session starts.
    pub title: [&'static str; 2],
    /// Solid line, then dashed line.
    pub lines: [Line; 2],
}

/// Achieved vs offered.
pub const ACHIEVED: Spec = Spec {
    name: "achieved_vs_offered_rate",
    title: [
        "Achieved vs offered request rate (open loop)",
        "Achieved vs offered session start rate (open loop)",
    ],
    lines: [
        Line {
            requests: (
                q::ACHIEVED_RPS,
                "achieved: requests completed per second in the window",
            ),
            sessions: Some((
                |s| per_second(s.metrics.sessions.as_ref()?.session_starts_per_minute),
                "achieved: sessions started per second in the window",
            )),
        },
        Line {
            requests: (
                q::OFFERED_RPS,
                "offered: arrivals due per second in the window",
            ),
            sessions: Some((
                |s| {
                    per_second(
                        s.metrics
                            .sessions
                            .as_ref()?
                            .session_starts_offered_per_minute,
                    )
                },
                "offered: session starts due per second in the window",
            )),
        },
    ],
};

/// Goodput vs rate (drawn when some open-loop cell has a goodput).
pub const GOODPUT: Spec = Spec {
    name: "goodput_vs_rate",
    title: [
        "Goodput vs request rate (open loop, requests meeting every SLO)",
        "Goodput vs session start rate (open loop, requests meeting every SLO)",
    ],
    lines: [
        Line {
            requests: (
                q::GOODPUT_RPS,
                "goodput: measured requests meeting every SLO per second",
            ),
            sessions: None,
        },
        Line {
            requests: (q::ACHIEVED_RPS, "achieved: requests completed per second"),
            sessions: None,
        },
    ],
};

/// A per-minute count per second, as a reading.
fn per_second(per_minute: Option<f64>) -> Option<Reading> {
    per_minute.map(|v| Reading::plain(v / 60.0))
}

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
    /// Whether some, and whether every, open-loop cell's rate counts session starts.
    fn sessions(&self) -> (bool, bool) {
        let counts =
            |c: &crate::matrix::Cell| c.summary.cell.load.rate_unit == Some(RateUnit::Sessions);
        let some = self.m.open.iter().any(counts);
        (some, some && self.m.open.iter().all(counts))
    }

    /// Whether the y axis is in the target's unit, cell by cell (and y = x is drawn): the
    /// lines read session-rate cells in sessions/s, or there are none.
    fn same_unit(&self) -> bool {
        !self.sessions().0 || self.spec.lines.iter().all(|l| l.sessions.is_some())
    }

    /// Title: in session starts when every open-loop cell's rate counts them.
    pub fn title(&self) -> String {
        self.spec.title[usize::from(self.sessions().1)].into()
    }

    /// What the y axis counts.
    pub fn y_desc(&self) -> &'static str {
        match (self.same_unit(), self.sessions()) {
            (true, (true, true)) => "session starts/s",
            (true, (true, false)) => "requests/s or session starts/s",
            _ => "requests/s",
        }
    }

    /// The legend words of `line`: the requests', the sessions', or both.
    fn words(&self, line: &Line) -> String {
        let requests = line.requests.1;
        match (line.sessions, self.sessions()) {
            (Some((_, words)), (true, true)) => words.into(),
            (Some((_, words)), (true, false)) => format!("{requests}; {words} (session rates)"),
            _ => requests.into(),
        }
    }

    fn frame(&self) -> Frame {
        let mut legend = frame::series_legend(self.m, Swatch::Block);
        let [solid, dashed] = &self.spec.lines;
        legend.push((Swatch::Line(style::MUTED), self.words(solid)));
        legend.push((Swatch::Dashed(style::MUTED), self.words(dashed)));
        if self.same_unit() {
            legend.push((
                Swatch::Dashed(style::REFERENCE),
                "y = x: the target rate".into(),
            ));
        }
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
            title: self.title(),
            subtitle: self.m.subtitle(),
            legend,
        }
    }

    /// Width and height, px.
    pub fn size(&self) -> (u32, u32) {
        self.frame().size(self.m.open_scenarios().len())
    }

    /// Every line of scenario `k`: series, dashed, points (x the target rate, y in the
    /// unit of [`RequestsVsRate::y_desc`]).
    pub fn lines(&self, k: usize) -> Vec<(usize, bool, Vec<Point>)> {
        let reads = self
            .spec
            .lines
            .each_ref()
            .map(|l| |s: &CellSummary| l.read(s));
        rate::lines(self.m, k, &reads)
    }

    /// Draws the figure.
    pub fn draw<DB: DrawingBackend>(&self, root: &Area<DB>) -> Result<(), DrawError> {
        let scenarios = self.m.open_scenarios();
        let panels = self.frame().panels(root, scenarios.len())?;
        for (panel, &k) in panels.iter().zip(&scenarios) {
            let lines = self.lines(k);
            let caps = rate::capacities(self.capacity, self.m, k);
            let x = rate::x_range(self.m, k, caps.iter().map(|c| c.1));
            let diagonal = self.same_unit();
            let top = lines
                .iter()
                .flat_map(|l| l.2.iter().map(|p| p.y))
                .fold(if diagonal { x.end } else { 0.0 }, f64::max);
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
                self.y_desc(),
                None,
                None,
            )?;
            if diagonal {
                rate::rule(&mut chart, (0.0, 0.0), (x.end, x.end), style::REFERENCE)?;
            }
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
