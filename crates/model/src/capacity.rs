//! The capacity search, as pure logic: judge a probe (one open-loop cell) against the SLO,
//! choose the next rate (bracket by doubling or halving from the start, then bisect to the
//! resolution), and state the answer with its confidence and the instance plan. The driver
//! runs the probes; everything here is a function of their summaries.

use crate::config::{CapacityConfig, CapacitySlo};
use crate::load::round_rps;
use crate::metrics::Distribution;
use crate::results::capacity::{
    CapacitySearch, Check, Confidence, InstancePlan, Probe, SearchStatus, StartRate,
};
use crate::results::summary::{CellStatus, CellSummary};

/// No search probes below this rate: a server that misses the SLO at 0.01 req/s has no
/// capacity worth planning with.
pub const MIN_RPS: f64 = 0.01;

/// No search probes above this rate.
pub const MAX_RPS: f64 = 1e6;

/// Judges the probe whose summary is `s` (cell directory `dir`) against `slo`.
pub fn judge(s: &CellSummary, dir: String, slo: &CapacitySlo) -> Probe {
    let m = &s.metrics;
    let mut checks = slo_checks(s, slo);
    checks.push(Check {
        bound: "overloaded".into(),
        limit: 0.0,
        value: Some(f64::from(u8::from(m.steady.overloaded))),
        upper_ci: None,
        lower_ci: None,
        passed: !m.steady.overloaded,
    });
    Probe {
        rps: s.cell.load.request_rate.unwrap_or_default(),
        dir,
        status: s.status,
        passed: s.status == CellStatus::Complete && checks.iter().all(|c| c.passed),
        checks,
        achieved_rps: m.throughput.request_rps,
        output_tps: m.throughput.server_direct_tps,
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

/// A search in progress: the probes so far decide the next rate.
#[derive(Clone, Debug)]
pub struct Search {
    start: f64,
    resolution: f64,
    max_probes: u32,
    probes: Vec<Probe>,
    stopped: bool,
}

impl Search {
    /// A search from `start` req/s under `config`'s resolution and probe budget.
    pub fn new(start: f64, config: &CapacityConfig) -> Search {
        Search {
            start: start.clamp(MIN_RPS, MAX_RPS),
            resolution: config.resolution,
            max_probes: config.max_probes,
            probes: Vec::new(),
            stopped: false,
        }
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

    /// The highest passing rate and the lowest failing rate probed.
    fn bracket(&self) -> (Option<&Probe>, Option<&Probe>) {
        let pass = self
            .probes
            .iter()
            .filter(|p| p.passed)
            .max_by(|a, b| a.rps.total_cmp(&b.rps));
        let fail = self
            .probes
            .iter()
            .filter(|p| !p.passed && p.status == CellStatus::Complete)
            .min_by(|a, b| a.rps.total_cmp(&b.rps));
        (pass, fail)
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
            let r = round_rps(r);
            (!self.probes.iter().any(|p| p.rps == r)).then_some(r)
        };
        match self.bracket() {
            (Some(lo), None) => (lo.rps < MAX_RPS).then(|| fresh(lo.rps * 2.0)).flatten(),
            (None, Some(hi)) => (hi.rps / 2.0 >= MIN_RPS)
                .then(|| fresh(hi.rps / 2.0))
                .flatten(),
            (Some(lo), Some(hi)) if hi.rps > lo.rps => {
                if (hi.rps - lo.rps) / lo.rps <= self.resolution {
                    None
                } else {
                    fresh((lo.rps + hi.rps) / 2.0)
                }
            }
            // A rate failed below one that passed: noise at the knee; the answer is the
            // highest pass below the lowest failure, and no probe will settle it further.
            _ => None,
        }
    }

    /// The answer: status, rates, the first bound to fail, confidence and plan.
    pub fn finish(
        self,
        who: [&str; 3],
        start: StartRate,
        config: &CapacityConfig,
    ) -> CapacitySearch {
        let (pass, fail) = self.bracket();
        let lowest_fail = fail.map(|p| p.rps);
        // The answer is the highest pass below the lowest failure.
        let pass = self
            .probes
            .iter()
            .filter(|p| p.passed && lowest_fail.is_none_or(|f| p.rps < f))
            .max_by(|a, b| a.rps.total_cmp(&b.rps))
            .or(pass.filter(|_| lowest_fail.is_none()));
        let status = match (pass, fail) {
            _ if self.stopped => SearchStatus::Stopped,
            (None, _) => SearchStatus::NonePassed,
            (Some(lo), Some(hi)) if (hi.rps - lo.rps) / lo.rps <= self.resolution => {
                SearchStatus::Found
            }
            _ if self.next_rate().is_none() && self.probes.len() < self.max_probes as usize => {
                SearchStatus::Found
            }
            _ => SearchStatus::ProbesExhausted,
        };
        let (confidence, confidence_reasons) = confidence(pass, fail, self.stopped);
        let max_rps = pass.map(|p| p.rps);
        CapacitySearch {
            endpoint: who[0].into(),
            model: who[1].into(),
            scenario: who[2].into(),
            status,
            max_rps,
            max_output_tps: pass.map(|p| p.output_tps),
            failing_rps: lowest_fail,
            first_failed: fail.and_then(first_failed),
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
}

/// The bound of `probe` that failed by the widest margin (value over limit).
fn first_failed(probe: &Probe) -> Option<String> {
    let margin = |c: &Check| match c.value {
        _ if c.bound == "overloaded" => 1.0,
        Some(v) if c.limit > 0.0 => v / c.limit,
        _ => f64::INFINITY,
    };
    probe
        .checks
        .iter()
        .filter(|c| !c.passed)
        .max_by(|a, b| margin(a).total_cmp(&margin(b)))
        .map(|c| c.bound.clone())
}

fn confidence(
    pass: Option<&Probe>,
    fail: Option<&Probe>,
    stopped: bool,
) -> (Confidence, Vec<String>) {
    let (Some(lo), Some(hi)) = (pass, fail) else {
        let why = if stopped {
            "the search stopped before it had a passing and a failing rate"
        } else if pass.is_none() {
            "no probed rate met the SLO"
        } else {
            "no probed rate failed the SLO: the capacity is above the highest rate probed"
        };
        return (Confidence::Low, vec![why.into()]);
    };
    let mut reasons = Vec::new();
    for c in lo.checks.iter().filter(|c| c.bound.ends_with("_p99_ms")) {
        match c.upper_ci {
            Some(up) if up > c.limit => {
                let (up, limit) = crate::threshold::pair(up, c.limit, 1);
                reasons.push(format!(
                    "at {} req/s the 95% interval of {} reaches {up} ms, above the {limit} ms limit",
                    lo.rps, c.bound
                ));
            }
            None => reasons.push(format!(
                "at {} req/s {} has too few samples for a confidence interval",
                lo.rps, c.bound
            )),
            _ => {}
        }
    }
    if let Some(bound) = first_failed(hi)
        && let Some(c) = hi.checks.iter().find(|c| c.bound == bound)
        && c.bound.ends_with("_p99_ms")
    {
        match c.lower_ci {
            Some(low) if low <= c.limit => reasons.push(format!(
                "at {} req/s the 95% interval of {} still includes the {} ms limit",
                hi.rps, c.bound, c.limit
            )),
            None => reasons.push(format!(
                "at {} req/s {} has too few samples for a confidence interval",
                hi.rps, c.bound
            )),
            _ => {}
        }
    }
    if reasons.is_empty() {
        reasons.push(format!(
            "every bound holds at {} req/s with its whole 95% interval, and {} fails at {} req/s with its whole interval",
            lo.rps,
            first_failed(hi).unwrap_or_default(),
            hi.rps
        ));
        (Confidence::High, reasons)
    } else {
        (Confidence::Medium, reasons)
    }
}

/// Instances for `target` req/s at `per_instance` req/s each, bare and with `headroom`.
pub fn instance_plan(target: f64, per_instance: f64, headroom: f64) -> InstancePlan {
    let need = |load: f64| (load / per_instance - 1e-9).ceil().max(1.0) as u32;
    InstancePlan {
        target_rps: target,
        instances: need(target),
        headroom,
        instances_with_headroom: need(target * (1.0 + headroom)),
    }
}

#[cfg(test)]
mod tests;
