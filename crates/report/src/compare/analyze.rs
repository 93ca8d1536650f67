//! One matched cell compared metric by metric ([`cell`]): values of both sides, the
//! difference with its 95% interval and p-value, Holm's adjustment across the cell's
//! metrics, and the verdict.

use plateau_model::metrics::{Window, percentile};
use plateau_model::results::summary::CellSummary;
use plateau_model::sample::Sample;

use super::metric::{How, METRICS, Metric};
use super::stats::{self, Test};
use crate::quantity::Better;

/// Significance level of the verdicts (on Holm-adjusted p-values).
pub const ALPHA: f64 = 0.05;

/// One repeat of a cell with its records.
#[derive(Debug)]
pub struct Loaded<'a> {
    /// Its summary.
    pub summary: &'a CellSummary,
    /// Every request of the cell.
    pub samples: Vec<Sample>,
}

impl Loaded<'_> {
    fn window(&self) -> Window {
        let p = &self.summary.phases;
        Window {
            m0_us: p.m0_us,
            m1_us: p.m1_us,
            concurrency: self.summary.cell.load.concurrency,
        }
    }
}

/// What a difference means for the candidate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Significantly better.
    Better,
    /// Significantly worse.
    Worse,
    /// No significant difference at [`ALPHA`] (after Holm).
    Same,
    /// Not tested: a side has no value or too few samples.
    Untested,
}

impl Verdict {
    /// What the tables say.
    pub fn text(self) -> &'static str {
        match self {
            Verdict::Better => "better",
            Verdict::Worse => "worse",
            Verdict::Same => "no significant difference",
            Verdict::Untested => "not tested",
        }
    }
}

/// One metric of one matched cell.
#[derive(Clone, Debug)]
pub struct Row {
    /// The metric.
    pub metric: Metric,
    /// Baseline value (pooled over its repeats).
    pub baseline: Option<f64>,
    /// Candidate value.
    pub candidate: Option<f64>,
    /// 95% interval of `candidate - baseline`.
    pub ci: Option<[f64; 2]>,
    /// Raw two-sided p-value.
    pub p: Option<f64>,
    /// p-value after Holm's adjustment across the cell's metrics.
    pub p_holm: Option<f64>,
    /// The test behind `p` and `ci`.
    pub test: &'static str,
    /// The verdict.
    pub verdict: Verdict,
    /// `[baseline, candidate]`: the side's percentile rests on too few samples, as its
    /// summaries flag it (`small_sample`). Over repeats a side is flagged when every
    /// repeat is: the pooled values are at least as many as any one repeat's, so a pool
    /// is never enough where each repeat alone is not flagged.
    pub small_sample: [bool; 2],
}

impl Row {
    /// Whether either side's percentile rests on too few samples.
    pub fn small(&self) -> bool {
        self.small_sample.contains(&true)
    }

    /// `candidate - baseline`.
    pub fn diff(&self) -> Option<f64> {
        Some(self.candidate? - self.baseline?)
    }

    /// The difference in % of the baseline; `None` when the baseline is 0.
    pub fn diff_pct(&self) -> Option<f64> {
        let b = self.baseline?;
        (b != 0.0).then(|| self.diff().map(|d| d / b * 100.0))?
    }
}

/// Every headline metric of a matched cell (`base` and `cand` are the repeats of each
/// side), tested with the bootstrap seeded by `seed`; metrics neither side has are left out.
pub fn cell(base: &[Loaded], cand: &[Loaded], resamples: usize, seed: u64) -> Vec<Row> {
    let mut rows: Vec<Row> = METRICS
        .iter()
        .filter_map(|m| row(m, base, cand, resamples, seed))
        .collect();
    let adjusted = stats::holm(&rows.iter().map(|r| r.p).collect::<Vec<_>>());
    for (r, p_holm) in rows.iter_mut().zip(adjusted) {
        r.p_holm = p_holm;
        r.verdict = verdict(r);
    }
    rows
}

fn verdict(r: &Row) -> Verdict {
    let (Some(p), Some([lo, hi]), Some(d)) = (r.p_holm, r.ci, r.diff()) else {
        return Verdict::Untested;
    };
    if p >= ALPHA || (lo <= 0.0 && hi >= 0.0) || d == 0.0 {
        return Verdict::Same;
    }
    match (r.metric.q.better, d > 0.0) {
        (Better::Higher, true) | (Better::Lower, false) => Verdict::Better,
        (Better::Higher, false) | (Better::Lower, true) => Verdict::Worse,
        (Better::Neither, _) => Verdict::Same,
    }
}

fn row(m: &Metric, base: &[Loaded], cand: &[Loaded], resamples: usize, seed: u64) -> Option<Row> {
    let (baseline, candidate, test, label): (Option<f64>, Option<f64>, Option<Test>, _) =
        match m.how {
            How::Percentile { q, values } => {
                let (a, b) = (pool(base, values), pool(cand, values));
                let value = |v: &[f64]| {
                    let mut v = v.to_vec();
                    v.sort_unstable_by(f64::total_cmp);
                    percentile(&v, q)
                };
                let t = stats::mann_whitney(&a, &b)
                    .zip(stats::bootstrap_percentile_diff(&a, &b, q, resamples, seed));
                let (va, vb) = (value(&a), value(&b));
                let test = t.zip(va.zip(vb)).map(|(((_, p), ci), (va, vb))| Test {
                    diff: vb - va,
                    ci,
                    p,
                });
                (va, vb, test, "Mann-Whitney U; bootstrap CI")
            }
            How::Rate(series) => {
                let values = |side: &[Loaded]| -> Vec<f64> {
                    side.iter()
                        .filter_map(|l| (m.q.read)(l.summary).map(|r| r.value))
                        .collect()
                };
                let (a, b) = (values(base), values(cand));
                if a.len() >= 2 && b.len() >= 2 {
                    (
                        mean(&a),
                        mean(&b),
                        stats::welch(&a, &b),
                        "Welch t over repeats",
                    )
                } else {
                    let per_second = |side: &[Loaded]| -> Vec<f64> {
                        side.iter()
                            .flat_map(|l| series(&l.samples, &l.window()))
                            .collect()
                    };
                    let t = stats::welch(&per_second(base), &per_second(cand));
                    (mean(&a), mean(&b), t, "Welch t over per-second counts")
                }
            }
            How::Proportion(count) => {
                let sum = |side: &[Loaded]| {
                    side.iter().filter_map(|l| count(l.summary)).fold(
                        None,
                        |acc: Option<(u64, u64)>, (x, n)| {
                            let (ax, an) = acc.unwrap_or((0, 0));
                            Some((ax + x, an + n))
                        },
                    )
                };
                let (a, b) = (sum(base), sum(cand));
                let share = |c: Option<(u64, u64)>| c.map(|(x, n)| x as f64 / n as f64);
                let t = a
                    .zip(b)
                    .and_then(|((xa, na), (xb, nb))| stats::proportions(xa, na, xb, nb));
                (share(a), share(b), t, "two-proportion z")
            }
        };
    if baseline.is_none() && candidate.is_none() {
        return None;
    }
    let small = |side: &[Loaded]| {
        !side.is_empty()
            && side
                .iter()
                .all(|l| (m.q.read)(l.summary).is_some_and(|r| r.small_sample))
    };
    Some(Row {
        small_sample: [small(base), small(cand)],
        metric: *m,
        baseline,
        candidate,
        ci: test.map(|t| t.ci),
        p: test.map(|t| t.p),
        p_holm: None,
        test: label,
        verdict: Verdict::Untested,
    })
}

/// The values of every measured (started in the window) successful request of every repeat.
fn pool(side: &[Loaded], values: fn(&Sample, &mut Vec<f64>)) -> Vec<f64> {
    let mut out = Vec::new();
    for l in side {
        let w = l.window();
        for s in l
            .samples
            .iter()
            .filter(|s| w.measures(s) && s.outcome.is_ok())
        {
            values(s, &mut out);
        }
    }
    out
}

fn mean(x: &[f64]) -> Option<f64> {
    (!x.is_empty()).then(|| x.iter().sum::<f64>() / x.len() as f64)
}
