//! The registry of shown quantities: every number plateau shows outside `summary.json`
//! (summary.csv, the terminal table, report.html and summary.md tables, figures, compare,
//! the repeats' spreads) is one [`Quantity`] here, which says where it lives in a summary,
//! how to read it, its label, unit, CSV column and which way it improves, so "TTFT p50"
//! means the same field everywhere. Reading only: every value was computed by [`metrics`].
//!
//! [`metrics`]: crate::metrics

/// Defines one quantity constant (its doc says its field and label).
macro_rules! quantity {
    ($name:ident, $field:literal, $column:literal, $label:literal, $unit:literal, $kind:ident, $better:ident, $read:expr) => {
        #[doc = concat!("`", $field, "`: ", $label, ".")]
        pub const $name: Quantity = Quantity {
            field: $field,
            column: $column,
            label: $label,
            unit: $unit,
            kind: $crate::quantity::Kind::$kind,
            read: $read,
            better: $crate::quantity::Better::$better,
        };
    };
}

mod context;
mod gpu;
mod latency;
mod list;

pub use context::*;
pub use gpu::*;
pub use latency::*;
pub use list::*;

use crate::metrics::Distribution;
use crate::results::summary::CellSummary;

/// Which way a number improves: what `plateau compare` calls better.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Better {
    /// Latencies, error rates: smaller is better.
    Lower,
    /// Throughputs, goodput: larger is better.
    Higher,
    /// Neither way (coordinates, counts, ratios shown for context).
    Neither,
}

/// A value read from a summary, with its 95% confidence interval when the summary has one.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Reading {
    /// The value.
    pub value: f64,
    /// 95% confidence interval `[low, high]`.
    pub ci: Option<[f64; 2]>,
    /// The percentile rests on too few samples (the summary's `small_sample` flag).
    pub small_sample: bool,
}

impl Reading {
    /// A value with no interval and no small-sample flag.
    pub fn plain(value: f64) -> Reading {
        Reading {
            value,
            ci: None,
            small_sample: false,
        }
    }
}

/// How a quantity is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A count: no decimals.
    Count,
    /// A measurement: about three significant digits ([`number`]).
    Measure,
}

/// A quantity: its field path in `summary.json`, its label and unit, and how to read it.
#[derive(Clone, Copy, Debug)]
pub struct Quantity {
    /// Where it lives in `summary.json` (`ttft_ms.p50`); also its key in `repeats.json`.
    pub field: &'static str,
    /// Its column in `summary.csv` (`ttft_ms_p50`).
    pub column: &'static str,
    /// Short label (`TTFT p50`).
    pub label: &'static str,
    /// Unit (`ms`, `tok/s`), empty for ratios and counts.
    pub unit: &'static str,
    /// Count or measurement.
    pub kind: Kind,
    /// The value in a summary; `None` when the summary has none.
    pub read: fn(&CellSummary) -> Option<Reading>,
    /// Which way it improves.
    pub better: Better,
}

impl Quantity {
    /// The value in `s`, written for a table (`None` when the summary has none).
    pub fn text(&self, s: &CellSummary) -> Option<String> {
        let r = (self.read)(s)?;
        Some(match self.kind {
            Kind::Count => format!("{:.0}", r.value),
            Kind::Measure => number(r.value),
        })
    }

    /// The bare value in `s` (`None` when the summary has none).
    pub fn value(&self, s: &CellSummary) -> Option<f64> {
        (self.read)(s).map(|r| r.value)
    }

    /// `TTFT p99 (ms)`.
    pub fn axis_label(&self) -> String {
        if self.unit.is_empty() {
            self.label.to_owned()
        } else {
            format!("{} ({})", self.label, self.unit)
        }
    }
}

/// A number for a table: no decimals from 100 (and for 0), then one, two or three
/// decimals as it gets smaller; `–` for what is not finite.
pub fn number(v: f64) -> String {
    let a = v.abs();
    if !v.is_finite() {
        "–".into()
    } else if a >= 100.0 || a == 0.0 {
        format!("{v:.0}")
    } else if a >= 10.0 {
        format!("{v:.1}")
    } else if a >= 1.0 {
        format!("{v:.2}")
    } else {
        format!("{v:.3}")
    }
}

/// The p50 of `d`, with its interval and small-sample flag where the summary has them.
pub(crate) fn p50(d: &Option<Distribution>) -> Option<Reading> {
    d.as_ref().map(|d| Reading {
        value: d.p50,
        ci: d.p50_ci,
        small_sample: d.small_sample.contains("p50"),
    })
}

/// The p99 of `d`, with its interval and small-sample flag where the summary has them.
pub(crate) fn p99(d: &Option<Distribution>) -> Option<Reading> {
    d.as_ref().map(|d| Reading {
        value: d.p99,
        ci: d.p99_ci,
        small_sample: d.small_sample.contains("p99"),
    })
}

/// The p95 of `d` (no interval), flagged when it rests on fewer than 200 values.
pub(crate) fn p95(d: &Option<Distribution>) -> Option<Reading> {
    d.as_ref().map(|d| Reading {
        value: d.p95,
        ci: None,
        small_sample: d.small_sample.contains("p95"),
    })
}

/// The p90 of `d` (the summary keeps no interval for it).
pub(crate) fn p90(d: &Option<Distribution>) -> Option<Reading> {
    d.as_ref().map(|d| Reading::plain(d.p90))
}

/// The mean of `d`.
pub(crate) fn mean(d: &Option<Distribution>) -> Option<Reading> {
    d.as_ref().map(|d| Reading::plain(d.mean))
}
