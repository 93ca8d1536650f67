//! Repeats grouped by cell: mean, spread and intervals against hand-computed ones.

use super::*;

/// A complete cell summary (a real one from the report's fixtures) as repeat `repeat` of
/// scenario `scenario`, with server throughput `tps` and TTFT p50 `ttft` ms.
fn run(scenario: &str, repeat: u32, tps: f64, ttft: f64) -> CellSummary {
    let text =
        include_str!("../../../../report/tests/fixtures/clean/sglang/llama-8b/A1/c2/summary.json");
    let mut s: CellSummary = serde_json::from_str(text).unwrap();
    s.cell.scenario = scenario.into();
    s.cell.repeat = repeat;
    s.status = CellStatus::Complete;
    s.metrics.throughput.server_direct_tps = tps;
    s.metrics.ttft_ms.as_mut().unwrap().p50 = ttft;
    s
}

fn spread<'a>(cell: &'a RepeatedCell, metric: &str) -> &'a Spread {
    cell.metrics.iter().find(|m| m.metric == metric).unwrap()
}

#[test]
fn three_runs_give_mean_std_cv_and_a_t_interval() {
    let s = Spread::of("x", "ms", vec![10.0, 12.0, 14.0]).unwrap();
    assert_eq!(s.mean, 12.0);
    assert_eq!(s.std, Some(2.0));
    assert!((s.cv.unwrap() - 2.0 / 12.0).abs() < 1e-12);
    // t(0.975, 2) = 4.302652729911275: half-width 4.3027 x 2 / sqrt(3) = 4.968275.
    let [lo, hi] = s.ci95.unwrap();
    assert!((lo - (12.0 - 4.968_275)).abs() < 1e-5, "{lo}");
    assert!((hi - (12.0 + 4.968_275)).abs() < 1e-5, "{hi}");
}

#[test]
fn one_run_has_a_mean_and_nothing_else() {
    let s = Spread::of("x", "ms", vec![5.0]).unwrap();
    assert_eq!((s.mean, s.std, s.cv, s.ci95), (5.0, None, None, None));
    assert_eq!(Spread::of("x", "ms", vec![]), None);
    assert_eq!(Spread::of("x", "ms", vec![1.0, f64::NAN]), None);
}

#[test]
fn runs_group_by_cell_and_incomplete_runs_are_left_out() {
    let mut failed = run("A1", 3, 9999.0, 9999.0);
    failed.status = CellStatus::Failed;
    // Interleaved as the driver runs them: A1 r1, B1 r1, A1 r2, B1 r2, A1 r3 (failed).
    let summaries = [
        run("A1", 1, 100.0, 20.0),
        run("B1", 1, 50.0, 40.0),
        run("A1", 2, 110.0, 22.0),
        run("B1", 2, 50.0, 40.0),
        failed,
    ];
    let report = aggregate(&summaries, 3);
    assert_eq!(report.repeats, 3);
    assert_eq!(report.cells.len(), 2);
    let a1 = &report.cells[0];
    assert_eq!(
        (a1.scenario.as_str(), &a1.runs[..], &a1.left_out[..]),
        ("A1", &[1, 2][..], &[3][..])
    );
    let tps = spread(a1, "throughput.server_direct_tps");
    assert_eq!(tps.values, [100.0, 110.0]);
    assert_eq!(tps.mean, 105.0);
    assert!((tps.std.unwrap() - 50f64.sqrt()).abs() < 1e-12);
    assert_eq!(spread(a1, "ttft_ms.p50").values, [20.0, 22.0]);
    let b1 = &report.cells[1];
    assert_eq!(spread(b1, "throughput.server_direct_tps").std, Some(0.0));
    assert_eq!(spread(b1, "throughput.server_direct_tps").cv, Some(0.0));
}
