//! What `plateau run --dry-run` prints: the cells, their phase lengths and the estimated
//! wall time (a range: Drain, and adaptive phases, end when their data says so), and each
//! scenario's output lengths, without sending a request.

use std::fmt::Write as _;

use plateau_core::plan::Plan;
use plateau_scenarios::Catalog;

/// The dry-run plan: cells, phase lengths, estimated wall time.
pub fn plan(plan: &Plan) -> String {
    let cells = plan.cells();
    let p = plan.phases;
    let (lo, hi) = plan.estimated_duration();
    let mut out = String::new();
    let (stabilize, measure) = match p.adaptive {
        None => (format!("{:?}", p.stabilize), format!("{:?}", p.measure)),
        Some(a) => (
            format!(
                "{}..{} s (until the transient is over)",
                a.stabilize.min, a.stabilize.max
            ),
            format!(
                "{}..{} s (until the 95% intervals are within ±{}%)",
                a.measure.min,
                a.measure.max,
                a.precision * 100.0
            ),
        ),
    };
    let _ = writeln!(
        out,
        "{} cells; per cell: Fill {:?}, Stabilize {stabilize}, Measure {measure}, Drain up to {}",
        cells.len(),
        p.fill,
        p.drain
    );
    let _ = writeln!(
        out,
        "estimated wall time: {} to {}",
        minutes(lo.as_secs_f64()),
        minutes(hi.as_secs_f64())
    );
    let _ = writeln!(out, "results: {}", plan.output_dir.display());
    for c in &cells {
        let e = &plan.endpoints[c.endpoint];
        let _ = writeln!(
            out,
            "  {}  ({} via {:?} API)",
            plan.cell_label(c),
            e.engine.as_str(),
            e.api
        );
    }
    out
}

/// One line per scenario of `plan`: the `max_tokens` its requests ask for.
pub fn output_lengths(plan: &Plan, catalog: &Catalog) -> String {
    let mut out = String::new();
    for id in &plan.scenarios {
        if let Some(o) = catalog.output_tokens(id) {
            let how = match o.fixed() {
                Some(n) => format!("max_tokens {n} for every request"),
                None => format!("max_tokens drawn per request from {o}"),
            };
            let _ = writeln!(out, "output lengths of {id}: {how}");
        }
    }
    out
}

fn minutes(s: f64) -> String {
    if s < 120.0 {
        format!("{s:.0} s")
    } else {
        format!("{:.1} min", s / 60.0)
    }
}
