//! The level-shift check on Measure: Pettitt's test on the per-second output-token series
//! in blocks of at least one request lifetime, doubled while the blocks, less the two
//! levels, stay correlated ([`stationarity::pettitt_blocks`]). A change of level makes the
//! cell unsteady when Pettitt's p-value is below 0.01 and the two levels differ by more
//! than `max_shift` of the window's mean.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::metrics::stationarity::{self, PETTITT_MIN_VALUES, pettitt_blocks};

/// A level shift counts only when Pettitt's p-value is below this.
pub const SHIFT_ALPHA: f64 = 0.01;

/// The most likely change of level in Measure.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct LevelShift {
    /// Block length, s.
    pub block_s: u64,
    /// Blocks tested.
    pub blocks: usize,
    /// When the level changed, s since the start of Measure.
    pub at_s: f64,
    /// Mean output tokens/s before it.
    pub before_tps: f64,
    /// Mean output tokens/s after it.
    pub after_tps: f64,
    /// Pettitt's approximate two-sided p-value of "no change".
    pub p_value: f64,
    /// Whether it makes the cell unsteady: p below 0.01 and the levels apart by more than
    /// `max_shift` of the mean.
    pub unsteady: bool,
}

impl LevelShift {
    /// The reason the cell is unsteady, when it is.
    pub fn reason(&self) -> Option<String> {
        self.unsteady.then(|| {
            format!(
                "level shift {:.1} s into Measure: output tokens/s {:.1} before, {:.1} after \
                 ({:+.1}%, Pettitt p = {:.4})",
                self.at_s,
                self.before_tps,
                self.after_tps,
                (self.after_tps / self.before_tps - 1.0) * 100.0,
                self.p_value
            )
        })
    }
}

/// The check on Measure's per-second output series `per_second`, in blocks of at least
/// `first_block` seconds. `Err` says why it cannot be judged: too few blocks for the test
/// to reach significance.
pub fn check(per_second: &[f64], first_block: usize, max_shift: f64) -> Result<LevelShift, String> {
    let too_few = || {
        format!(
            "level shift: {} one-second buckets give fewer than {PETTITT_MIN_VALUES} blocks of \
             {first_block} s, too few for Pettitt's test to reach p < {SHIFT_ALPHA}",
            per_second.len()
        )
    };
    if per_second.len() / first_block.max(1) < PETTITT_MIN_VALUES {
        return Err(too_few());
    }
    let (block, p) = pettitt_blocks(per_second, first_block).ok_or_else(too_few)?;
    let blocks = stationarity::batches(per_second, block);
    let level = stationarity::mean(&blocks).unwrap_or(0.0);
    Ok(LevelShift {
        block_s: block as u64,
        blocks: blocks.len(),
        at_s: (p.at * block) as f64,
        before_tps: p.before,
        after_tps: p.after,
        p_value: p.p,
        unsteady: level > 0.0
            && p.p < SHIFT_ALPHA
            && ((p.after - p.before) / level).abs() > max_shift,
    })
}
