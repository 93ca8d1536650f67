//! The warm-up check on the series from the end of Fill to the end of Measure. MSER
//! ([`stationarity::mser`], batches of 5 observations when the series is long enough) finds
//! where the warm-up ends. MSER finds a truncation point in most stationary series (about
//! a third of them in our measurements), so a truncation past the start of Measure counts
//! only when Pettitt's test on the same series ([`stationarity::pettitt_blocks`], in
//! blocks whose size is set on what MSER keeps) finds a change of level inside Measure,
//! significant at 1% and larger than `max_shift`. The message says how many seconds of
//! Stabilize the data asked for.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::metrics::stationarity::{
    MAX_LAG1, MIN_BATCHES, PETTITT_MIN_VALUES, batches, lag1, mser, mser_batch, pettitt,
};

/// A warm-up counts only when Pettitt's p-value is below this.
pub const WARMUP_ALPHA: f64 = 0.01;

/// A change of TTFT level smaller than this, ms, does not count: it is within the
/// scheduling lag the client's self-check allows itself (validate's
/// `max_client_lag_p99_ms`), so a busy client machine can make it. Seen: a 3 s cell whose
/// TTFT fell from 23.7 to 20.8 ms (p = 0.007) while other builds loaded the machine.
pub const MIN_TTFT_CHANGE_MS: f64 = 5.0;

/// Which series a check ran on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Series {
    /// Output tokens/s in blocks of one request lifetime, by chunk arrival.
    OutputTps,
    /// TTFT of each successful request, ms, in the order they were sent.
    TtftMs,
}

impl Series {
    /// The series' name in messages.
    pub fn label(self) -> &'static str {
        match self {
            Series::OutputTps => "output tokens/s",
            Series::TtftMs => "TTFT",
        }
    }

    /// The smallest change of level that counts, in the series' unit.
    fn min_change(self) -> f64 {
        match self {
            Series::OutputTps => 0.0,
            Series::TtftMs => MIN_TTFT_CHANGE_MS,
        }
    }

    fn unit(self) -> &'static str {
        match self {
            Series::OutputTps => "tok/s",
            Series::TtftMs => "ms",
        }
    }
}

/// What the warm-up check found on one series.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Warmup {
    /// The series.
    pub series: Series,
    /// Observations from the end of Fill to the end of Measure.
    pub observations: usize,
    /// MSER's batch size, in observations (5 when the series has 50 or more).
    pub batch: usize,
    /// Seconds after the end of Fill that MSER truncates (0: none).
    pub truncate_s: f64,
    /// Seconds of Measure inside the truncated stretch (0 when it ends within Stabilize).
    pub into_measure_s: f64,
    /// Pettitt's block, in observations (only when MSER truncated into Measure).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub block: Option<usize>,
    /// When Pettitt's change of level falls, s after the end of Fill.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub change_s: Option<f64>,
    /// Mean level before the change, then after it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub levels: Option<[f64; 2]>,
    /// Pettitt's approximate two-sided p-value of "no change".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p_value: Option<f64>,
    /// Whether the warm-up makes the cell unsteady: MSER truncates into Measure, and the
    /// change of level falls inside Measure with `p_value` below 0.01 and the levels apart
    /// by more than `max_shift` of the later one (and, for TTFT, by at least
    /// 5 ms, `MIN_TTFT_CHANGE_MS`).
    pub unsteady: bool,
}

impl Warmup {
    /// The reason the cell is unsteady, when it is.
    pub fn reason(&self, stabilize_s: f64) -> Option<String> {
        let [a, b] = self.levels.filter(|_| self.unsteady)?;
        Some(format!(
            "warm-up: MSER-{} on {} truncates the first {:.1} s after Fill, {:.1} s into Measure; \
             its level changes {:.1} s after Fill ({a:.1} then {b:.1} {}, Pettitt p = {:.4}): the \
             data asked for at least {} s of Stabilize (it was {stabilize_s} s)",
            self.batch,
            self.series.label(),
            self.truncate_s,
            self.into_measure_s,
            self.change_s.unwrap_or(self.truncate_s),
            self.series.unit(),
            self.p_value.unwrap_or(1.0),
            self.truncate_s.ceil()
        ))
    }
}

/// The check on `points`, `(start s since the end of Fill, value)` in time order, with
/// Measure starting `stabilize_s` after Fill. `Err` says why the series cannot be judged.
pub fn check(
    series: Series,
    points: &[(f64, f64)],
    stabilize_s: f64,
    max_shift: f64,
) -> Result<Warmup, String> {
    let n = points.len();
    let values: Vec<f64> = points.iter().map(|p| p.1).collect();
    let (batch, d) = truncation(series, &values)?;
    if !points.iter().any(|p| p.0 >= stabilize_s) {
        return Err(format!(
            "warm-up ({}): no observation in Measure",
            series.label()
        ));
    }
    let truncate_s = if d == 0 { 0.0 } else { points[d].0 };
    let into_measure_s = (truncate_s - stabilize_s).max(0.0);
    let mut out = Warmup {
        series,
        observations: n,
        batch,
        truncate_s,
        into_measure_s,
        block: None,
        change_s: None,
        levels: None,
        p_value: None,
        unsteady: false,
    };
    if into_measure_s > 0.0 {
        let block = kept_block(&values[d..]);
        let Some(p) = pettitt(&batches(&values, block)) else {
            return Ok(out);
        };
        let change_s = points[p.at * block].0;
        out.block = Some(block);
        out.change_s = Some(change_s);
        out.levels = Some([p.before, p.after]);
        out.p_value = Some(p.p);
        out.unsteady = p.after != 0.0
            && p.p < WARMUP_ALPHA
            && ((p.before - p.after) / p.after).abs() > max_shift
            && (p.before - p.after).abs() >= series.min_change()
            && change_s > stabilize_s;
    }
    Ok(out)
}

/// MSER's batch size and truncation point (observations dropped) on `values`, a series
/// from the end of Fill; `Err` says why it is too short to judge.
pub(super) fn truncation(series: Series, values: &[f64]) -> Result<(usize, usize), String> {
    let n = values.len();
    let Some(batch) = mser_batch(n).filter(|_| n >= PETTITT_MIN_VALUES) else {
        return Err(format!(
            "warm-up ({}): {n} observations from the end of Fill, the check needs at least {}",
            series.label(),
            PETTITT_MIN_VALUES
        ));
    };
    Ok((batch, mser(values, batch).unwrap_or(0)))
}

/// The block for Pettitt's test: doubled from one observation while the block means of
/// what MSER keeps (past the warm-up, so the warm-up's own trend does not count) are
/// correlated, as long as the kept part still gives [`MIN_BATCHES`] blocks.
fn kept_block(kept: &[f64]) -> usize {
    let mut block = 1;
    while lag1(&batches(kept, block)).is_some_and(|r| r > MAX_LAG1)
        && kept.len() / (block * 2) >= MIN_BATCHES
    {
        block *= 2;
    }
    block
}
