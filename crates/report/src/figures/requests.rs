//! What the distribution figures read from one cell's requests ([`CellRequests`]): the
//! empirical CDFs of TTFT and of ITL per chunk over the measured successful requests (the
//! population of the summary's distributions), and for a multi-turn cell each measured
//! request's prompt length beside its TTFT. Values come from the core's per-request
//! methods ([`Sample::ttft_us`], [`Sample::itl_chunk_us`]) and its [`percentile`]; a CDF is
//! kept as its value at [`STEPS`] + 1 evenly spaced quantiles, so a cell of a million gaps
//! costs the figure as little as one of a hundred.

use plateau_model::metrics::{Window, percentile, us_to_ms};
use plateau_model::results::summary::CellSummary;
use plateau_model::sample::Sample;

/// Quantile steps of a kept CDF: values at `q = 0, 1/STEPS, ..., 1`.
pub const STEPS: usize = 200;

/// Most (prompt, TTFT) points kept per cell: beyond it every k-th measured request is
/// kept, in send order.
pub const MAX_POINTS: usize = 2_000;

/// An empirical CDF: its value at each quantile `i / STEPS`, and how many values it was
/// taken from.
#[derive(Clone, Debug, PartialEq)]
pub struct Cdf {
    /// The value at `q = i / STEPS`, ascending; empty without values.
    pub at: Vec<f64>,
    /// Values behind it.
    pub n: usize,
}

impl Cdf {
    /// The CDF of `values` (any order).
    pub fn of(mut values: Vec<f64>) -> Cdf {
        values.sort_by(f64::total_cmp);
        let at = if values.is_empty() {
            Vec::new()
        } else {
            (0..=STEPS)
                .filter_map(|i| percentile(&values, i as f64 / STEPS as f64))
                .collect()
        };
        Cdf {
            at,
            n: values.len(),
        }
    }

    /// `(value, cumulative share)` points, for drawing.
    pub fn points(&self) -> impl Iterator<Item = (f64, f64)> + '_ {
        self.at
            .iter()
            .enumerate()
            .map(|(i, &v)| (v, i as f64 / STEPS as f64))
    }
}

/// The distributions of one cell's measured requests.
#[derive(Clone, Debug, PartialEq)]
pub struct CellRequests {
    /// TTFT, ms.
    pub ttft_ms: Cdf,
    /// ITL per chunk (every gap between content chunks), ms.
    pub itl_ms: Cdf,
    /// Some request carries a conversation turn: a multi-turn scenario.
    pub multi_turn: bool,
    /// Multi-turn only: (prompt tokens, TTFT ms) of measured successful requests with
    /// both, at most [`MAX_POINTS`].
    pub prompt_ttft: Vec<(f64, f64)>,
    /// Measured successful requests with a prompt length and a TTFT (before thinning).
    pub prompt_n: usize,
}

impl CellRequests {
    /// Reads the measured successful requests among `samples` (all of the cell's) in the
    /// measure window of `summary`.
    pub fn new(summary: &CellSummary, samples: &[Sample]) -> CellRequests {
        let window = Window {
            m0_us: summary.phases.m0_us,
            m1_us: summary.phases.m1_us,
            concurrency: None,
        };
        let ok: Vec<&Sample> = samples
            .iter()
            .filter(|s| window.measures(s) && s.outcome.is_ok())
            .collect();
        let ms = |us: u64| us_to_ms(us as f64);
        let ttft_ms = Cdf::of(ok.iter().filter_map(|s| s.ttft_us().map(ms)).collect());
        let itl_ms = Cdf::of(
            ok.iter()
                .flat_map(|s| s.itl_chunk_us().map(us_to_ms))
                .collect(),
        );
        let multi_turn = samples.iter().any(|s| s.turn.is_some());
        let pairs: Vec<(f64, f64)> = if multi_turn {
            ok.iter()
                .filter_map(|s| Some((f64::from(s.n_in?), ms(s.ttft_us()?))))
                .collect()
        } else {
            Vec::new()
        };
        CellRequests {
            ttft_ms,
            itl_ms,
            multi_turn,
            prompt_n: pairs.len(),
            prompt_ttft: thin(pairs, MAX_POINTS),
        }
    }
}

/// At most `max` of `items`: every k-th from the first, with the smallest k that keeps
/// no more than `max`.
fn thin<T>(items: Vec<T>, max: usize) -> Vec<T> {
    let every = items.len().div_ceil(max.max(1)).max(1);
    items.into_iter().step_by(every).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cdf_keeps_numpys_quantiles() {
        // 1..=5: q = 0.5 is 3, q = 0.25 is 2, q = 0.1 is 1.4 (linear interpolation).
        let cdf = Cdf::of(vec![5.0, 1.0, 4.0, 2.0, 3.0]);
        assert_eq!(cdf.n, 5);
        assert_eq!(cdf.at.len(), STEPS + 1);
        assert_eq!(cdf.at[0], 1.0);
        assert_eq!(cdf.at[STEPS], 5.0);
        assert_eq!(cdf.at[STEPS / 2], 3.0);
        assert_eq!(cdf.at[STEPS / 4], 2.0);
        assert!((cdf.at[STEPS / 10] - 1.4).abs() < 1e-12);
        let points: Vec<(f64, f64)> = cdf.points().collect();
        assert_eq!(points[STEPS / 2], (3.0, 0.5));
        assert_eq!(Cdf::of(Vec::new()).at, Vec::<f64>::new());
    }

    #[test]
    fn thinning_keeps_every_kth_and_at_most_the_limit() {
        let kept = thin((0..4_500).collect::<Vec<u32>>(), MAX_POINTS);
        assert_eq!(kept.len(), 1_500, "every 3rd of 4,500");
        assert_eq!(&kept[..3], &[0, 3, 6]);
        assert_eq!(
            thin((0..2_000).collect::<Vec<u32>>(), MAX_POINTS).len(),
            2_000
        );
        assert_eq!(
            thin((0..2_001).collect::<Vec<u32>>(), MAX_POINTS).len(),
            1_001
        );
        assert_eq!(thin(Vec::<u32>::new(), MAX_POINTS), Vec::<u32>::new());
    }
}
