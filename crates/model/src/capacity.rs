//! The capacity search, as pure logic: judge a probe (one open-loop cell) against the SLO
//! and for overload, choose the next rate and how long to measure it (bracket by doubling
//! or halving from the start, then bisect to the resolution, never at or above the
//! saturation throughput a probe measured: `window.rs` derives each probe's Measure from
//! the rate and the request lifetime), and state the answer with its confidence and the
//! instance plan (`answer.rs`); for session scenarios, the answer in concurrent sessions
//! from the closed-loop cells ([`sessions`]) and in session arrivals per minute from the
//! open-loop cells of sessions ([`session_rates`]). The driver runs the probes; everything here
//! is a function of their summaries.

mod answer;
pub mod session_rates;
pub mod sessions;
mod window;

use crate::config::{CapacityConfig, CapacitySlo};
use crate::load::round_rps;
use crate::metrics::{Distribution, shortfall};
use crate::results::capacity::{CapacitySearch, Check, Probe, SearchStatus, StartRate};
use crate::results::summary::{CellStatus, CellSummary};
pub use answer::instance_plan;
use answer::{confidence, first_failed};
pub use session_rates::session_rate_capacity;
use sessions::overload_check;
pub use sessions::session_capacity;
pub use window::{QUEUE_Z, probe_seconds};

/// No search probes below this rate: a server that misses the SLO at 0.01 req/s has no
/// capacity worth planning with.
pub const MIN_RPS: f64 = 0.01;

/// No search probes above this rate.
pub const MAX_RPS: f64 = 1e6;

/// Judges the probe whose summary is `s` (cell directory `dir`) against `slo`.
pub fn judge(s: &CellSummary, dir: String, slo: &CapacitySlo) -> Probe {
    let m = &s.metrics;
    let mut checks = slo_checks(s, slo);
    checks.push(overload_check(s));
    let window_s = m.throughput.window_s;
    let offered_rps = m.load.as_ref().map_or(0.0, |l| l.offered_rps);
    let achieved = m.throughput.requests_completed as f64;
    checks.push(Check {
        bound: "achieved_rps".into(),
        limit: offered_rps,
        value: Some(m.throughput.request_rps),
        upper_ci: None,
        lower_ci: None,
        passed: !shortfall(offered_rps * window_s, achieved),
    });
    Probe {
        rps: s.cell.load.request_rate.unwrap_or_default(),
        dir,
        status: s.status,
        passed: s.status == CellStatus::Complete && checks.iter().all(|c| c.passed),
        checks,
        achieved_rps: m.throughput.request_rps,
        output_tps: m.throughput.server_direct_tps,
        measure_s: Some(s.phases.measure_s),
        e2e_p50_ms: m.e2e_ms.as_ref().map(|d| d.p50),
    }
}

/// The cell `s` against each bound `slo` sets (latency p99s and error rate).
fn slo_checks(s: &CellSummary, slo: &CapacitySlo) -> Vec<Check> {
    let m = &s.metrics;
    let mut checks = Vec::new();
    for (bound, limit, dist) in [
        ("ttft_p99_ms", slo.ttft_p99_ms, &m.ttft_ms),
        ("tpot_p99_ms", slo.tpot_p99_ms, &m.tpot_ms),
        ("e2e_p99_ms", slo.e2e_p99_ms, &m.e2e_ms),
    ] {
        if let Some(limit) = limit {
            checks.push(p99_check(bound, limit, dist.as_ref()));
        }
    }
    if let Some(limit) = slo.max_error_rate {
        let value = m.requests.error_rate;
        checks.push(Check {
            bound: "error_rate".into(),
            limit,
            value,
            upper_ci: None,
            lower_ci: None,
            passed: value.is_some_and(|v| v <= limit),
        });
    }
    checks
}

fn p99_check(bound: &str, limit: f64, d: Option<&Distribution>) -> Check {
    let ci = d.and_then(|d| d.p99_ci);
    Check {
        bound: bound.into(),
        limit,
        value: d.map(|d| d.p99),
        upper_ci: ci.map(|c| c[1]),
        lower_ci: ci.map(|c| c[0]),
        passed: d.is_some_and(|d| d.p99 <= limit),
    }
}

/// Where a search starts: Little's law on the closed-loop cells of its scenario (`closed`:
/// their summaries), else `capacity.start_rps`, else 1 req/s.
pub fn start_rate(closed: &[&CellSummary], config: &CapacityConfig) -> (f64, StartRate) {
    let slo = &config.slo;
    let usable = |s: &&&CellSummary| {
        s.status == CellStatus::Complete && s.metrics.throughput.request_rps > 0.0
    };
    let meets = |s: &CellSummary| slo_checks(s, slo).iter().all(|c| c.passed);
    let n = |s: &CellSummary| s.cell.load.concurrency.unwrap_or(0);
    let best = closed
        .iter()
        .filter(usable)
        .filter(|s| meets(s))
        .max_by_key(|s| n(s))
        .or_else(|| closed.iter().filter(usable).min_by_key(|s| n(s)));
    if let Some(s) = best {
        let rps = s.metrics.throughput.request_rps;
        return (
            round_rps(rps),
            StartRate::ClosedLoop {
                cell: format!("c{}", n(s)),
                request_rps: rps,
            },
        );
    }
    match config.start_rps {
        Some(rps) => (round_rps(rps), StartRate::Configured),
        None => (1.0, StartRate::Default),
    }
}

/// A search in progress: the probes so far decide the next rate and its window.
#[derive(Clone, Debug)]
pub struct Search {
    start: f64,
    resolution: f64,
    max_probes: u32,
    /// Measure of a probe, s: `measure_seconds` at least, `max_probe_seconds` at most.
    measure_s: (f64, f64),
    /// The steady verdict's `max_trend`, which a growing queue must exceed.
    max_trend: f64,
    probes: Vec<Probe>,
    /// Rates whose directory a listed cell with a shorter window holds: probed beside.
    taken: Vec<f64>,
    stopped: bool,
}

/// The search's bracket: the best passing probe below every failure and the ceiling, and
/// the lowest rate known to be too much (a failing probe's, or the ceiling).
struct Bracket<'a> {
    pass: Option<&'a Probe>,
    /// The lowest failing probe.
    fail: Option<&'a Probe>,
    /// The saturation ceiling and the probe that measured it.
    ceiling: Option<(f64, &'a Probe)>,
}

impl Bracket<'_> {
    /// The lowest rate known to be too much.
    fn upper(&self) -> Option<f64> {
        match (self.fail.map(|p| p.rps), self.ceiling.map(|c| c.0)) {
            (Some(f), Some(c)) => Some(f.min(c)),
            (f, c) => f.or(c),
        }
    }
}

impl Search {
    /// A search from `start` req/s under `config`'s resolution, probe budget and probe
    /// window bounds; `measure_s` is the configured Measure (every probe's least),
    /// `max_trend` the steady verdict's.
    pub fn new(start: f64, config: &CapacityConfig, measure_s: f64, max_trend: f64) -> Search {
        Search {
            start: start.clamp(MIN_RPS, MAX_RPS),
            resolution: config.resolution,
            max_probes: config.max_probes,
            measure_s: (measure_s, config.max_probe_seconds.max(measure_s)),
            max_trend,
            probes: Vec::new(),
            taken: Vec::new(),
            stopped: false,
        }
    }

    /// Tells the search of a listed cell at `rps` that measured `measure_s` with requests
    /// lasting `lifetime_s`: when that window is shorter than a probe at `rps` needs, the
    /// search probes beside the rate instead of over its directory.
    pub fn note_listed(&mut self, rps: f64, measure_s: f64, lifetime_s: Option<f64>) {
        if measure_s + 1e-6 < self.window(rps, lifetime_s) {
            self.taken.push(rps);
        }
    }

    /// The Measure a probe at `rps` needs, s, within the configured bounds.
    fn window(&self, rps: f64, lifetime_s: Option<f64>) -> f64 {
        let (least, most) = self.measure_s;
        probe_seconds(rps, lifetime_s, self.resolution, self.max_trend).clamp(least, most)
    }

    /// Adds a probe's verdict; a probe that did not complete stops the search.
    pub fn record(&mut self, probe: Probe) {
        self.stopped |= probe.status != CellStatus::Complete;
        self.probes.push(probe);
    }

    /// Stops the search (Ctrl-C, a skipped endpoint).
    pub fn stop(&mut self) {
        self.stopped = true;
    }

    /// The lowest saturation throughput measured (a probe whose queue grew or whose
    /// completions fell short), with its probe.
    fn ceiling(&self) -> Option<(f64, &Probe)> {
        self.probes
            .iter()
            .filter(|p| p.status == CellStatus::Complete && p.saturated())
            .map(|p| (p.achieved_rps, p))
            .min_by(|a, b| a.0.total_cmp(&b.0))
    }

    fn bracket(&self) -> Bracket<'_> {
        let fail = self
            .probes
            .iter()
            .filter(|p| !p.passed && p.status == CellStatus::Complete)
            .min_by(|a, b| a.rps.total_cmp(&b.rps));
        let ceiling = self.ceiling();
        let upper = Bracket {
            pass: None,
            fail,
            ceiling,
        }
        .upper();
        let pass = self
            .probes
            .iter()
            .filter(|p| p.passed && upper.is_none_or(|u| p.rps < u))
            .max_by(|a, b| a.rps.total_cmp(&b.rps));
        Bracket {
            pass,
            fail,
            ceiling,
        }
    }

    /// The next rate to probe; `None` when the search is over.
    pub fn next_rate(&self) -> Option<f64> {
        if self.stopped || self.probes.len() >= self.max_probes as usize {
            return None;
        }
        if self.probes.is_empty() {
            return Some(self.start);
        }
        let fresh = |r: f64| {
            let mut r = round_rps(r);
            while self.taken.contains(&r) {
                // One step in the third significant digit: 32 -> 32.1.
                r = round_rps(r + 10f64.powi(r.log10().floor() as i32 - 2));
            }
            (!self.probes.iter().any(|p| p.rps == r)).then_some(r)
        };
        let b = self.bracket();
        let at_ceiling = b.ceiling.is_some_and(|c| Some(c.0) == b.upper());
        match (b.pass, b.upper()) {
            (Some(lo), None) => (lo.rps < MAX_RPS).then(|| fresh(lo.rps * 2.0)).flatten(),
            // Below the measured saturation throughput by the resolution: where the answer
            // is when no SLO bound binds first.
            (None, Some(hi)) if at_ceiling => fresh(hi * (1.0 - self.resolution)),
            (None, Some(hi)) => (hi / 2.0 >= MIN_RPS).then(|| fresh(hi / 2.0)).flatten(),
            (Some(lo), Some(hi)) if hi > lo.rps => {
                if (hi - lo.rps) / lo.rps <= self.resolution {
                    return None;
                }
                // Halfway to the lowest failing probe, unless that is at or above the
                // ceiling: then halfway to the ceiling.
                let fail = b.fail.map_or(hi, |f| f.rps);
                let mid = (lo.rps + fail) / 2.0;
                fresh(if mid >= hi { (lo.rps + hi) / 2.0 } else { mid })
            }
            // A rate failed below one that passed: noise at the knee; the answer is the
            // highest pass below the lowest failure, and no probe will settle it further.
            _ => None,
        }
    }

    /// The next probe: its rate and how long to measure it, s. While the search climbs
    /// from below with nothing failed yet, the configured Measure: a pass there is either
    /// beaten by a higher one or sits below a probe that failed with a long window, whose
    /// growing queue would have set a ceiling under it. Once a rate has failed, each
    /// probe measures as long as [`probe_seconds`] says, with the lifetime of the probe
    /// closest in rate that kept up: these are the probes the answer rests on.
    pub fn next_probe(&self) -> Option<(f64, f64)> {
        let rps = self.next_rate()?;
        if self.bracket().upper().is_none() {
            return Some((rps, self.measure_s.0));
        }
        let lifetime_s = self
            .probes
            .iter()
            .filter(|p| !p.saturated())
            .filter_map(|p| Some(((p.rps - rps).abs(), p.e2e_p50_ms? / 1e3)))
            .min_by(|a, b| a.0.total_cmp(&b.0))
            .map(|p| p.1);
        Some((rps, self.window(rps, lifetime_s)))
    }

    /// The answer: status, rates, the first bound to fail, confidence and plan.
    pub fn finish(
        self,
        who: [&str; 3],
        start: StartRate,
        config: &CapacityConfig,
    ) -> CapacitySearch {
        let b = self.bracket();
        let upper = b.upper();
        let status = match (b.pass, upper) {
            _ if self.stopped => SearchStatus::Stopped,
            (None, _) => SearchStatus::NonePassed,
            (Some(lo), Some(hi)) if (hi - lo.rps) / lo.rps <= self.resolution => {
                SearchStatus::Found
            }
            _ if self.next_rate().is_none() && self.probes.len() < self.max_probes as usize => {
                SearchStatus::Found
            }
            _ => SearchStatus::ProbesExhausted,
        };
        // The probe just above the answer: the lowest failure, or the one that measured
        // the ceiling when that is lower.
        let above = match (b.fail, b.ceiling) {
            (Some(f), Some((c, p))) if c < f.rps => Some(p),
            (Some(f), _) => Some(f),
            (None, c) => c.map(|c| c.1),
        };
        let (confidence, mut confidence_reasons) = confidence(b.pass, above, self.stopped);
        confidence_reasons.extend(self.ceiling_notes(&b));
        // What the server carried at the passing rate, never more than was offered.
        let max_rps = b.pass.map(|p| p.rps.min(p.achieved_rps));
        if let Some(p) = b.pass.filter(|p| p.achieved_rps < p.rps) {
            confidence_reasons.push(format!(
                "at {} req/s the server completed {:.2} req/s: the answer is what it completed",
                p.rps, p.achieved_rps
            ));
        }
        CapacitySearch {
            endpoint: who[0].into(),
            model: who[1].into(),
            scenario: who[2].into(),
            status,
            max_rps,
            passed_rps: b.pass.map(|p| p.rps),
            max_output_tps: b.pass.map(|p| p.output_tps),
            failing_rps: b.fail.map(|p| p.rps),
            first_failed: b.fail.and_then(first_failed),
            ceiling_rps: b.ceiling.map(|c| c.0),
            confidence,
            confidence_reasons,
            start,
            plan: config
                .target_rps
                .zip(max_rps)
                .map(|(target, max)| instance_plan(target, max, config.headroom)),
            probes: self.probes,
        }
    }

    /// What the ceiling did: the saturation throughput it rests on, and each probe that
    /// met the SLO above it (left out: its window was too short to show the queue).
    fn ceiling_notes(&self, b: &Bracket) -> Vec<String> {
        let Some((c, at)) = b.ceiling else {
            return Vec::new();
        };
        let mut notes = vec![format!(
            "at {} req/s the server fell behind and completed {c:.2} req/s: no answer at or \
             above {c:.2} req/s",
            at.rps
        )];
        for p in self.probes.iter().filter(|p| p.passed && p.rps >= c) {
            notes.push(format!(
                "{} req/s met the SLO in a {} s window but is above the saturation throughput: \
                 left out",
                p.rps,
                p.measure_s.map_or("?".into(), |m| format!("{m:.0}"))
            ));
        }
        notes
    }
}

#[cfg(test)]
mod tests;
