//! One matched cell compared quantity by quantity ([`cell`]): each side's value (as the
//! summaries define it, pooled over repeats), the difference with its interval and
//! p-values from the block bootstrap (one resampling for every quantity of the cell), the
//! Bonferroni adjustment across the cell's quantities, the verdict, and the flags that
//! keep a row out of the better/worse counts (a side unsteady, overloaded, failed, or a
//! percentile resting on too few samples).

use plateau_model::metrics::percentile;
use plateau_model::results::summary::{CellStatus, CellSummary};

use super::blocks::{self, Loaded, MIN_BLOCKS, Side};
use super::bootstrap;
use super::metric::{How, METRICS, Metric, Share, Values};
use super::stats::{self, Interval};
use crate::quantity::Better;

/// What a difference means for the candidate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Significantly better.
    Better,
    /// Significantly worse.
    Worse,
    /// No significant difference (the interval includes 0).
    Same,
    /// Not tested: a side has no value or too few blocks.
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

/// One quantity of one matched cell.
#[derive(Clone, Debug)]
pub struct Row {
    /// The quantity.
    pub metric: Metric,
    /// Baseline value (pooled over its repeats).
    pub baseline: Option<f64>,
    /// Candidate value.
    pub candidate: Option<f64>,
    /// The difference's interval and p-values; absent when not tested.
    pub test: Option<Interval>,
    /// The verdict.
    pub verdict: Verdict,
    /// `[baseline, candidate]`: the side's percentile rests on too few samples, as its
    /// summaries flag it (`small_sample`); over repeats, when every repeat is flagged.
    pub small_sample: [bool; 2],
    /// Why the row is left out of the better/worse counts (empty: it counts).
    pub flags: Vec<String>,
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

    /// The interval in % of the baseline; `None` when the baseline is 0 or untested.
    pub fn ci_pct(&self) -> Option<[f64; 2]> {
        let b = self.baseline.filter(|&b| b != 0.0)?;
        self.test.map(|t| t.ci.map(|v| v / b.abs() * 100.0))
    }
}

/// How a matched cell was tested.
#[derive(Clone, Debug)]
pub struct Tested {
    /// One row per quantity either side has.
    pub rows: Vec<Row>,
    /// Block length, s.
    pub block_s: u64,
    /// Blocks on each side.
    pub blocks: [usize; 2],
    /// Why the whole cell's rows are flagged (a side unsteady, overloaded or failed).
    pub flags: Vec<String>,
}

/// Every quantity of a matched cell (`base` and `cand` are the repeats of each side),
/// resampled `resamples` times from a stream seeded by `seed`; quantities neither side has
/// are left out.
pub fn cell(base: &[Loaded], cand: &[Loaded], resamples: usize, seed: u64) -> Tested {
    let block_s = blocks::block_seconds(&[base, cand]);
    let sides = [Side::new(base, block_s), Side::new(cand, block_s)];
    let flags: Vec<String> = [("baseline", base), ("candidate", cand)]
        .into_iter()
        .flat_map(|(name, side)| {
            side_flags(side)
                .into_iter()
                .map(move |f| format!("{name} {f}"))
        })
        .collect();
    let metrics: Vec<Metric> = METRICS
        .iter()
        .filter(|m| value(m, base).is_some() || value(m, cand).is_some())
        .copied()
        .collect();
    let enough = sides.iter().all(|s| s.blocks.len() >= MIN_BLOCKS);
    let diffs = if enough {
        bootstrap::differences(&sides[0], &sides[1], &metrics, resamples, seed)
    } else {
        vec![None; metrics.len()]
    };
    let family = diffs.iter().filter(|d| d.is_some()).count();
    let rows = metrics
        .iter()
        .zip(diffs)
        .map(|(m, d)| {
            let test = d.and_then(|mut d| stats::interval(&mut d, family));
            let small = |side: &[Loaded]| {
                !side.is_empty()
                    && side
                        .iter()
                        .all(|l| (m.q.read)(l.summary).is_some_and(|r| r.small_sample))
            };
            let small_sample = [small(base), small(cand)];
            let mut row_flags = flags.clone();
            for (i, name) in ["baseline", "candidate"].iter().enumerate() {
                if small_sample[i] {
                    row_flags.push(format!("{name} small sample"));
                }
            }
            let (baseline, candidate) = (value(m, base), value(m, cand));
            Row {
                metric: *m,
                baseline,
                candidate,
                verdict: verdict(test.as_ref(), m.q.better),
                test,
                small_sample,
                flags: row_flags,
            }
        })
        .collect();
    Tested {
        rows,
        block_s,
        blocks: [sides[0].blocks.len(), sides[1].blocks.len()],
        flags,
    }
}

fn verdict(test: Option<&Interval>, better: Better) -> Verdict {
    let Some(t) = test else {
        return Verdict::Untested;
    };
    if !t.significant {
        return Verdict::Same;
    }
    match (better, t.ci[0] > 0.0) {
        (Better::Higher, true) | (Better::Lower, false) => Verdict::Better,
        (Better::Higher, false) | (Better::Lower, true) => Verdict::Worse,
        (Better::Neither, _) => Verdict::Same,
    }
}

/// Why a side's repeats make its comparisons unreliable: any repeat that did not complete,
/// was overloaded, or was not steady.
fn side_flags(side: &[Loaded]) -> Vec<String> {
    let mut out = Vec::new();
    let any = |f: &dyn Fn(&CellSummary) -> bool| side.iter().any(|l| f(l.summary));
    if any(&|s| s.status != CellStatus::Complete) {
        out.push("failed".to_owned());
    }
    if any(&|s| s.metrics.steady.overloaded) {
        out.push("overloaded".to_owned());
    } else if any(&|s| !s.metrics.steady.steady) {
        out.push("unsteady".to_owned());
    }
    out
}

/// A side's value of `m` as the summaries define it, pooled over its repeats: percentiles
/// and means of every measured successful request's values, the mean of the repeats'
/// rates, shares of the pooled measured requests.
fn value(m: &Metric, side: &[Loaded]) -> Option<f64> {
    match m.how {
        How::Percentile { q, values } => {
            let mut v = pool(side, values);
            v.sort_unstable_by(f64::total_cmp);
            percentile(&v, q)
        }
        How::Mean(values) => {
            let v = pool(side, values);
            (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
        }
        How::Rate(_) => {
            let v: Vec<f64> = side
                .iter()
                .filter_map(|l| (m.q.read)(l.summary).map(|r| r.value))
                .collect();
            (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
        }
        How::Share(share) => {
            let counts = side.iter().filter_map(|l| {
                let s = &l.summary.metrics;
                match share {
                    Share::Errors => Some((s.requests.measured_errors, s.requests.measured)),
                    Share::Goodput => s.goodput.as_ref().map(|g| (g.good, g.total)),
                }
            });
            let (hits, n) = counts.fold((0, 0), |(h, n), (x, y)| (h + x, n + y));
            (n > 0).then(|| hits as f64 / n as f64)
        }
    }
}

/// The values of every measured (started in the window) successful request of every repeat.
fn pool(side: &[Loaded], values: Values) -> Vec<f64> {
    let mut out = Vec::new();
    for l in side {
        let w = blocks::window(l);
        for s in l
            .samples
            .iter()
            .filter(|s| w.measures(s) && s.outcome.is_ok())
        {
            values.push(s, &mut out);
        }
    }
    out
}
