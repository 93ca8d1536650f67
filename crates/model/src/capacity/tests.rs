//! The capacity search on known latency curves: probes, bisection and what it reports.

pub(super) mod fixtures;

use super::*;
use crate::results::capacity::Confidence;

fn config(resolution: f64, max_probes: u32) -> CapacityConfig {
    serde_json::from_value(serde_json::json!({
        "slo": {"ttft_p99_ms": 500},
        "resolution": resolution,
        "max_probes": max_probes,
        "target_rps": 100,
    }))
    .unwrap()
}

/// A probe at `rps` of a server whose TTFT p99 is `ttft(rps)` ms, with a 95% interval of
/// +-5%.
fn probe(rps: f64, ttft: f64) -> Probe {
    Probe {
        rps,
        dir: format!("r{rps}"),
        status: CellStatus::Complete,
        passed: ttft <= 500.0,
        checks: vec![Check {
            bound: "ttft_p99_ms".into(),
            limit: 500.0,
            value: Some(ttft),
            upper_ci: Some(ttft * 1.05),
            lower_ci: Some(ttft * 0.95),
            passed: ttft <= 500.0,
        }],
        achieved_rps: rps,
        output_tps: rps * 100.0,
        measure_s: Some(10.0),
        e2e_p50_ms: Some(1000.0),
    }
}

/// Runs a search against `ttft`, returning the probed rates and the answer.
fn search(start: f64, c: &CapacityConfig, ttft: impl Fn(f64) -> f64) -> (Vec<f64>, CapacitySearch) {
    let mut s = Search::new(start, c, 10.0, 0.15);
    let mut rates = Vec::new();
    while let Some(r) = s.next_rate() {
        rates.push(r);
        s.record(probe(r, ttft(r)));
        assert!(rates.len() <= 50, "the search must end");
    }
    (rates, s.finish(["e", "m", "A1"], StartRate::Default, c))
}

/// TTFT p99 of a server with a knee at 22 req/s: 200 ms below, climbing steeply above.
fn knee(rps: f64) -> f64 {
    if rps <= 22.0 {
        200.0 + rps
    } else {
        200.0 + (rps - 22.0) * 400.0
    }
}

#[test]
fn from_below_it_doubles_then_bisects_to_the_resolution() {
    let c = config(0.05, 12);
    let (rates, answer) = search(5.0, &c, knee);
    assert_eq!(rates[..3], [5.0, 10.0, 20.0], "doubling to bracket");
    assert_eq!(rates[3], 40.0);
    assert_eq!(answer.status, SearchStatus::Found);
    let (lo, hi) = (answer.max_rps.unwrap(), answer.failing_rps.unwrap());
    // The SLO crossing is at 22.75 req/s (200 + 0.75 x 400 = 500).
    assert!(lo <= 22.75 && 22.75 < hi, "[{lo}, {hi})");
    assert!((hi - lo) / lo <= 0.05, "[{lo}, {hi})");
    assert_eq!(answer.first_failed.as_deref(), Some("ttft_p99_ms"));
    assert_eq!(answer.max_output_tps, Some(lo * 100.0));
    // 100 req/s at ~22 per instance: 5 instances, 6 with 20% headroom.
    let plan = answer.plan.unwrap();
    assert_eq!((plan.instances, plan.instances_with_headroom), (5, 6));
}

#[test]
fn from_above_it_halves_then_bisects() {
    let c = config(0.1, 12);
    let (rates, answer) = search(160.0, &c, knee);
    assert_eq!(rates[..4], [160.0, 80.0, 40.0, 20.0]);
    assert_eq!(answer.status, SearchStatus::Found);
    assert!(answer.max_rps.unwrap() <= 22.75 && 22.75 < answer.failing_rps.unwrap());
}

#[test]
fn the_budget_and_the_floor_end_a_search() {
    let (rates, answer) = search(5.0, &config(0.01, 4), knee);
    assert_eq!(rates.len(), 4);
    assert_eq!(answer.status, SearchStatus::ProbesExhausted);
    assert_eq!(answer.max_rps, Some(20.0));
    // A server that never meets the SLO: halving stops at the floor.
    let (rates, answer) = search(1.0, &config(0.1, 30), |_| 900.0);
    assert!(rates.iter().all(|&r| r >= MIN_RPS), "{rates:?}");
    assert_eq!(answer.status, SearchStatus::NonePassed);
    assert_eq!(answer.confidence, Confidence::Low);
    assert!(answer.plan.is_none());
}

#[test]
fn confidence_reads_the_intervals() {
    let c = config(0.1, 12);
    // Far from the limit on both sides: high.
    let mut s = Search::new(10.0, &c, 10.0, 0.15);
    s.record(probe(10.0, 300.0));
    s.record(probe(11.0, 800.0));
    let a = s.finish(["e", "m", "A1"], StartRate::Default, &c);
    assert_eq!(a.confidence, Confidence::High, "{:?}", a.confidence_reasons);
    // The passing p99's interval reaches over the limit: medium, and says why.
    let mut s = Search::new(10.0, &c, 10.0, 0.15);
    s.record(probe(10.0, 490.0));
    s.record(probe(11.0, 800.0));
    let a = s.finish(["e", "m", "A1"], StartRate::Default, &c);
    assert_eq!(a.confidence, Confidence::Medium);
    assert!(
        a.confidence_reasons[0].contains("reaches 514.5 ms"),
        "{:?}",
        a.confidence_reasons
    );
}

#[test]
fn a_probe_that_did_not_complete_stops_the_search() {
    let c = config(0.1, 12);
    let mut s = Search::new(10.0, &c, 10.0, 0.15);
    let mut p = probe(10.0, 100.0);
    p.status = CellStatus::Interrupted;
    p.passed = false;
    s.record(p);
    assert_eq!(s.next_rate(), None);
    let a = s.finish(["e", "m", "A1"], StartRate::Default, &c);
    assert_eq!(a.status, SearchStatus::Stopped);
}

#[test]
fn instance_plans_round_up() {
    // (target, per instance, headroom, instances, with headroom)
    let rows = [
        (100.0, 22.0, 0.2, 5, 6),
        (100.0, 25.0, 0.2, 4, 5),
        (10.0, 50.0, 0.2, 1, 1),
        (44.0, 22.0, 0.0, 2, 2),
    ];
    for (target, per, headroom, n, with) in rows {
        let p = instance_plan(target, per, headroom);
        assert_eq!(
            (p.instances, p.instances_with_headroom),
            (n, with),
            "{target}/{per}"
        );
    }
}

#[test]
fn a_p99_without_an_interval_says_so() {
    let c = config(0.1, 12);
    let mut s = Search::new(10.0, &c, 10.0, 0.15);
    s.record(probe(10.0, 300.0));
    let mut fail = probe(11.0, 800.0);
    fail.checks[0].lower_ci = None;
    fail.checks[0].upper_ci = None;
    s.record(fail);
    let a = s.finish(["e", "m", "A1"], StartRate::Default, &c);
    assert_eq!(a.confidence, Confidence::Medium);
    assert_eq!(
        a.confidence_reasons,
        ["at 11 req/s ttft_p99_ms has too few samples for a confidence interval"]
    );
}

/// The simulator, as a probe sees it: it carries 29.6 req/s; a probe above that
/// completes only 29.6, and its queue grows, but a window shorter than the overload needs
/// lets it pass while it is within `hidden` of capacity (0: every overload shows).
fn short_sighted(rps: f64, hidden: f64) -> Probe {
    const CARRIES: f64 = 29.6;
    let shows = rps > CARRIES * (1.0 + hidden);
    let mut p = probe(rps, if shows { 2000.0 } else { 300.0 });
    p.achieved_rps = rps.min(CARRIES);
    p
}

#[test]
fn the_answer_is_never_above_what_the_server_completed() {
    for hidden in [0.0, 0.05, 0.1, 0.2, 0.5] {
        for start in [1.0, 8.0, 30.0, 100.0] {
            let c = config(0.1, 12);
            let mut s = Search::new(start, &c, 10.0, 0.15);
            while let Some(r) = s.next_rate() {
                s.record(short_sighted(r, hidden));
            }
            let answer = s.finish(["e", "m", "B1"], StartRate::Default, &c);
            let (max, passed) = (answer.max_rps.unwrap(), answer.passed_rps.unwrap());
            assert!(max <= 29.6, "hidden {hidden}, start {start}: {max}");
            // Within 10% of capacity when every overload shows, and whatever hides.
            assert!(max >= 29.6 * 0.9, "hidden {hidden}, start {start}: {max}");
            if passed > 29.6 {
                assert_eq!(max, 29.6, "an overloaded pass answers what was completed");
                assert!(
                    answer
                        .confidence_reasons
                        .iter()
                        .any(|r| r.contains("the answer is what it completed")),
                    "{:?}",
                    answer.confidence_reasons
                );
            }
        }
    }
}
