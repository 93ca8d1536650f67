//! `phases`: how long Stabilize and Measure last. `"fixed"` (the default) runs
//! `stabilize_seconds` and `measure_seconds`; `"adaptive"` ends Stabilize when the warm-up
//! truncation rule says the transient is over and Measure when the 95% intervals of output
//! tokens/s and TTFT p50 are as narrow as `precision` asks, each within its `min`..`max`.

use std::fmt;

use schemars::JsonSchema;
use serde::de::{self, MapAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize};

/// How phase lengths are decided: `"fixed"`, `"adaptive"` (with the default ranges and
/// precision), or an object with `mode` and any of `stabilize`, `measure`, `precision`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum PhasesConfig {
    /// `"fixed"` or `"adaptive"`.
    Mode(PhasesMode),
    /// `{"mode": "adaptive", "stabilize": {"min": 10, "max": 120}, "measure": {"min": 20,
    /// "max": 300}, "precision": 0.02}`; absent keys take these defaults.
    Spec(PhasesSpec),
}

/// Fixed or adaptive phase lengths.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum PhasesMode {
    /// `stabilize_seconds` and `measure_seconds`, for every cell.
    #[default]
    Fixed,
    /// Each cell's Stabilize and Measure end when its data says so, within their ranges.
    Adaptive,
}

/// The object form of `phases`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PhasesSpec {
    /// `"fixed"` or `"adaptive"`; the other keys are for `"adaptive"` only.
    pub mode: PhasesMode,
    /// Stabilize, seconds (default 10 to 120): it ends at the first check past `min` where
    /// MSER-5 on output tokens/s and on TTFT since the end of Fill no longer truncates at
    /// the edge of its search, and at `max` at the latest.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stabilize: Option<PhaseRange>,
    /// Measure, seconds (default 20 to 300): it ends at the first check past `min` where
    /// both intervals are within `precision`, else at `max` (then marked imprecise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub measure: Option<PhaseRange>,
    /// Largest half-width of the 95% intervals of Measure's output tokens/s (batch means)
    /// and TTFT p50 (the wider of the distribution-free and the batch-quantiles interval),
    /// as a fraction of the value (default 0.02: ±2%).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub precision: Option<f64>,
}

/// The shortest and longest a phase may last, seconds.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PhaseRange {
    /// Shortest, seconds.
    pub min: f64,
    /// Longest, seconds.
    pub max: f64,
}

/// Adaptive phases with every default applied.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct AdaptivePhases {
    /// Stabilize's range, seconds.
    pub stabilize: PhaseRange,
    /// Measure's range, seconds.
    pub measure: PhaseRange,
    /// Largest relative half-width of the 95% intervals.
    pub precision: f64,
}

/// Default Stabilize range of adaptive phases, seconds.
pub const DEFAULT_ADAPTIVE_STABILIZE: PhaseRange = PhaseRange {
    min: 10.0,
    max: 120.0,
};
/// Default Measure range of adaptive phases, seconds.
pub const DEFAULT_ADAPTIVE_MEASURE: PhaseRange = PhaseRange {
    min: 20.0,
    max: 300.0,
};
/// Default precision of adaptive phases: ±2%.
pub const DEFAULT_PRECISION: f64 = 0.02;

impl Default for PhasesConfig {
    fn default() -> Self {
        PhasesConfig::Mode(PhasesMode::Fixed)
    }
}

impl PhasesConfig {
    /// The default (fixed; left out of written configurations so they read as before).
    pub fn is_default(&self) -> bool {
        *self == PhasesConfig::default()
    }

    /// The mode.
    pub fn mode(&self) -> PhasesMode {
        match self {
            PhasesConfig::Mode(m) => *m,
            PhasesConfig::Spec(s) => s.mode,
        }
    }

    /// The adaptive settings with defaults applied; `None` for fixed phases.
    pub fn adaptive(&self) -> Option<AdaptivePhases> {
        let spec = match *self {
            PhasesConfig::Mode(PhasesMode::Fixed) => return None,
            PhasesConfig::Mode(PhasesMode::Adaptive) => PhasesSpec {
                mode: PhasesMode::Adaptive,
                stabilize: None,
                measure: None,
                precision: None,
            },
            PhasesConfig::Spec(s) if s.mode == PhasesMode::Fixed => return None,
            PhasesConfig::Spec(s) => s,
        };
        Some(AdaptivePhases {
            stabilize: spec.stabilize.unwrap_or(DEFAULT_ADAPTIVE_STABILIZE),
            measure: spec.measure.unwrap_or(DEFAULT_ADAPTIVE_MEASURE),
            precision: spec.precision.unwrap_or(DEFAULT_PRECISION),
        })
    }

    /// The adaptive keys set beside `"mode": "fixed"`, which would be ignored.
    pub fn unused_keys(&self) -> Vec<&'static str> {
        match self {
            PhasesConfig::Spec(s) if s.mode == PhasesMode::Fixed => [
                ("stabilize", s.stabilize.is_some()),
                ("measure", s.measure.is_some()),
                ("precision", s.precision.is_some()),
            ]
            .into_iter()
            .filter_map(|(k, set)| set.then_some(k))
            .collect(),
            _ => Vec::new(),
        }
    }
}

impl<'de> Deserialize<'de> for PhasesConfig {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = PhasesConfig;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("\"fixed\", \"adaptive\" or an object with \"mode\"")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<PhasesConfig, E> {
                PhasesMode::deserialize(de::value::StrDeserializer::<E>::new(v))
                    .map(PhasesConfig::Mode)
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<PhasesConfig, A::Error> {
                PhasesSpec::deserialize(de::value::MapAccessDeserializer::new(map))
                    .map(PhasesConfig::Spec)
            }
        }
        d.deserialize_any(V)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(json: &str) -> Result<PhasesConfig, String> {
        serde_json::from_str(json).map_err(|e| e.to_string())
    }

    #[test]
    fn shorthand_and_object_resolve_with_defaults() {
        assert_eq!(parse(r#""fixed""#).unwrap().adaptive(), None);
        let short = parse(r#""adaptive""#).unwrap().adaptive().unwrap();
        assert_eq!(short.stabilize, DEFAULT_ADAPTIVE_STABILIZE);
        assert_eq!(short.measure, DEFAULT_ADAPTIVE_MEASURE);
        assert_eq!(short.precision, 0.02);
        let full =
            parse(r#"{"mode": "adaptive", "measure": {"min": 5, "max": 60}, "precision": 0.05}"#)
                .unwrap()
                .adaptive()
                .unwrap();
        assert_eq!(full.stabilize, DEFAULT_ADAPTIVE_STABILIZE);
        assert_eq!(
            full.measure,
            PhaseRange {
                min: 5.0,
                max: 60.0
            }
        );
        assert_eq!(full.precision, 0.05);
    }

    #[test]
    fn bad_values_say_what_was_expected() {
        let e = parse(r#""adaptiv""#).unwrap_err();
        assert!(e.contains("adaptiv") && e.contains("adaptive"), "{e}");
        let e = parse(r#"{"mode": "adaptive", "measure": {"min": 5}}"#).unwrap_err();
        assert!(e.contains("max"), "{e}");
        let e = parse(r#"{"mode": "adaptive", "precison": 0.1}"#).unwrap_err();
        assert!(e.contains("precison"), "{e}");
        let fixed = parse(r#"{"mode": "fixed", "precision": 0.1}"#).unwrap();
        assert_eq!(fixed.unused_keys(), ["precision"]);
    }
}
