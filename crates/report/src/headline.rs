//! The headline that opens report.html and summary.md: per scenario and series, the few
//! numbers a reader wants first (GuideLLM opens with such cards). Every value is read from
//! the summaries through [`crate::quantity`]; where a number does not exist the headline
//! says why ("not steady", "no SLO set") instead of showing one.
//!
//! - peak sustained throughput: the highest server throughput (direct) of a cell that
//!   completed, was steady and not overloaded, with its load;
//! - knee: the smallest N whose steady server throughput reaches [`KNEE_SHARE`] of the
//!   closed loop's steady peak, when throughput has flattened by then (not at the largest
//!   N, where it may still be climbing);
//! - SLO: the first N (and the first request rate) whose TTFT p99 is above the TTFT SLO
//!   ([`Slo`]);
//! - overload (open loop): the lowest rate whose queue grew, with what the server completed
//!   there, and the highest rate it kept up with;
//! - error rate: failed / measured requests over the scenario's cells that were not
//!   overloaded (an overloaded cell's measured requests fail by waiting in its queue).

use plateau_model::config::RunConfig;
use plateau_model::load::Load;
use plateau_model::results::capacity::CapacityReport;
use plateau_model::results::summary::{CellStatus, CellSummary};

use crate::matrix::{Cell, Matrix};
use crate::quantity as q;
use crate::style::{number, tick};

/// The share of the peak that marks the knee: the smallest N reaching it gives most of
/// what the server can do at the lowest latency.
pub const KNEE_SHARE: f64 = 0.9;

/// The TTFT p99 bound the headline judges by.
#[derive(Clone, Debug, PartialEq)]
pub enum Slo {
    /// A bound, ms, and where it came from.
    TtftP99 {
        /// The bound, ms.
        ms: f64,
        /// `capacity.slo.ttft_p99_ms`, or `slo.ttft_ms` (a per-request bound: a p99 above
        /// it means more than 1% of requests miss it).
        source: &'static str,
    },
    /// No TTFT bound is configured.
    Unset,
    /// Several runs side by side: each has its own.
    PerRun,
}

impl Slo {
    /// The TTFT bound of a run: `capacity.json`'s TTFT p99 bound, else the configured
    /// capacity SLO's, else the goodput SLO's per-request TTFT bound.
    pub fn of(capacity: Option<&CapacityReport>, config: Option<&RunConfig>) -> Slo {
        let capacity_slo = capacity
            .map(|c| &c.slo)
            .or_else(|| config?.capacity.as_ref().map(|c| &c.slo));
        if let Some(ms) = capacity_slo.and_then(|s| s.ttft_p99_ms) {
            return Slo::TtftP99 {
                ms,
                source: "capacity.slo.ttft_p99_ms",
            };
        }
        match config.and_then(|c| c.slo.as_ref()).and_then(|s| s.ttft_ms) {
            Some(ms) => Slo::TtftP99 {
                ms,
                source: "slo.ttft_ms",
            },
            None => Slo::Unset,
        }
    }
}

/// One number of a card: what it is, the value, and what qualifies it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fact {
    /// `peak sustained throughput`.
    pub label: &'static str,
    /// `262 tok/s`, or the words that stand in for a number (`not steady`).
    pub value: String,
    /// `at N=16`, `the smallest N reaching 90% of the peak`, ...
    pub detail: String,
}

/// The headline of one series in one scenario.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Card {
    /// The scenario's title (`A1 · Same Short`).
    pub scenario: String,
    /// The series' label; `None` when the run has one series.
    pub series: Option<String>,
    /// Its facts, in reading order.
    pub facts: Vec<Fact>,
}

/// The cards of `m`, scenario by scenario, series by series (a series without cells in a
/// scenario has no card there).
pub fn cards(m: &Matrix, slo: &Slo) -> Vec<Card> {
    let many = m.series.len() > 1;
    let mut out = Vec::new();
    for (k, scenario) in m.scenarios.iter().enumerate() {
        for (s, series) in m.series.iter().enumerate() {
            let cells: Vec<&Cell> = m
                .all()
                .filter(|c| c.series == s && c.scenario == k)
                .collect();
            if cells.is_empty() {
                continue;
            }
            let mut facts = vec![peak(&cells), knee(&m.line(s, k)), slo_crossing(&cells, slo)];
            facts.extend(overload(&cells));
            facts.push(errors(&cells));
            out.push(Card {
                scenario: scenario.title(),
                series: many.then(|| series.label.clone()),
                facts,
            });
        }
    }
    out
}

/// Whether `s` may stand for what the server sustains: complete, steady, not overloaded.
fn sustained(s: &CellSummary) -> bool {
    s.status == CellStatus::Complete && s.metrics.steady.steady && !s.metrics.steady.overloaded
}

/// The server throughput of `s` as text (`262 tok/s`).
fn tps(s: &CellSummary) -> Option<String> {
    Some(format!("{} {}", q::SERVER_TPS.text(s)?, q::SERVER_TPS.unit))
}

/// The highest server throughput among `cells` that `keep`, with its cell.
fn best<'a>(cells: &[&Cell<'a>], keep: impl Fn(&CellSummary) -> bool) -> Option<(Load, f64)> {
    cells
        .iter()
        .filter(|c| keep(c.summary))
        .filter_map(|c| Some((c.load, q::SERVER_TPS.value(c.summary)?)))
        .max_by(|a, b| a.1.total_cmp(&b.1))
}

fn peak(cells: &[&Cell]) -> Fact {
    let label = "peak sustained throughput";
    let text = |load: Load| {
        cells
            .iter()
            .find(|c| c.load == load)
            .and_then(|c| tps(c.summary))
            .unwrap_or_default()
    };
    match (best(cells, sustained), best(cells, |_| true)) {
        (Some((load, _)), _) => Fact {
            label,
            value: text(load),
            detail: format!("at {load}, the highest steady cell"),
        },
        (None, Some((load, _))) => Fact {
            label,
            value: "not steady".into(),
            detail: format!(
                "no cell was steady; the highest, {} at {load}, is not sustained",
                text(load)
            ),
        },
        (None, None) => Fact {
            label,
            value: "–".into(),
            detail: "no cell has a server throughput".into(),
        },
    }
}

fn knee(line: &[(u32, &CellSummary)]) -> Fact {
    let label = "knee";
    let steady: Vec<(u32, f64)> = line
        .iter()
        .filter(|(_, s)| sustained(s))
        .filter_map(|&(n, s)| Some((n, q::SERVER_TPS.value(s)?)))
        .collect();
    let share = format!("{:.0}%", KNEE_SHARE * 100.0);
    if line.is_empty() {
        return Fact {
            label,
            value: "–".into(),
            detail: "no closed-loop cells: the knee is over N".into(),
        };
    }
    let Some(&(peak_n, peak)) = steady.iter().max_by(|a, b| a.1.total_cmp(&b.1)) else {
        return Fact {
            label,
            value: "not steady".into(),
            detail: "no steady closed-loop cell".into(),
        };
    };
    if steady.len() < 2 {
        return Fact {
            label,
            value: "–".into(),
            detail: format!("one steady concurrency (N={peak_n}): nothing to compare"),
        };
    }
    let largest = steady.iter().map(|p| p.0).max().unwrap_or(peak_n);
    match steady.iter().find(|p| p.1 >= KNEE_SHARE * peak) {
        Some(&(n, v)) if n < largest => Fact {
            label,
            value: format!("N={n}"),
            detail: format!(
                "the smallest N reaching {share} of the peak: {} of {} tok/s",
                number(v),
                number(peak)
            ),
        },
        _ => Fact {
            label,
            value: "not reached".into(),
            detail: format!(
                "throughput still climbs at the largest steady N={largest}: only it \
                 reaches {share} of its own peak"
            ),
        },
    }
}

fn slo_crossing(cells: &[&Cell], slo: &Slo) -> Fact {
    let label = "TTFT p99 crosses the SLO";
    let (ms, source) = match slo {
        Slo::TtftP99 { ms, source } => (*ms, *source),
        Slo::Unset => {
            return Fact {
                label,
                value: "no SLO set".into(),
                detail: "set capacity.slo.ttft_p99_ms or slo.ttft_ms".into(),
            };
        }
        Slo::PerRun => {
            return Fact {
                label,
                value: "–".into(),
                detail: "several runs side by side: each has its own SLO".into(),
            };
        }
    };
    let mut crossed = Vec::new();
    let mut details = Vec::new();
    for (closed, name) in [(true, "closed loop"), (false, "open loop")] {
        let loop_cells: Vec<&&Cell> = cells
            .iter()
            .filter(|c| matches!(c.load, Load::Concurrency(_)) == closed)
            .collect();
        let Some(largest) = loop_cells.last() else {
            continue;
        };
        let crossing = loop_cells.iter().find_map(|c| {
            let r = (q::TTFT_P99.read)(c.summary)?;
            (r.value > ms).then_some((c.load, r))
        });
        match crossing {
            Some((load, r)) => {
                crossed.push(load.to_string());
                let small = if r.small_sample {
                    " (from too few samples: indicative)"
                } else {
                    ""
                };
                details.push(format!(
                    "{name}: TTFT p99 {} ms at {load}{small}",
                    number(r.value)
                ));
            }
            None => details.push(format!("{name}: not crossed up to {}", largest.load)),
        }
    }
    Fact {
        label,
        value: if crossed.is_empty() {
            "not crossed".into()
        } else {
            crossed.join(" · ")
        },
        detail: format!(
            "{}; SLO TTFT p99 ≤ {} ms ({source})",
            details.join("; "),
            tick(ms)
        ),
    }
}

/// The open-loop cells' overload: the lowest rate whose queue grew and what the server
/// completed there; `None` without open-loop cells.
fn overload(cells: &[&Cell]) -> Option<Fact> {
    let open: Vec<&&Cell> = cells
        .iter()
        .filter(|c| matches!(c.load, Load::Rate(_)))
        .collect();
    let label = "overloaded";
    let largest = open.last()?;
    let kept_up = open
        .iter()
        .rfind(|c| c.summary.status == CellStatus::Complete && !c.summary.metrics.steady.overloaded)
        .map(|c| format!("; the highest rate it kept up with: {}", c.load))
        .unwrap_or_default();
    Some(
        match open.iter().find(|c| c.summary.metrics.steady.overloaded) {
            Some(c) => Fact {
                label,
                value: format!("from {}", c.load),
                detail: format!(
                    "arrivals outpaced the server: it completed {} req/s of {} offered{kept_up}",
                    q::ACHIEVED_RPS
                        .text(c.summary)
                        .unwrap_or_else(|| "–".into()),
                    q::OFFERED_RPS.text(c.summary).unwrap_or_else(|| "–".into())
                ),
            },
            None => Fact {
                label,
                value: "no".into(),
                detail: format!("the server kept up with every rate up to {}", largest.load),
            },
        },
    )
}

fn errors(cells: &[&Cell]) -> Fact {
    let label = "error rate";
    let (counted, overloaded): (Vec<&&Cell>, Vec<&&Cell>) = cells
        .iter()
        .partition(|c| !c.summary.metrics.steady.overloaded);
    let (failed, measured) = counted.iter().fold((0u64, 0u64), |(f, n), c| {
        let r = &c.summary.metrics.requests;
        (f + r.measured_errors, n + r.measured)
    });
    let left_out = match overloaded.len() {
        0 => String::new(),
        k => format!(
            " ({k} overloaded cell{} left out: their requests fail by waiting in the queue)",
            if k == 1 { "" } else { "s" }
        ),
    };
    if measured == 0 {
        return Fact {
            label,
            value: "–".into(),
            detail: format!("no measured requests{left_out}"),
        };
    }
    let rate = failed as f64 / measured as f64;
    Fact {
        label,
        value: format!("{}%", number(rate * 100.0)),
        detail: format!("{failed} of {measured} measured requests failed{left_out}"),
    }
}
