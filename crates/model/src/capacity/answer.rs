//! The search's answer in words and numbers: which bound failed first, how sure the answer
//! is (do the 95% intervals at the bracket's ends clear their limits?), and the instances a
//! target load needs (in req/s or in concurrent sessions).

use crate::results::capacity::Check;
use crate::results::capacity::{Confidence, InstancePlan, Probe};

/// The bound of `probe` that failed by the widest margin (value over limit).
pub(super) fn first_failed(probe: &Probe) -> Option<String> {
    widest_failure(&probe.checks)
}

/// The failed check of `checks` with the widest margin (value over limit; `overloaded`
/// and `steady` count as 1, a bound without a value as infinite).
pub(super) fn widest_failure(checks: &[Check]) -> Option<String> {
    let margin = |c: &Check| match c.value {
        _ if c.bound == "overloaded" || c.bound == "steady" => 1.0,
        Some(v) if c.bound == "achieved_rps" || c.bound == "session_starts_per_minute" => {
            c.limit / v.max(f64::MIN_POSITIVE)
        }
        Some(v) if c.limit > 0.0 => v / c.limit,
        _ => f64::INFINITY,
    };
    checks
        .iter()
        .filter(|c| !c.passed)
        .max_by(|a, b| margin(a).total_cmp(&margin(b)))
        .map(|c| c.bound.clone())
}

pub(super) fn confidence(
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
    let need = |load: f64| instances(load, per_instance);
    InstancePlan {
        target_rps: target,
        instances: need(target),
        headroom,
        instances_with_headroom: need(target * (1.0 + headroom)),
    }
}

/// Instances that carry `load` at `per_instance` each: `ceil(load / per_instance)`, at
/// least 1 (a hair over a whole number, from float error, does not add one).
pub(super) fn instances(load: f64, per_instance: f64) -> u32 {
    (load / per_instance - 1e-9).ceil().max(1.0) as u32
}
