//! One side of a matched cell cut into blocks of its measure window for the bootstrap
//! ([`Side`]): each block keeps the per-request values of the measured successful
//! requests started in it (sorted), the output tokens and completions arriving in it, and
//! the measured requests, failures and SLO hits among those started in it. Blocks are as
//! long as the batch-means rule makes them (the block means close to uncorrelated), so
//! drawing whole blocks keeps the correlation between neighbouring requests and seconds.

use plateau_model::config::SloConfig;
use plateau_model::metrics::stationarity::batch_means;
use plateau_model::metrics::{Window, output_tokens_by_bucket};
use plateau_model::results::summary::CellSummary;
use plateau_model::sample::Sample;

use super::metric::Values;

/// One second, us.
const SECOND_US: u64 = 1_000_000;

/// Fewest blocks a side needs to be resampled.
pub const MIN_BLOCKS: usize = 5;

/// One repeat of a cell with its records.
#[derive(Clone, Debug)]
pub struct Loaded<'a> {
    /// Its summary.
    pub summary: &'a CellSummary,
    /// Every request of the cell.
    pub samples: Vec<Sample>,
    /// Which independent run it is on its side: repeats with the same number are pooled
    /// into one run's blocks; with two runs or more the bootstrap draws runs first
    /// ([`Side::runs`]). `compare` numbers every repeat 0 (one run per side); the gate
    /// numbers each history run's repeats apart, so its baseline's spread is the
    /// across-run one.
    pub run: usize,
}

/// What one block of a side's window holds.
#[derive(Clone, Debug, Default)]
pub struct Block {
    /// Per-request values of each kind ([`Values::ALL`] order), sorted.
    pub values: [Vec<f64>; 4],
    /// Their sums.
    pub sums: [f64; 4],
    /// Output tokens arriving in the block.
    pub tokens: f64,
    /// Successful requests ending in the block.
    pub completions: f64,
    /// Measured requests started in the block (any outcome).
    pub measured: f64,
    /// Of those, failed.
    pub errors: f64,
    /// Of those, meeting every SLO (when the run has one).
    pub good: f64,
}

/// A side of a matched cell (every repeat's window) in blocks.
#[derive(Clone, Debug)]
pub struct Side {
    /// The blocks of every repeat, in order.
    pub blocks: Vec<Block>,
    /// Block length, s.
    pub block_s: f64,
    /// Every value of each kind over all blocks, sorted: where the bootstrap's quantile
    /// search looks.
    pub sorted: [Vec<f64>; 4],
    /// Whether every repeat has an SLO, so goodput is defined.
    pub goodput: bool,
    /// The blocks of each independent run ([`Loaded::run`]), in order of first
    /// appearance; one range when every repeat is run 0.
    pub runs: Vec<std::ops::Range<usize>>,
}

/// The window of a loaded repeat.
pub fn window(l: &Loaded) -> Window {
    let p = &l.summary.phases;
    Window {
        m0_us: p.m0_us,
        m1_us: p.m1_us,
        concurrency: l.summary.cell.load.concurrency,
    }
}

/// The block length, s, for comparing `sides`: the largest the batch-means rule picks on
/// any repeat's per-second output series (starting from one request lifetime), so no side
/// is cut finer than its correlation allows.
pub fn block_seconds(sides: &[&[Loaded]]) -> u64 {
    sides
        .iter()
        .flat_map(|side| side.iter())
        .filter_map(|l| {
            let w = window(l);
            let seconds = (w.duration_us() / SECOND_US).max(1);
            let series: Vec<f64> = output_tokens_by_bucket(
                &l.samples,
                w.m0_us,
                w.m0_us + seconds * SECOND_US,
                SECOND_US,
            )
            .into_iter()
            .map(|n| n as f64)
            .collect();
            let lifetime = l.summary.metrics.steady.block_s.max(1) as usize;
            batch_means(&series, lifetime).map(|b| b.block as u64)
        })
        .max()
        .unwrap_or(1)
        .max(1)
}

impl Side {
    /// `side`'s repeats in blocks of `block_s` seconds (whole blocks of each window only).
    pub fn new(side: &[Loaded], block_s: u64) -> Side {
        let block_us = block_s.max(1) * SECOND_US;
        let slos: Vec<Option<SloConfig>> = side.iter().map(slo).collect();
        let goodput = !side.is_empty() && slos.iter().all(Option::is_some);
        let mut blocks = Vec::new();
        let mut order: Vec<usize> = Vec::new();
        for l in side {
            if !order.contains(&l.run) {
                order.push(l.run);
            }
        }
        let mut runs = Vec::with_capacity(order.len());
        for run in order {
            let start = blocks.len();
            for (l, slo) in side.iter().zip(&slos).filter(|(l, _)| l.run == run) {
                add_repeat(&mut blocks, l, slo.as_ref(), block_us);
            }
            runs.push(start..blocks.len());
        }
        let mut sorted: [Vec<f64>; 4] = Default::default();
        for b in &mut blocks {
            for (i, values) in b.values.iter_mut().enumerate() {
                values.sort_unstable_by(f64::total_cmp);
                b.sums[i] = values.iter().sum();
                sorted[i].extend_from_slice(values);
            }
        }
        for values in &mut sorted {
            values.sort_unstable_by(f64::total_cmp);
        }
        Side {
            blocks,
            block_s: block_s.max(1) as f64,
            sorted,
            goodput,
            runs,
        }
    }
}

/// Appends the whole blocks of repeat `l`'s window to `blocks`.
fn add_repeat(blocks: &mut Vec<Block>, l: &Loaded, slo: Option<&SloConfig>, block_us: u64) {
    let w = window(l);
    let k = usize::try_from(w.duration_us() / block_us).unwrap_or(0);
    let first = blocks.len();
    blocks.resize(first + k, Block::default());
    let at = |t_us: u64| -> Option<usize> {
        let j = usize::try_from(t_us.checked_sub(w.m0_us)? / block_us).ok()?;
        (j < k).then_some(first + j)
    };
    for s in &l.samples {
        if s.outcome.is_ok() {
            if let Some(j) = at(s.t_end_us) {
                blocks[j].completions += 1.0;
            }
            for c in &s.chunks {
                if let Some(j) = at(c.t_us) {
                    blocks[j].tokens += f64::from(c.tokens);
                }
            }
        }
        let Some(j) = at(s.t_start_us()).filter(|_| w.measures(s)) else {
            continue;
        };
        let b = &mut blocks[j];
        b.measured += 1.0;
        b.errors += f64::from(u8::from(s.outcome.is_error()));
        b.good += f64::from(u8::from(slo.is_some_and(|slo| s.meets_slo(slo))));
        if s.outcome.is_ok() {
            for v in Values::ALL {
                v.push(s, &mut b.values[v.index()]);
            }
        }
    }
}

/// The SLO a repeat's goodput was judged by (its fingerprint keeps the run's `slo`).
fn slo(l: &Loaded) -> Option<SloConfig> {
    let slo = l.summary.fingerprint.as_ref()?.inputs.slo.clone()?;
    (slo.ttft_ms.is_some() || slo.tpot_ms.is_some() || slo.e2e_ms.is_some()).then_some(slo)
}
