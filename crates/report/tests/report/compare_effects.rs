//! `compare` on cells with known effects: a clean fixture cell rewritten as a 60 s closed
//! loop whose TTFT follows a chosen distribution. A 10% rise of TTFT with a tight spread
//! is found as worse, by an interval that excludes 0 and a Bonferroni p-value below 0.05;
//! a 1% rise of a wide, skewed TTFT is not; and a side that was not steady is flagged on
//! every row and left out of the counts (unless `include_unsteady`).

use std::path::{Path, PathBuf};

use plateau_model::results::summary::CellSummary;
use plateau_model::results::{read_json, write_json};
use plateau_model::sample::{Chunk, Outcome, Sample};
use plateau_report::compare::analyze::{Row, Verdict};
use plateau_report::compare::{self, Comparison, Options};

use crate::common::{rewrite_requests, runs, scratch};

const S: u64 = 1_000_000;
const M0: u64 = 2 * S;
const M1: u64 = 62 * S;
const SLOTS: u64 = 4;

/// The next value of an evenly spread sequence in [-1, 1) (the golden-ratio additive
/// recurrence): its mean is 0 to within a few thousandths after a thousand values, so a
/// cell's TTFT level is the one asked for and a difference between two cells is the effect
/// put in, not a draw's luck; the spread is still all there for the test to see.
fn uniform(state: &mut f64) -> f64 {
    *state = (*state + 0.618_033_988_749_895) % 1.0;
    *state * 2.0 - 1.0
}

/// How a cell's TTFT (ms) follows from an evenly spread u in [-1, 1).
type Ttft = fn(f64) -> f64;

/// A closed loop of 4 slots from 0 to m1 (and the requests that end after it): TTFT
/// `ttft(u)` with u evenly spread from `start`, then 12 one-token chunks 10 ms apart.
fn closed_loop(start: f64, ttft: Ttft, template: &Sample) -> Vec<Sample> {
    let mut state = start;
    let mut out = Vec::new();
    for slot in 0..SLOTS {
        let mut t = slot * S / SLOTS;
        while t < M1 {
            let first = t + (ttft(uniform(&mut state)) * 1000.0) as u64;
            let chunks: Vec<Chunk> = (0..12)
                .map(|k| Chunk {
                    t_us: first + k * 10_000,
                    tokens: 1,
                })
                .collect();
            let end = first + 11 * 10_000 + 300;
            out.push(Sample {
                seq: out.len() as u64,
                slot: slot as u32,
                t_sent_us: t,
                t_end_us: end,
                chunks,
                n_out: Some(12),
                outcome: Outcome::Ok,
                ..template.clone()
            });
            t = end + 150;
        }
    }
    out
}

/// A run at `dir` holding one cell (the clean fixture's vllm A1 N=4, rewritten).
fn one_cell_run(dir: &Path, start: f64, ttft: Ttft) -> PathBuf {
    let cell = dir.join("vllm/llama-8b/A1/c4");
    for other in ["c1", "c2"] {
        std::fs::remove_dir_all(dir.join("vllm/llama-8b/A1").join(other)).unwrap();
    }
    for gone in ["vllm/llama-8b/B2", "sglang"] {
        std::fs::remove_dir_all(dir.join(gone)).unwrap();
    }
    let path = cell.join("summary.json");
    let mut summary: CellSummary = read_json(&path).unwrap();
    summary.phases.measure_s = 60.0;
    summary.phases.m0_us = M0;
    summary.phases.m1_us = M1;
    write_json(&path, &summary).unwrap();
    rewrite_requests(&cell, |samples| {
        let template = samples[0].clone();
        *samples = closed_loop(start, ttft, &template);
    });
    cell
}

fn compare_two(
    root: &Path,
    [base, cand]: [Ttft; 2],
    include_unsteady: bool,
    change: impl FnOnce(&Path),
) -> Comparison {
    let [a, b] = runs(root, [("base", "clean"), ("cand", "clean")]);
    one_cell_run(&a, 0.1, base);
    let cand_cell = one_cell_run(&b, 0.7, cand);
    change(&cand_cell);
    let mut opts = Options::new(vec![a, b], root.join("cmp"));
    opts.resamples = 4000;
    opts.include_unsteady = include_unsteady;
    compare::compare(&opts).unwrap().comparisons.remove(0)
}

fn row<'a>(c: &'a Comparison, label: &str) -> &'a Row {
    c.cells[0]
        .rows
        .iter()
        .find(|r| r.metric.q.label == label)
        .unwrap()
}

/// 100 ms, +-2%.
fn tight(u: f64) -> f64 {
    100.0 * (1.0 + 0.02 * u)
}

/// 10% more.
fn tight_up(u: f64) -> f64 {
    1.1 * tight(u)
}

/// Exponential around 100 ms: 50 ms plus a tail of mean 50 ms (p99 about 280 ms).
fn wide(u: f64) -> f64 {
    50.0 - 50.0 * ((1.0 - u) / 2.0).ln()
}

#[test]
fn a_ten_percent_rise_with_a_tight_spread_is_found() {
    let tmp = scratch("effects-10");
    let c = compare_two(tmp.path(), [tight, tight_up], false, |_| {});
    let r = row(&c, "TTFT p50");
    let t = r.test.unwrap();
    assert_eq!(r.verdict, Verdict::Worse, "{r:?}");
    assert!(t.ci[0] > 5.0 && t.ci[1] < 15.0, "{r:?}");
    assert!(t.p_adjusted < 0.05, "{r:?}");
    assert!((r.diff_pct().unwrap() - 10.0).abs() < 1.5, "{r:?}");
    // Every quantity has its own interval and p-value, all from the same resampling; the
    // mean moved as much as the median.
    let mean = row(&c, "TTFT mean");
    assert_eq!(mean.verdict, Verdict::Worse, "{mean:?}");
    assert_ne!(mean.test.unwrap().ci, t.ci);
    assert!(r.flags.is_empty(), "{r:?}");
    let tally = c.tally();
    assert!(tally.worse >= 2, "{tally:?}");
    // The scenario table's entry reads like the row.
    let md = std::fs::read_to_string(tmp.path().join("cmp/compare.md")).unwrap();
    let table = md.split("### A1").nth(1).unwrap();
    assert!(table.contains("| N=4 |"), "{md}");
    let entry = compare::summary::entry(r);
    assert!(
        entry.starts_with("+10.") || entry.starts_with("+9."),
        "{entry}"
    );
    assert!(entry.ends_with(" worse"), "{entry}");
    assert!(table.contains(&entry), "{md}");
}

#[test]
fn a_one_percent_rise_in_noise_is_not() {
    let tmp = scratch("effects-1");
    // A 1% rise of an exponential TTFT: the mean moves 1 ms against a standard error of
    // the difference of about 2 ms over ~1,000 requests a side; p99 moves 2.8 ms against
    // about 20.
    let c = compare_two(tmp.path(), [wide, |u| 1.01 * wide(u)], false, |_| {});
    for label in ["TTFT p50", "TTFT mean", "TTFT p99"] {
        let r = row(&c, label);
        let t = r.test.unwrap();
        assert_eq!(r.verdict, Verdict::Same, "{r:?}");
        assert!(t.ci[0] < 0.0 && t.ci[1] > 0.0, "{r:?}");
        assert!(t.p_adjusted >= 0.05, "{r:?}");
    }
}

#[test]
fn an_unsteady_side_is_flagged_and_left_out_of_the_counts() {
    let tmp = scratch("effects-unsteady");
    let mark = |cell: &Path| {
        let path = cell.join("summary.json");
        let mut s: CellSummary = read_json(&path).unwrap();
        s.metrics.steady.steady = false;
        s.metrics.steady.reasons = vec!["block cv 0.41 > 0.25".into()];
        write_json(&path, &s).unwrap();
    };
    let c = compare_two(tmp.path(), [tight, tight_up], false, mark);
    assert_eq!(c.cells[0].flags, ["candidate unsteady"]);
    let r = row(&c, "TTFT p50");
    assert_eq!(r.verdict, Verdict::Worse, "still tested: {r:?}");
    assert!(r.flags.contains(&"candidate unsteady".to_owned()), "{r:?}");
    let tally = c.tally();
    assert_eq!((tally.better, tally.worse), (0, 0), "{tally:?}");
    assert_eq!(tally.flagged, c.cells[0].rows.len());
    let md = std::fs::read_to_string(tmp.path().join("cmp/compare.md")).unwrap();
    assert!(md.contains("candidate unsteady"), "{md}");
    assert!(md.contains("worse ‡"), "{md}");
    // With --include-unsteady the same rows count.
    let tmp = scratch("effects-unsteady-in");
    let c = compare_two(tmp.path(), [tight, tight_up], true, mark);
    assert!(c.tally().worse >= 2, "{:?}", c.tally());
}
