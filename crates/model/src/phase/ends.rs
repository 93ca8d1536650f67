//! Why each adaptive phase ended, as written in `summary.json` (`phases.phase_end`): the
//! rule that ended it, when, and the numbers the rule saw.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Why Stabilize and Measure ended in a cell with adaptive phases; absent with fixed ones.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PhaseEnds {
    /// Why Stabilize ended; absent when the cell stopped before it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stabilize: Option<PhaseEnd>,
    /// Why Measure ended; absent when the cell stopped before it did, and for a Measure of
    /// fixed length (a capacity probe).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub measure: Option<PhaseEnd>,
}

/// How one adaptive phase ended.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PhaseEnd {
    /// The rule that ended it.
    pub rule: EndRule,
    /// The phase's length, s.
    pub after_s: f64,
    /// The same in words, with the numbers (e.g. `"precision met: output tokens/s ±1.7%,
    /// TTFT p50 ±1.9% (batch quantiles) at 38.0 s"`).
    pub why: String,
    /// Measure: the relative half-widths the last check saw.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub precision: Option<Precision>,
}

/// The rule that ended an adaptive phase.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum EndRule {
    /// Stabilize: MSER-5 no longer truncates at the edge of its search on either series.
    TransientOver,
    /// Stabilize reached its `max` with the transient not judged over (the warm-up check
    /// of the steady verdict then says whether Measure was affected).
    MaxReached,
    /// Measure: both intervals within the precision target.
    PrecisionMet,
    /// Measure reached its `max` with an interval wider than the target (or too few data
    /// for one): its numbers are less precise than asked.
    Imprecise,
}

/// The relative half-widths of the 95% intervals the precision rule judges.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Precision {
    /// The target (`phases.precision`).
    pub target: f64,
    /// Output tokens/s (batch means over Measure so far); absent with fewer than 8 blocks
    /// or block means still correlated (lag-1 above 0.2).
    pub output_tps: Option<f64>,
    /// TTFT p50: the wider of the distribution-free interval of the median and the
    /// batch-quantiles one (which accounts for correlated neighbouring TTFTs); absent with
    /// too few requests for either (128 for the batch one) or block medians still
    /// correlated (lag-1 above 0.2).
    pub ttft_p50: Option<f64>,
    /// Which interval `ttft_p50` is (the wider one); absent when it is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttft_p50_interval: Option<TtftInterval>,
}

/// The interval of the TTFT p50 the precision rule judged.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TtftInterval {
    /// Distribution-free, from order statistics (`ttft_ms.p50_ci`): exact for independent
    /// requests.
    OrderStatistics,
    /// Batch quantiles (`steady.ttft_p50_batch`): wider when neighbouring TTFTs are
    /// correlated.
    BatchQuantiles,
}

impl Precision {
    /// Whether both intervals are known and within the target.
    pub fn met(&self) -> bool {
        [self.output_tps, self.ttft_p50]
            .iter()
            .all(|r| r.is_some_and(|r| r <= self.target))
    }

    /// `"output tokens/s ±1.7%, TTFT p50 ±1.9% (batch quantiles)"`; an interval not known
    /// yet says why (`"TTFT p50 no interval yet (fewer than 128 measured requests, ...)"`); the
    /// TTFT interval is named when known.
    pub fn describe(&self) -> String {
        let output = self.output_tps.map_or(
            "no interval yet (fewer than 8 blocks, or block means still correlated)".to_owned(),
            pct,
        );
        let ttft = self.ttft_p50.map_or(
            "no interval yet (fewer than 128 measured requests, or block p50s still correlated)"
                .to_owned(),
            pct,
        );
        let which = match self.ttft_p50_interval {
            Some(TtftInterval::OrderStatistics) => " (order statistics)",
            Some(TtftInterval::BatchQuantiles) => " (batch quantiles)",
            None => "",
        };
        format!("output tokens/s {output}, TTFT p50 {ttft}{which}")
    }
}

/// A relative half-width as `±1.7%`.
fn pct(r: f64) -> String {
    format!("±{:.1}%", r * 100.0)
}
